/* disasm_view.c — `--format disasm`, pprof's -disasm: each chosen
 * function's machine code with every instruction's flat and cum values,
 * its address and text as `objdump -d` prints them for the file, a '>'
 * before instructions a branch of the function lands on, and after " ; "
 * its inline chain, innermost first ("file:line function", each inlined
 * into the next), e.g.
 *
 *   ROUTINE ======================== hot_outer [hot_outer] in /tmp/annfix
 *          600        700 (flat, cum) 70.00% of Total
 *            .          .     401136:	push   %rbp ; annfix.c:40 hot_outer
 *          300        300 >   40114a:	add    %rax,%rdx ; annfix.c:21 leaf_a <- annfix.c:42 hot_outer
 *
 * The header's values are the function's code: its instructions' flat
 * total (samples whose leaf lies in it) and cum.
 */
#include "report/reportp.h"

#include <stdlib.h>

sp_error *sp_disasm_write(const sp_annotation *a, const char *unit, sp_sink *out)
{
	sp_ann_write_total(a, unit, out);
	if (!a->n_functions)
		sp_sink_puts(out, "no function matched\n");
	for (size_t i = 0; i < a->n_functions; i++) {
		const sp_ann_function *f = &a->functions[i];
		char pct[16];
		if (!f->n_insns) {
			sp_sink_printf(out, "ROUTINE ======================== %s\n  (no disassembly: %s)\n",
				       sp_ann_str(a, f->name), f->no_disasm ? f->no_disasm : "no code");
			continue;
		}
		int64_t cum = f->code_cum;
		sp_sink_printf(out, "ROUTINE ======================== %s [%s] in %s\n",
			       sp_ann_str(a, f->name), f->symbol, f->object);
		sp_ann_write_values(a, unit, f->code_flat, cum, out);
		sp_sink_printf(out, "(flat, cum) %s of Total\n", sp_report_pct(cum, a->total, pct));
		for (size_t k = 0; k < f->n_insns; k++) {
			const sp_ann_insn *in = &f->insns[k];
			sp_ann_write_values(a, unit, in->flat, in->cum, out);
			sp_sink_printf(out, "%c %8llx:\t%s", in->is_target ? '>' : ' ',
				       (unsigned long long)in->vaddr, in->text);
			for (size_t j = 0; j < in->n_frames; j++) {
				const sp_ann_frame *fr = &a->frames[in->first_frame + j];
				sp_sink_printf(out, "%s%s:%lld %s", j ? " <- " : " ; ",
					       sp_report_base_name(sp_ann_str(a, fr->file)),
					       (long long)fr->line, sp_ann_str(a, fr->function));
			}
			sp_sink_puts(out, "\n");
		}
	}
	return NULL;
}
