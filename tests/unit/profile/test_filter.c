/* test_filter.c — focus and ignore (profile/filter.c) on a hand-built
 * profile: matches by function name, by source file, by an inline frame,
 * by the mapping's file and by the address name of unsymbolized
 * locations; ignore winning over focus; invalid expressions refused with
 * their name; the address names themselves. */
#include "profile/profile.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

/* Stacks, leaf first:
 *   0: alloc_in_main (a.c, inlined into helper, h.c) <- main       [/usr/bin/app]
 *   1: memcpy [/lib/libc.so.6] <- main
 *   2: 0x7f00 [/usr/lib/libfoo.so at offset 0x2000] (no lines) <- main
 *   3: 0x99 (no mapping, no lines) <- main */
static sp_profile *fixture(void)
{
	sp_profile *p = sp_profile_new();
	sp_mapping app = {.memory_start = 0x1000, .memory_limit = 0x2000,
			  .filename = sp_profile_intern(p, "/usr/bin/app")};
	sp_mapping libc = {.memory_start = 0x3000, .memory_limit = 0x4000,
			   .filename = sp_profile_intern(p, "/lib/libc.so.6")};
	sp_mapping foo = {.memory_start = 0x7000, .memory_limit = 0x8000, .file_offset = 0x2000,
			  .filename = sp_profile_intern(p, "/usr/lib/libfoo.so")};
	uint64_t m_app = sp_profile_add_mapping(p, &app)->id;
	uint64_t m_libc = sp_profile_add_mapping(p, &libc)->id;
	uint64_t m_foo = sp_profile_add_mapping(p, &foo)->id;
	sp_function fa = {.name = sp_profile_intern(p, "alloc_in_main"),
			  .filename = sp_profile_intern(p, "src/a.c")};
	sp_function fh = {.name = sp_profile_intern(p, "helper"),
			  .filename = sp_profile_intern(p, "src/h.c")};
	sp_function fm = {.name = sp_profile_intern(p, "main"),
			  .filename = sp_profile_intern(p, "src/main.c")};
	sp_function fc = {.name = sp_profile_intern(p, "memcpy")};
	uint64_t f_a = sp_profile_add_function(p, &fa)->id;
	uint64_t f_h = sp_profile_add_function(p, &fh)->id;
	uint64_t f_m = sp_profile_add_function(p, &fm)->id;
	uint64_t f_c = sp_profile_add_function(p, &fc)->id;
	sp_line inl[2] = {{.function_id = f_a, .line = 3}, {.function_id = f_h, .line = 9}};
	sp_line lm = {.function_id = f_m, .line = 20}, lc = {.function_id = f_c};
	sp_location la = {.mapping_id = m_app, .address = 0x1100, .lines = inl, .n_lines = 2};
	sp_location lmain = {.mapping_id = m_app, .address = 0x1200, .lines = &lm, .n_lines = 1};
	sp_location lcpy = {.mapping_id = m_libc, .address = 0x3100, .lines = &lc, .n_lines = 1};
	sp_location lfoo = {.mapping_id = m_foo, .address = 0x7f00};
	sp_location lbare = {.address = 0x99};
	uint64_t id_a = sp_profile_add_location(p, &la)->id;
	uint64_t id_main = sp_profile_add_location(p, &lmain)->id;
	uint64_t id_cpy = sp_profile_add_location(p, &lcpy)->id;
	uint64_t id_foo = sp_profile_add_location(p, &lfoo)->id;
	uint64_t id_bare = sp_profile_add_location(p, &lbare)->id;
	const uint64_t stacks[4][2] = {
		{id_a, id_main}, {id_cpy, id_main}, {id_foo, id_main}, {id_bare, id_main}};
	int64_t v = 1;

	sp_profile_add_sample_type(p, "samples", "count");
	for (size_t i = 0; i < 4; i++)
		sp_profile_add_sample(p, &v, stacks[i], 2, NULL, 0);
	return p;
}

/* "0101": which of the four samples FOCUS and IGNORE keep. */
static char *kept(const sp_profile *p, const char *focus, const char *ignore)
{
	sp_sample_filter *f = NULL;
	sp_error *err = sp_sample_filter_new(p, focus, ignore, &f);
	char *s = sp_xcalloc(p->n_samples + 1, 1);

	if (err) {
		sp_error_free(err);
		free(s);
		return sp_xstrdup("error");
	}
	for (size_t i = 0; i < p->n_samples; i++)
		s[i] = sp_sample_filter_keep(f, &p->samples[i]) ? '1' : '0';
	sp_sample_filter_free(f);
	return s;
}

#define KEPT(p, focus, ignore, want, ...)                                                \
	do {                                                                             \
		char *got_ = kept(p, focus, ignore);                                     \
		TAP_EQ_STR(got_, want, __VA_ARGS__);                                     \
		free(got_);                                                              \
	} while (0)

