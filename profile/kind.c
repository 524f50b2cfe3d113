/* kind.c — what kind of code a mapping or an address holds.
 *
 * The model has no field for it: pprof's Mapping has none, and a profile
 * read back from pprof must say the same.  The kind is carried by the
 * names perf and pprof give to mappings without a file, "[jit]" and
 * "[kernel.kallsyms]" (and perf's "[kernel.kallsyms]_text"), and by the
 * address itself for the kernel half of the address space.  This file is
 * the only one that knows those names: the symbolizer names a mapping
 * through sp_mapping_set_kind, writers ask sp_code_kind_of.
 */
#include "profile/profile.h"

#include <inttypes.h>
#include <string.h>

#define JIT_NAME "[jit]"
#define KERNEL_NAME "[kernel.kallsyms]"
#define KERNEL_PREFIX "[kernel" /* perf's [kernel.kallsyms], [kernel.vmlinux], ... */

sp_code_kind sp_code_kind_of(const sp_profile *p, const sp_mapping *m, uint64_t address)
{
	if (address >= SP_KERNEL_HALF)
		return SP_CODE_KERNEL;
	const char *name = m ? sp_profile_str(p, m->filename) : "";
	if (!strncmp(name, KERNEL_PREFIX, strlen(KERNEL_PREFIX)))
		return SP_CODE_KERNEL;
	if (!strcmp(name, JIT_NAME))
		return SP_CODE_JIT;
	return *name ? SP_CODE_FILE : SP_CODE_ANONYMOUS;
}

sp_code_kind sp_location_kind(const sp_profile *p, const sp_location *l)
{
	/* an OTLP profile says which frames are the kernel's: the eBPF
	 * profiler's kernel mappings are its modules, named without brackets
	 * and placed at 0 */
	const char *type = sp_location_otel_string(p, l->id, "profile.frame.type");
	if (type && !strcmp(type, "kernel"))
		return SP_CODE_KERNEL;
	return sp_code_kind_of(p, l->mapping_id ? sp_profile_mapping(p, l->mapping_id) : NULL,
			       l->address);
}

char *sp_location_address_name(const sp_profile *p, const sp_location *l)
{
	return sp_location_unresolved_name(p, l, !p->group_unresolved);
}

char *sp_location_unresolved_name(const sp_profile *p, const sp_location *l, bool by_address)
{
	const sp_mapping *m = l->mapping_id ? sp_profile_mapping(p, l->mapping_id) : NULL;
	if (!m || l->address < m->memory_start || l->address >= m->memory_limit)
		return sp_xasprintf("0x%" PRIx64, l->address);
	uint64_t rel = l->address - m->memory_start;
	sp_code_kind kind = sp_code_kind_of(p, m, l->address);
	/* a region without a file from 0 stands for a whole address space */
	if (kind != SP_CODE_FILE && !m->memory_start)
		return sp_xasprintf("0x%" PRIx64, l->address);
	if (!by_address) {
		const char *file = sp_profile_str(p, m->filename);
		const char *base = strrchr(file, '/');
		base = base && base[1] ? base + 1 : file;
		switch (kind) {
		case SP_CODE_KERNEL: return sp_xstrdup(KERNEL_NAME);
		case SP_CODE_JIT: return sp_xstrdup(JIT_NAME);
		case SP_CODE_ANONYMOUS: return sp_xstrdup("[anon]");
		case SP_CODE_FILE: /* perf's [vdso] and the like are named so already */
			return base[0] == '[' && base[strlen(base) - 1] == ']'
				       ? sp_xstrdup(base) : sp_xasprintf("[%s]", base);
		}
	}
	switch (kind) {
	case SP_CODE_KERNEL: return sp_xasprintf("[kernel]+0x%" PRIx64, rel);
	case SP_CODE_JIT: return sp_xasprintf("[jit]+0x%" PRIx64, rel);
	case SP_CODE_ANONYMOUS: return sp_xasprintf("[anon]+0x%" PRIx64, rel);
	case SP_CODE_FILE: break;
	}
	const char *file = sp_profile_str(p, m->filename);
	const char *base = strrchr(file, '/');
	base = base && base[1] ? base + 1 : file;
	uint64_t off;
	if (__builtin_add_overflow(rel, m->file_offset, &off))
		off = rel;
	return sp_xasprintf("%s+0x%" PRIx64, base, off);
}

void sp_mapping_set_kind(sp_profile *p, sp_mapping *m, sp_code_kind kind)
{
	if (kind == SP_CODE_JIT)
		m->filename = sp_profile_intern(p, JIT_NAME);
	else if (kind == SP_CODE_KERNEL)
		m->filename = sp_profile_intern(p, KERNEL_NAME);
}

char sp_frame_annotation(const sp_profile *p, const sp_location *l, size_t line_idx)
{
	if (line_idx + 1 < l->n_lines)
		return 'i';
	switch (sp_location_kind(p, l)) {
	case SP_CODE_KERNEL: return 'k';
	case SP_CODE_JIT: return 'j';
	case SP_CODE_FILE:
	case SP_CODE_ANONYMOUS: break;
	}
	return 0;
}
