/* report_sample.c — writes one report of the report tests' fixture profile
 * (tests/helpers/report_fixture.h) to standard output, for the shell tests:
 *
 *   report_sample dot|svg|pdf|png|flame|top [nodecount]
 */
#include "formats/formats.h"
#include "report/report.h"
#include "tests/helpers/report_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	sp_profile *p;
	sp_report_options o;
	sp_sink *out;
	sp_error *err;
	const char *what = argc > 1 ? argv[1] : "";

	sp_report_options_init(&o);
	o.sample_index = 1;
	if (argc > 2)
		o.nodecount = atoi(argv[2]);
	p = make_profile();
	out = sp_sink_fd_new(1, "<stdout>");
	if (!strcmp(what, "dot"))
		err = sp_dot_write(p, &o, out);
	else if (!strcmp(what, "top"))
		err = sp_top_write(p, &o, out);
	else if (!strcmp(what, "flame"))
		err = sp_flamegraph_write(p, &o, out);
	else if (!strcmp(what, "svg") || !strcmp(what, "pdf") || !strcmp(what, "png"))
		err = sp_graph_render(p, &o, what, out);
	else
		err = sp_error_new(SP_E_USAGE, "usage: report_sample dot|svg|pdf|png|flame|top");
	if (!err)
		err = sp_sink_finish(out);
	sp_sink_free(out);
	sp_profile_free(p);
	if (err) {
		char *m = sp_error_string(err);

		fprintf(stderr, "report_sample: %s\n", m);
		free(m);
		sp_error_free(err);
		return 1;
	}
	return 0;
}
