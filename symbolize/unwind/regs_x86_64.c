/* regs_x86_64.c — a sample's user registers as perf recorded them for an
 * x86-64 process (PERF_SAMPLE_REGS_USER, in asm/perf_regs.h's order, the
 * ones the event's sample_regs_user mask selects), in DWARF's numbering.
 */
#include "symbolize/unwind/unwindp.h"

#include <string.h>

/* perf's x86 register numbers (asm/perf_regs.h) of DWARF registers 0..16:
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
static const unsigned dwarf_to_perf[17] = {0,  3,  2,  1,  4,  5,  6,  7, 16,
					   17, 18, 19, 20, 21, 22, 23, 8};

/* Loads the sample's registers into U (DWARF order); false without SP and IP. */
bool sp_unwind_load_regs(sp_unwinder *u, const sp_capture_sample *s)
{
	uint64_t mask = s->event < u->c->n_events ? u->c->events[s->event].sample_regs_user : 0;
	const uint8_t *regs = (const uint8_t *)u->c->bytes.data + s->regs.off;
	size_t n = s->regs.len / 8;
	if (!u->pos_known || u->pos_mask != mask) { /* one event's mask, as a rule */
		for (unsigned r = 0; r < 17; r++) {
			unsigned bit = dwarf_to_perf[r];
			u->reg_pos[r] = mask >> bit & 1
						? (size_t)__builtin_popcountll(mask & ((1ULL << bit) - 1))
						: SIZE_MAX;
		}
		u->pos_mask = mask;
		u->pos_known = true;
	}
	for (unsigned r = 0; r < 17; r++) {
		size_t pos = u->reg_pos[r];
		u->have_reg[r] = pos < n;
		u->regs[r] = 0;
		if (u->have_reg[r])
			memcpy(&u->regs[r], regs + pos * 8, 8);
	}
	return u->have_reg[7] && u->have_reg[16];
}