static void test_matches(const sp_profile *p)
{
	KEPT(p, NULL, NULL, "1111", "no expressions: every sample kept");
	KEPT(p, "", "", "1111", "empty expressions are none");
	KEPT(p, "^main$", NULL, "1111", "focus on the common root keeps all");
	KEPT(p, "^alloc", NULL, "1000", "focus by function name");
	KEPT(p, "^helper$", NULL, "1000", "focus by the outer function of an inline chain");
	KEPT(p, "h\\.c$", NULL, "1000", "focus by source file of an inline frame");
	KEPT(p, "libc\\.so", NULL, "0100", "focus by mapping file");
	KEPT(p, NULL, "libc\\.so", "1011", "ignore by mapping file");
	KEPT(p, "^libfoo\\.so\\+0x2f00$", NULL, "0010",
	     "unsymbolized: focus by address name with the mapping's base name");
	KEPT(p, "^0x99$", NULL, "0001", "unsymbolized, no mapping: bare address name");
	KEPT(p, "0x1100", NULL, "0000", "symbolized locations do not match by address");
	KEPT(p, "main", "memcpy", "1011", "ignore wins over focus");
	KEPT(p, "alloc|memcpy", "alloc", "0100", "ignore drops a focused sample");
}

static void test_errors(const sp_profile *p)
{
	sp_sample_filter *f = NULL;
	sp_error *err = sp_sample_filter_new(p, "(unclosed", NULL, &f);
	char *msg = err ? sp_error_string(err) : NULL;

	TAP_OK(err && err->code == SP_E_USAGE, "invalid focus: usage error");
	TAP_OK(msg && !strncmp(msg, "focus: invalid regular expression \"(unclosed\"", 44),
	       "invalid focus: the message names the option and the expression (%s)",
	       msg ? msg : "none");
	free(msg);
	sp_error_free(err);
	err = sp_sample_filter_new(p, "main", "[z-a]", &f);
	msg = err ? sp_error_string(err) : NULL;
	TAP_OK(msg && !strncmp(msg, "ignore: invalid regular expression \"[z-a]\"", 42),
	       "invalid ignore: the message names ignore (%s)", msg ? msg : "none");
	free(msg);
	sp_error_free(err);
}

static void test_address_names(const sp_profile *p)
{
	char *a = sp_location_address_name(p, sp_profile_location(p, 4));
	char *b = sp_location_address_name(p, sp_profile_location(p, 5));

	TAP_EQ_STR(a, "libfoo.so+0x2f00", "address name: the file's base name, offset in the file");
	TAP_EQ_STR(b, "0x99", "address name without a mapping");
	free(a);
	free(b);

	/* Every kind of region, named relative to itself (a stable name), and an
	 * address outside its mapping as it is. */
	static const struct {
		const char *file;
		uint64_t start, limit, offset, address;
		const char *want;
	} rows[] = {
		{"/lib/x86_64-linux-gnu/libstdc++.so.6", 0x7f0000000000, 0x7f0000200000, 0x9d000,
		 0x7f00000004a2, "libstdc++.so.6+0x9d4a2"},
		{"", 0x7f1000000000, 0x7f1000100000, 0, 0x7f1000000010, "[anon]+0x10"},
		{"[jit]", 0x7f2000000000, 0x7f2000100000, 0, 0x7f2000000020, "[jit]+0x20"},
		{"[kernel.kallsyms]", 0xffffffff81000000, 0xffffffff82000000, 0,
		 0xffffffff81000030, "[kernel]+0x30"},
		{"/usr/bin/app", 0x400000, 0x500000, 0, 0x600000, "0x600000"},
		{"", 0, UINT64_MAX, 0, 0x4011a2, "0x4011a2"}, /* the whole space, no file */
		{"/usr/bin/", 0x400000, 0x500000, 0, 0x400010, "/usr/bin/+0x10"},
	};
	sp_profile *q = sp_profile_new();
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		sp_mapping m = {.memory_start = rows[i].start, .memory_limit = rows[i].limit,
				.file_offset = rows[i].offset,
				.filename = sp_profile_intern(q, rows[i].file)};
		sp_location l = {.mapping_id = sp_profile_add_mapping(q, &m)->id,
				 .address = rows[i].address};
		char *name = sp_location_address_name(q, sp_profile_add_location(q, &l));
		TAP_EQ_STR(name, rows[i].want, "address name row %zu", i);
		free(name);
	}
	sp_profile_free(q);
}

/* Four samples of one stack, told apart by their labels:
 *   0: bytes=2048 (no unit, bytes inferred)      thread=worker-1
 *   1: bytes=65536                               thread=main
 *   2: wait=10 ms                                thread=worker-2
 *   3: wait=2 s, pid=77 (no unit) */
static sp_profile *labelled(void)
{
	sp_profile *p = sp_profile_new();
	sp_function fm = {.name = sp_profile_intern(p, "main")};
	sp_line lm = {.function_id = sp_profile_add_function(p, &fm)->id};
	sp_location l = {.address = 0x10, .lines = &lm, .n_lines = 1};
	uint64_t id = sp_profile_add_location(p, &l)->id;
	sp_label labels[4][2] = {
		{sp_label_num(p, "bytes", 2048, NULL), sp_label_str(p, "thread", "worker-1")},
		{sp_label_num(p, "bytes", 65536, NULL), sp_label_str(p, "thread", "main")},
		{sp_label_num(p, "wait", 10, "ms"), sp_label_str(p, "thread", "worker-2")},
		{sp_label_num(p, "wait", 2, "s"), sp_label_num(p, "pid", 77, NULL)},
	};
	int64_t v = 1;

	sp_profile_add_sample_type(p, "samples", "count");
	for (size_t i = 0; i < 4; i++)
		sp_profile_add_sample(p, &v, &id, 1, labels[i], 2);
	return p;
}

