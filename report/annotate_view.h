/* annotate_view.h — the text views of an annotation (report/annotate.h):
 * `--format list` (list.c) and `--format disasm` (disasm_view.c), and the
 * value formatting they share. */
#ifndef SYMPROF_REPORT_ANNOTATE_VIEW_H
#define SYMPROF_REPORT_ANNOTATE_VIEW_H

#include "formats/report.h"
#include "report/annotate.h"

/* pprof's -list: source lines with flat and cum.  UNIT as --unit (NULL:
 * as recorded). */
sp_error *sp_list_write(const sp_annotation *a, const char *unit, sp_sink *out);
/* pprof's -disasm: instructions with flat and cum, each with its
 * file:line and inline chain. */
sp_error *sp_disasm_write(const sp_annotation *a, const char *unit, sp_sink *out);

/* V in UNIT ("." for 0; caller frees). */
char *sp_ann_value(const sp_annotation *a, const char *unit, int64_t v);
/* "Total: V\n". */
void sp_ann_write_total(const sp_annotation *a, const char *unit, sp_sink *out);
/* "%10s %10s " of FLAT and CUM. */
void sp_ann_write_values(const sp_annotation *a, const char *unit, int64_t flat, int64_t cum,
			 sp_sink *out);

#endif
