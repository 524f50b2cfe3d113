/* speedscope.c — speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json, checked by
 * tests/cli_viewers.sh against the schema the speedscope npm package ships):
 *
 *   {"$schema":"https://www.speedscope.app/file-format-schema.json",
 *    "exporter":"symprof","name":"perf.data","activeProfileIndex":0,
 *    "shared":{"frames":[{"name":"main","file":"/src/a.c","line":10},...]},
 *    "profiles":[{"type":"sampled","name":"pbworker (pid 7, tid 8)",
 *      "unit":"nanoseconds","startValue":0,"endValue":3000000,
 *      "samples":[[0,1,2],[0,1]],"weights":[1000000,2000000]},...]}
 *
 * One sampled profile per thread (viewer.c), its samples' stacks root first
 * with every inline frame; weights are the chosen column's values, in
 * nanoseconds or bytes when the unit is one of those, else plain numbers
 * ("none").  Samples with times (perf.data) are in time order, and a
 * profile's startValue is its first sample's time after the earliest
 * sample of the file (nanoseconds), so threads line up on one time axis as
 * far as speedscope's sampled profiles can: it lays samples end to end by
 * their weights.
 */
#include "formats/viewer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_number(sp_sink *out, double v)
{
	if (v == (double)(int64_t)v)
		sp_sink_printf(out, "%lld", (long long)v);
	else
		sp_sink_printf(out, "%.17g", v);
}

sp_error *sp_speedscope_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out)
{
	sp_viewer *v;
	size_t col = o ? o->sample_index : 0;
	sp_error *err = sp_viewer_new(p, col, &v);
	if (err)
		return err;
	double factor;
	const char *unit = sp_viewer_unit(p, col, &factor);
	sp_sink_puts(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			  "\"exporter\":\"symprof\",\"name\":");
	sp_json_cstr(out, o && o->name ? o->name : "profile");
	sp_sink_puts(out, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
	for (size_t i = 0; i < v->n_frames; i++) {
		const sp_vframe *f = &v->frames[i];
		sp_sink_puts(out, i ? ",{\"name\":" : "{\"name\":");
		sp_json_string(out, v->strings.strs[f->name], v->strings.lens[f->name]);
		if (f->file) {
			sp_sink_puts(out, ",\"file\":");
			sp_json_string(out, v->strings.strs[f->file], v->strings.lens[f->file]);
		}
		if (f->line > 0)
			sp_sink_printf(out, ",\"line\":%lld", (long long)f->line);
		sp_sink_putc(out, '}');
	}
	sp_sink_puts(out, "]},\"profiles\":[");
	uint64_t t0 = sp_viewer_first_time(v);
	for (size_t t = 0; t < v->n_threads; t++) {
		const sp_vthread *th = &v->threads[t];
		sp_sink_puts(out, t ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":");
		char *name;
		const char *comm = th->name ? v->strings.strs[th->name] : NULL;
		if (th->pid < 0 && th->tid < 0)
			name = sp_xstrdup(o && o->name ? o->name : "profile");
		else
			name = sp_xasprintf("%s%s(pid %lld, tid %lld)", comm ? comm : "",
					    comm ? " " : "", (long long)th->pid, (long long)th->tid);
		sp_json_cstr(out, name);
		free(name);
		double start = v->timed && !strcmp(unit, "nanoseconds")
				       ? (double)(th->first_time - t0)
				       : 0;
		double sum = 0;
		for (size_t i = 0; i < th->n; i++)
			sum += (double)p->samples[th->samples[i]].values[col] * factor;
		sp_sink_printf(out, ",\"unit\":\"%s\",\"startValue\":", unit);
		write_number(out, start);
		sp_sink_puts(out, ",\"endValue\":");
		write_number(out, start + sum);
		sp_sink_puts(out, ",\"samples\":[");
		for (size_t i = 0; i < th->n; i++) {
			size_t n;
			const size_t *st = sp_viewer_stack(v, &p->samples[th->samples[i]], &n);
			sp_sink_puts(out, i ? ",[" : "[");
			for (size_t k = 0; k < n; k++)
				sp_sink_printf(out, k ? ",%zu" : "%zu", st[k]);
			sp_sink_putc(out, ']');
		}
		sp_sink_puts(out, "],\"weights\":[");
		for (size_t i = 0; i < th->n; i++) {
			if (i)
				sp_sink_putc(out, ',');
			write_number(out, (double)p->samples[th->samples[i]].values[col] * factor);
		}
		sp_sink_puts(out, "]}");
	}
	sp_sink_puts(out, "]}\n");
	sp_viewer_free(v);
	return NULL;
}