/* "0101": which of P's samples TAGFOCUS and TAGIGNORE keep, or "error". */
static char *kept_tags(const sp_profile *p, const char *tagfocus, const char *tagignore)
{
	sp_sample_filter *f = NULL;
	sp_error *err = sp_sample_filter_new(p, NULL, NULL, &f);
	char *s = sp_xcalloc(p->n_samples + 1, 1);

	if (!err)
		err = sp_sample_filter_tags(f, tagfocus, tagignore);
	for (size_t i = 0; !err && i < p->n_samples; i++)
		s[i] = sp_sample_filter_keep(f, &p->samples[i]) ? '1' : '0';
	sp_sample_filter_free(f);
	if (err) {
		sp_error_free(err);
		free(s);
		return sp_xstrdup("error");
	}
	return s;
}

#define KEPT_TAGS(p, tf, ti, want, ...)                                                  \
	do {                                                                             \
		char *got_ = kept_tags(p, tf, ti);                                       \
		TAP_EQ_STR(got_, want, __VA_ARGS__);                                     \
		free(got_);                                                              \
	} while (0)

static void test_tags(void)
{
	sp_profile *p = labelled();

	KEPT_TAGS(p, NULL, NULL, "1111", "no tag filters: every sample kept");
	KEPT_TAGS(p, "bytes=2048b", NULL, "1000", "KEY=N: exactly N");
	KEPT_TAGS(p, "bytes=2048", NULL, "0000", "a number without a unit does not match bytes");
	KEPT_TAGS(p, "pid=77", NULL, "0001", "... but does match a label without a unit");
	KEPT_TAGS(p, "bytes=2kb", NULL, "1000", "2kb is 2048 bytes (powers of 1024)");
	KEPT_TAGS(p, "bytes=64kb:", NULL, "0100", "KEY=N: is N or more");
	KEPT_TAGS(p, "bytes=:4kb", NULL, "1000", "KEY=:N is N or less");
	KEPT_TAGS(p, "64kb:", NULL, "0100", "N: without a key: any numeric label in bytes");
	KEPT_TAGS(p, "2:", NULL, "0001", "a unitless N: matches only labels without a unit (pid)");
	KEPT_TAGS(p, "2kb:8", NULL, "1000", "N:M, M without a unit takes N's (kb)");
	KEPT_TAGS(p, "wait=5ms:1s", NULL, "0010", "N:M in two units of time");
	KEPT_TAGS(p, "wait=1s:", NULL, "0001", "seconds against milliseconds and seconds");
	KEPT_TAGS(p, "thread=^worker", NULL, "1010", "KEY=RE over the key's string values");
	KEPT_TAGS(p, "thread=^main$,-2$", NULL, "0110", "KEY=RE,RE: any of them");
	KEPT_TAGS(p, "thread:worker", NULL, "1010", "RE without a key: over key:value");
	KEPT_TAGS(p, "^thread:w,-1$", NULL, "1000", "RE,RE without a key: each must match");
	KEPT_TAGS(p, "(?i)THREAD=MAIN", NULL, "0000", "(?i) applies to the value, not the key");
	KEPT_TAGS(p, "thread=(?i)MAIN", NULL, "0100", "KEY=(?i)RE ignores case");
	KEPT_TAGS(p, NULL, "thread=main", "1011", "tagignore drops the matching samples");
	KEPT_TAGS(p, "thread=.", "bytes=2048b", "0110", "tagignore and tagfocus together");
	KEPT_TAGS(p, "thread=(x", NULL, "error", "an invalid expression is refused");
	KEPT_TAGS(p, "bytes=", NULL, "error", "an empty filter after KEY= is refused");

	sp_sample_filter *f = NULL;
	sp_error *err = sp_sample_filter_new(p, NULL, NULL, &f);
	if (!err)
		err = sp_sample_filter_tags(f, "thread=worker", NULL);
	TAP_OK(!err, "thread=worker compiles");
	if (!err)
		sp_sample_filter_apply(f, p);
	sp_sample_filter_free(f);
	TAP_EQ_U64(p->n_samples, 2, "apply keeps the two workers' samples");
	TAP_OK(p->n_samples == 2 && p->samples[0].labels[0].num == 2048 &&
		       p->samples[1].labels[0].num == 10,
	       "apply keeps them in order");
	sp_error_free(err);
	sp_profile_free(p);
}

int main(void)
{
	sp_profile *p = fixture();

	test_matches(p);
	test_errors(p);
	test_address_names(p);
	test_tags();
	sp_profile_free(p);
	return tap_done();
}
