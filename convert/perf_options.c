/* perf_options.c — convert's options for perf users: --addresses, perf
 * report's --pid, --tid, --comm, --cpu and --time (applied by the run as
 * each input is read, profile/select.c), and --percent-limit, which is the
 * reports' own node fraction or flame graph minimum width.
 */
#include "convert/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sp_cli_perf_option(sp_cli_perf *p, int c, const char *arg)
{
	char *end;
	switch (c) {
	case 2200:
		p->addresses = true;
		return 0;
	case 2201:
		p->select.pids = arg;
		return 0;
	case 2202:
		p->select.tids = arg;
		return 0;
	case 2203:
		p->select.comms = arg;
		return 0;
	case 2204:
		p->select.cpus = arg;
		return 0;
	case 2205:
		p->select.time = arg;
		return 0;
	case 2206:
		p->percent_limit = strtod(arg, &end);
		if (end == arg || *end || !(p->percent_limit > 0) || p->percent_limit > 100)
			return sp_cli_usage("convert", "--percent-limit expects a percentage above 0 "
					    "and at most 100");
		return 0;
	}
	return 0;
}

int sp_cli_percent_limit(const sp_cli_perf *p, sp_out_format f, sp_report_options *r)
{
	if (!(p->percent_limit > 0))
		return 0;
	if (f == SP_OUT_FLAMEGRAPH) {
		r->flame.minwidth = p->percent_limit;
		r->flame.minwidth_kind = SP_MINWIDTH_PERCENT;
	} else if (f == SP_OUT_TOP || f == SP_OUT_DOT || f == SP_OUT_PDF || f == SP_OUT_SVG ||
		   f == SP_OUT_PNG) {
		r->nodefraction = p->percent_limit / 100;
	} else {
		return sp_cli_usage("convert", "--percent-limit applies only to --format top, dot, "
				    "pdf, svg, png, flamegraph, not %s", sp_out_format_name(f));
	}
	return 0;
}

void sp_cli_perf_notes(const char *name, const sp_notes *notes, bool quiet)
{
	sp_cli_print_warnings(NULL, 0, name, notes);
	for (size_t i = 0; i < notes->n && !quiet; i++)
		if (!strcmp(notes->v[i].topic, "chains"))
			fprintf(stderr, "symprof: %s: %s\n", name, notes->v[i].text);
}

void sp_cli_events_note(const sp_output_options *w, const sp_pipeline_output *out, bool quiet)
{
	char *events = quiet ? NULL : sp_pipeline_events_note(w, out->profile);
	if (events) /* the output holds one event of several */
		fprintf(stderr, "symprof: %s: %s\n", out->name, events);
	free(events);
}
