/* report_load.c — builds a profile from the small text form written by
 * tests/helpers/report_pprof_gen.py and writes our top table or DOT graph, so the
 * shell test can compare them with go tool pprof on the same profile.
 *
 *   T cpu nanoseconds          sample type
 *   M /bin/prog                mapping 1 (0x1000-0x100000)
 *   F 3 fn02 f0.c              function 3
 *   L 7 4208 3:12,5:40         location 7 at 4208: fn id:line, innermost first
 *   S 25000 7,2,1 bytes=64;t=a sample value, location ids (leaf first) and
 *                              optional labels (bytes numeric, others strings)
 *
 * Usage: report_load FILE top|dot [-nodecount=N] [-nodefraction=F]
 *        [-focus=RE] [-ignore=RE] [-unit=U] [-lines] [-files]
 */
#include "formats/formats.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(sp_profile *p, FILE *f)
{
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == 'T') {
			char t[64], u[64];

			if (sscanf(line, "T %63s %63s", t, u) != 2)
				return -1;
			sp_profile_add_sample_type(p, t, u);
		} else if (line[0] == 'M') {
			sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x100000};

			m.filename = sp_profile_intern(p, line + 2);
			sp_profile_add_mapping(p, &m);
		} else if (line[0] == 'F') {
			char n[64], fl[64];
			int id;

			if (sscanf(line, "F %d %63s %63s", &id, n, fl) != 3)
				return -1;
			sp_profile_function_for(p, n, n, fl, 0);
		} else if (line[0] == 'L') {
			unsigned long id, addr;
			char rest[2048] = "", *save = NULL;
			sp_line ln[16];
			size_t n = 0;
			sp_location loc = {.mapping_id = 1};

			if (sscanf(line, "L %lu %lu %2047s", &id, &addr, rest) < 2)
				return -1;
			for (char *t = strtok_r(rest, ",", &save); t && n < 16;
			     t = strtok_r(NULL, ",", &save)) {
				unsigned long fid;
				long l;

				if (sscanf(t, "%lu:%ld", &fid, &l) != 2)
					return -1;
				ln[n++] = (sp_line){.function_id = fid, .line = l};
			}
			loc.address = addr;
			loc.lines = ln;
			loc.n_lines = n;
			sp_profile_add_location(p, &loc);
		} else if (line[0] == 'S') {
			long long v;
			char rest[2048], labs[2048] = "", *save = NULL;
			uint64_t locs[64];
			sp_label labels[16];
			size_t n = 0, nlab = 0;
			int64_t value;

			if (sscanf(line, "S %lld %2047s %2047s", &v, rest, labs) < 2)
				return -1;
			for (char *t = strtok_r(rest, ",", &save); t && n < 64;
			     t = strtok_r(NULL, ",", &save))
				locs[n++] = strtoull(t, NULL, 10);
			for (char *t = strtok_r(labs, ";", &save); t && nlab < 16;
			     t = strtok_r(NULL, ";", &save)) {
				char *eq = strchr(t, '=');

				if (!eq)
					return -1;
				*eq = 0;
				if (!strcmp(t, "bytes"))
					labels[nlab++] = sp_label_num(p, t, strtoll(eq + 1, NULL, 10),
								      NULL);
				else
					labels[nlab++] = sp_label_str(p, t, eq + 1);
			}
			value = v;
			sp_profile_add_sample(p, &value, locs, n, labels, nlab);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	sp_profile *p;
	sp_report_options o;
	sp_sink *out;
	sp_error *err;
	FILE *f;

	if (argc < 3 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: report_load FILE top|dot [options]\n");
		return 2;
	}
	p = sp_profile_new();
	if (load(p, f) != 0) {
		fprintf(stderr, "report_load: %s: bad line\n", argv[1]);
		return 2;
	}
	fclose(f);
	sp_report_options_init(&o);
	for (int i = 3; i < argc; i++) {
		if (!strncmp(argv[i], "-nodecount=", 11))
			o.nodecount = atoi(argv[i] + 11);
		else if (!strncmp(argv[i], "-nodefraction=", 14))
			o.nodefraction = atof(argv[i] + 14);
		else if (!strncmp(argv[i], "-focus=", 7))
			o.focus = argv[i] + 7;
		else if (!strncmp(argv[i], "-ignore=", 8))
			o.ignore = argv[i] + 8;
		else if (!strncmp(argv[i], "-unit=", 6))
			o.unit = argv[i] + 6;
		else if (!strcmp(argv[i], "-lines"))
			o.granularity = SP_GRAN_LINES;
		else if (!strcmp(argv[i], "-files"))
			o.granularity = SP_GRAN_FILES;
	}
	out = sp_sink_fd_new(1, "<stdout>");
	err = !strcmp(argv[2], "top") ? sp_top_write(p, &o, out) : sp_dot_write(p, &o, out);
	if (!err)
		err = sp_sink_finish(out);
	sp_sink_free(out);
	sp_profile_free(p);
	if (err) {
		char *m = sp_error_string(err);

		fprintf(stderr, "report_load: %s\n", m);
		free(m);
		sp_error_free(err);
		return 1;
	}
	return 0;
}
