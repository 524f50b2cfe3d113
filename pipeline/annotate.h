/* annotate.h — annotated source and disassembly of a profile's functions
 * (report/annotation.h's data), computed where the symbolizer's files and the
 * sources can be read: the profile gives the functions and their lines'
 * values (report/annotation.c), the session's ELF files their machine code
 * and each instruction's inline chain, the file system their source. */
#ifndef SYMPROF_PIPELINE_ANNOTATE_H
#define SYMPROF_PIPELINE_ANNOTATE_H

#include "report/report.h"
#include "symbolize/symbolize.h"

/* Zero-initialise; NULL means the defaults. */
typedef struct {
	size_t max_functions;      /* 0: 50 */
	bool select_by_focus;      /* only functions whose name the focus
				      expression matches (pprof's -list and
				      -disasm), else the hottest */
	bool code;                 /* disassemble the functions */
	const char *const *source_paths; /* --source-path: where sources are looked for */
	size_t n_source_paths;
	const sp_path_map *path_maps; /* --path-map: recorded prefixes rewritten */
	size_t n_path_maps;
} sp_annotate_options;

/* The annotation of P's functions in value column COL, the samples chosen
 * by RO's filters (focus, ignore, tags), through session S (NULL: no
 * machine code).  A function whose code or source cannot be had says why
 * (no_disasm, sp_ann_source.missing): not an error.  Errors: a bad filter
 * expression (SP_E_USAGE).  *OUT is freed with sp_annotation_free. */
sp_error *sp_annotate(const sp_profile *p, size_t col, const sp_report_options *ro,
		      sp_symbolizer *s, const sp_annotate_options *o, sp_annotation **out);

#endif
