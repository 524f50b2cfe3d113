/* stacks_util.h — test helper: a profile's samples as one line each,
 * "V1 V2 @ FRAME FRAME ..." leaf first, where a frame is its address in hex
 * or, for a location with lines, its function names joined by '+'. */
#ifndef SYMPROF_TESTS_STACKS_UTIL_H
#define SYMPROF_TESTS_STACKS_UTIL_H

#include "profile/profile.h"

#include <inttypes.h>

__attribute__((unused)) static char *stacks_string(const sp_profile *p)
{
	sp_buf b = {0};
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		for (size_t v = 0; v < p->n_sample_types; v++)
			sp_buf_printf(&b, "%s%" PRId64, v ? " " : "", s->values[v]);
		sp_buf_puts(&b, " @");
		for (size_t j = 0; j < s->n_locations; j++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[j]);
			if (!l) {
				sp_buf_puts(&b, " ?");
				continue;
			}
			if (!l->n_lines) {
				sp_buf_printf(&b, " %#" PRIx64, l->address);
				continue;
			}
			sp_buf_puts(&b, " ");
			for (size_t k = 0; k < l->n_lines; k++) {
				const sp_function *f = sp_profile_function(p, l->lines[k].function_id);
				sp_buf_printf(&b, "%s%s", k ? "+" : "",
					      f ? sp_profile_str(p, f->name) : "?");
			}
		}
		sp_buf_puts(&b, "\n");
	}
	return sp_buf_take(&b);
}

/* "type/unit type/unit" */
__attribute__((unused)) static char *types_string(const sp_profile *p)
{
	sp_buf b = {0};
	for (size_t i = 0; i < p->n_sample_types; i++)
		sp_buf_printf(&b, "%s%s/%s", i ? " " : "",
			      sp_profile_str(p, p->sample_types[i].type),
			      sp_profile_str(p, p->sample_types[i].unit));
	return sp_buf_take(&b);
}

#endif
