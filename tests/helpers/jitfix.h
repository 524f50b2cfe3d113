/* jitfix.h — test helpers that do what a JIT does to an ET_REL object:
 * place its sections at run-time addresses (sh_addr) and describe them in
 * a .meta file, independently of the code under test. */
#ifndef SYMPROF_TESTS_JITFIX_H
#define SYMPROF_TESTS_JITFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	char *name;
	uint64_t start, size;
	bool exec;
} jf_placed;

typedef struct {
	uint64_t base;      /* first executable section goes here */
	uint64_t step;      /* distance between consecutive placed sections */
	uint64_t data_base; /* non-executable SHF_ALLOC sections go here */
	uint64_t limit;     /* when non-zero: the last executable section ends here */
	bool with_null;     /* list section 0 in the .meta (LLVM does) */
	bool place_empty;   /* give empty SHF_ALLOC sections addresses too */
} jf_plan;

/* Copies the ELF IN to PREFIX.elf with every non-empty (or, with
 * place_empty, every) SHF_ALLOC section
 * placed per PLAN and writes PREFIX.meta.  *PLACED (caller frees with
 * jf_placed_free) lists what was placed.  Returns 0 or -1 (message on
 * stderr). */
int jf_load(const char *in, const char *prefix, const jf_plan *plan, jf_placed **placed,
	    size_t *n);
void jf_placed_free(jf_placed *p, size_t n);
const jf_placed *jf_find(const jf_placed *p, size_t n, const char *name);
/* Runs ARGV (no shell) and returns its exit status, or -1. */
int jf_run(char *const argv[]);

#endif
