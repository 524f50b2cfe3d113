/* test_locate_cache.c — the session keeps the finder's answer for a
 * mapping's file (recorded path + build id -> file, or why none), found or
 * not: a second profile with the same mappings, in the same session, asks
 * the finder nothing and gets the same report; a new session asks again. */
#include "symbolize/internal.h"
#include "tests/helpers/tap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A profile with two mappings, this program's file and a missing one, and
 * one address in each (the addresses need not resolve). */
static sp_profile *two_mappings(const char *self)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping a = {.memory_start = 0x10000, .memory_limit = 0x20000,
			.filename = sp_profile_intern(p, self)};
	sp_mapping b = {.memory_start = 0x30000, .memory_limit = 0x40000,
			.filename = sp_profile_intern(p, "/no/such/dir/libgone.so")};
	sp_profile_add_mapping(p, &a);
	sp_profile_add_mapping(p, &b);
	uint64_t locs[2] = {sp_profile_location_for_address(p, 1, 0x10010),
			    sp_profile_location_for_address(p, 2, 0x30010)};
	int64_t v = 1;
	sp_profile_add_sample(p, &v, locs, 2, NULL, 0);
	return p;
}

static const sp_mapping_report *report_of(const sp_symbolize_report *r, uint64_t id)
{
	for (size_t i = 0; i < r->n_mappings; i++)
		if (r->mappings[i].mapping_id == id)
			return &r->mappings[i];
	return NULL;
}

/* The report's tried list as one string (caller frees). */
static char *tried(const sp_mapping_report *m)
{
	sp_buf b = {0};
	for (size_t i = 0; m && i < m->tried.n; i++)
		sp_buf_printf(&b, "%s=%s;", m->tried.v[i].path,
			      sp_find_attempt_str(&m->tried.v[i]));
	sp_buf_puts(&b, "");
	return sp_buf_take(&b);
}

int main(void)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';

	sp_symbolize_options opt = {.no_debuginfod = true};
	sp_symbolizer *s = sp_symbolizer_new(&opt);
	TAP_EQ_U64(sp_symbolizer_finder_calls(s), 0, "a new session has asked nothing");

	sp_profile *p1 = two_mappings(self), *p2 = two_mappings(self);
	sp_symbolize_report r1 = {0}, r2 = {0};
	sp_error *e = sp_symbolize_profile(s, p1, &r1);
	TAP_OK(!e, "first profile symbolized");
	sp_error_free(e);
	TAP_EQ_U64(sp_symbolizer_finder_calls(s), 2, "first profile: one search per mapping");
	e = sp_symbolize_profile(s, p2, &r2);
	TAP_OK(!e, "second profile symbolized");
	sp_error_free(e);
	TAP_EQ_U64(sp_symbolizer_finder_calls(s), 2, "second profile: no search");

	const sp_mapping_report *a1 = report_of(&r1, 1), *a2 = report_of(&r2, 1);
	const sp_mapping_report *b1 = report_of(&r1, 2), *b2 = report_of(&r2, 2);
	TAP_OK(a1 && a2 && a1->used_path && a2->used_path && !strcmp(a1->used_path, self) &&
		       !strcmp(a2->used_path, self),
	       "found file: the same in both reports");
	TAP_OK(b1 && b2 && b1->n_reason[SP_UNRES_FILE_NOT_FOUND] == 1 &&
		       b2->n_reason[SP_UNRES_FILE_NOT_FOUND] == 1 && !b2->used_path,
	       "negative answer kept: file not found in both reports");
	char *t1 = tried(b1), *t2 = tried(b2);
	TAP_OK(*t1 && !strcmp(t1, t2), "the places tried are reported again: %s", t2);
	free(t1);
	free(t2);

	sp_symbolizer *s2 = sp_symbolizer_new(&opt);
	sp_symbolize_report r3 = {0};
	sp_profile *p3 = two_mappings(self);
	e = sp_symbolize_profile(s2, p3, &r3);
	sp_error_free(e);
	TAP_EQ_U64(sp_symbolizer_finder_calls(s2), 2, "a new session searches again");

	sp_symbolize_report_clear(&r1);
	sp_symbolize_report_clear(&r2);
	sp_symbolize_report_clear(&r3);
	sp_profile_free(p1);
	sp_profile_free(p2);
	sp_profile_free(p3);
	sp_symbolizer_free(s);
	sp_symbolizer_free(s2);
	return tap_done();
}
