/* jemalloc.c — the jemalloc heap profile reader ("heap_v2" dumps written by
 * prof.dump, prof_gdump, prof_final and prof_leak; jemalloc's
 * src/prof_data.c and src/prof_sys.c).  Example input:
 *
 *   heap_v2/524288
 *     t*: 28: 56637 [0: 0]
 *     t0: 20: 40000 [0: 0] main-loop
 *     t1: 8: 16637 [0: 0]
 *   @ 0x7f0000012630 0x7f0000012d21 0x55dc877c2194 0x7f9241c4524a
 *     t*: 13: 6688 [0: 0]
 *     t0: 13: 6688 [0: 0]
 *   @ 0x7f0000012630 0x55dc877c2201
 *     t*: 1: 81920 [0: 0]
 *     t1: 1: 81920 [0: 0]
 *
 *   MAPPED_LIBRARIES:
 *   55dc877c2000-55dc877c3000 r-xp 00001000 fe:00 10953521   /usr/bin/prog
 *
 * The first line is "heap_v2/N", N = 2^lg_prof_sample, the mean number of
 * bytes between samples; the next non-blank line is the whole process's
 * "t*:" total, then one "tN:" line per thread (N is jemalloc's thread uid,
 * optionally followed by the thread's name).  gperftools writes "heap_v2/"
 * only after "heap profile: ... @", and never a "t*:" line: without both
 * the input is not ours.
 *
 * Each stack is an "@" line of return addresses, leaf first, then its own
 * "t*:" line and the "tN:" lines of the threads that allocated there.
 * Every count line is "<curobjs>: <curbytes> [<cumobjs>: <cumbytes>]";
 * the bracket stays 0 unless the process ran with prof_accum:true.
 *
 * What the profile becomes:
 *   - sample types inuse_objects, inuse_space, alloc_objects, alloc_space
 *     (default inuse_space); when no bracket anywhere is nonzero the alloc
 *     columns are left out and a comment says why, rather than presenting
 *     zeros as measured;
 *   - a stack's value is its "t*:" line, unsampled as jeprof does
 *     (sp_jemalloc_unsample); the header's "t*:" line is not used (in a
 *     sampled dump it is not the sum of the stacks);
 *   - one sample per thread, labelled thread=N (and thread_name when the
 *     header names it), the stack's value shared out in proportion to the
 *     threads' lines so that they add up to it exactly (jemalloc's
 *     prof_unbias rounds each line on its own, so the raw lines need not);
 *   - addresses: every one is a return address, so each gets -1 (spec
 *     §2.7, the heap rule), then the memory map attaches mappings and the
 *     frames of jemalloc's own shared library at the leaf are dropped
 *     (sp_jemalloc_drop_allocator_frames). */
#include "formats/formats.h"
#include "formats/jemalloc.h"
#include "formats/legacy.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The heap profiles' allocator frames, and jemalloc's own entry points for
 * programs that link it statically, often with the je_ prefix (its frames
 * are then in the program's mapping, out of reach of
 * sp_jemalloc_drop_allocator_frames). */
#define JEMALLOC_DROP_FRAMES SP_HEAP_DROP_FRAMES "|je_[a-z_0-9]*|(m|r|x|s|d|sd)allocx"

bool sp_jemalloc_unsample(int64_t count, int64_t bytes, int64_t period, int64_t *out_count,
			  int64_t *out_bytes)
{
	*out_count = count;
	*out_bytes = bytes;
	if (count <= 0 || bytes <= 0 || period <= 1)
		return true;
	double ratio = ((double)bytes / (double)count) / (double)period;
	double scale = 1.0 / (1.0 - exp(-ratio));
	double c = (double)count * scale, b = (double)bytes * scale;
	const double two63 = 9223372036854775808.0;
	if (!(c < two63 && b < two63))
		return false;
	*out_count = (int64_t)c;
	*out_bytes = (int64_t)b;
	return true;
}

bool sp_jemalloc_is_allocator_path(const char *path)
{
	if (!path)
		return false;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strncmp(base, "libjemalloc", 11) == 0 && strstr(base + 11, ".so") != NULL;
}

size_t sp_jemalloc_drop_allocator_frames(sp_profile *p)
{
	size_t changed = 0;
	/* one answer per mapping, indexed like p->mappings */
	uint8_t *alloc = sp_xmalloc(p->n_mappings ? p->n_mappings : 1);
	for (size_t i = 0; i < p->n_mappings; i++)
		alloc[i] = sp_jemalloc_is_allocator_path(
			sp_profile_str(p, p->mappings[i].filename));
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		size_t k = 0;
		while (k < s->n_locations) {
			const sp_location *l = sp_profile_location(p, s->location_ids[k]);
			const sp_mapping *m = l ? sp_profile_mapping(p, l->mapping_id) : NULL;
			if (!m || !alloc[m - p->mappings])
				break;
			k++;
		}
		if (k == 0 || k == s->n_locations)
			continue;
		sp_sample_drop_leaves(p, s, k);
		changed++;
	}
	free(alloc);
	return changed;
}

/* -- one "t*:" / "tN:" line ------------------------------------------------ */

enum { CUR_OBJS, CUR_BYTES, CUM_OBJS, CUM_BYTES };

typedef struct {
	bool star;       /* "t*:" rather than "tN:" */
	uint64_t uid;    /* N of "tN:" */
	int64_t v[4];    /* curobjs, curbytes, cumobjs, cumbytes as written */
	const char *name; /* text after the counts (a header thread's name), borrowed */
	size_t name_len;
} tline;

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A decimal number at S[*I] that fits an int64; *I moves past it. */
static bool number(const char *s, size_t n, size_t *i, int64_t *out)
{
	size_t b = *i, e = b;
	while (e < n && s[e] >= '0' && s[e] <= '9')
		e++;
	uint64_t u;
	if (e == b || e - b > 19 || !sp_parse_u64(s + b, s + e, 10, &u) || u > INT64_MAX)
		return false;
	*out = (int64_t)u;
	*i = e;
	return true;
}

/* Expects CH after optional blanks. */
static bool punct(const char *s, size_t n, size_t *i, char ch)
{
	size_t j = skip_blanks(s, n, *i);
	if (j >= n || s[j] != ch)
		return false;
	*i = skip_blanks(s, n, j + 1);
	return true;
}

/* True when the line, after leading blanks, starts "t*:" or "t<digits>:". */
static bool is_tline(const char *s, size_t n)
{
	size_t i = skip_blanks(s, n, 0);
	if (i + 2 >= n || s[i] != 't')
		return false;
	if (s[i + 1] == '*')
		return s[i + 2] == ':';
	size_t j = i + 1;
	while (j < n && s[j] >= '0' && s[j] <= '9')
		j++;
	return j > i + 1 && j < n && s[j] == ':';
}

/* Parses a line is_tline accepted.  Returns NULL or what was expected. */
static const char *parse_tline(const char *s, size_t n, tline *t)
{
	memset(t, 0, sizeof(*t));
	size_t i = skip_blanks(s, n, 0) + 1;
	if (s[i] == '*') {
		t->star = true;
		i++;
	} else {
		size_t b = i;
		while (s[i] >= '0' && s[i] <= '9')
			i++;
		if (i - b > 20 || !sp_parse_u64(s + b, s + i, 10, &t->uid))
			return "a thread number that fits in 64 bits";
	}
	i++; /* ':' */
	i = skip_blanks(s, n, i);
	if (!number(s, n, &i, &t->v[CUR_OBJS]) || !punct(s, n, &i, ':') ||
	    !number(s, n, &i, &t->v[CUR_BYTES]) || !punct(s, n, &i, '[') ||
	    !number(s, n, &i, &t->v[CUM_OBJS]) || !punct(s, n, &i, ':') ||
	    !number(s, n, &i, &t->v[CUM_BYTES]) || !punct(s, n, &i, ']'))
		return "counts \"<objects>: <bytes> [<objects>: <bytes>]\", each at most "
		       "2^63-1";
	t->name = s + i;
	t->name_len = n - i;
	while (t->name_len && (t->name[t->name_len - 1] == ' ' || t->name[t->name_len - 1] == '\t'))
		t->name_len--;
	return NULL;
}

/* -- the reader ------------------------------------------------------------- */

typedef struct {
	uint64_t uid;
	const char *name;
	size_t len;
} thread_name;

static int cmp_thread_name(const void *a, const void *b)
{
	const thread_name *x = a, *y = b;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* A sample waiting for the end of the file, when the columns are known. */
typedef struct {
	int64_t v[4];
	size_t addrs_off, n_addrs;
	bool has_thread;
	uint64_t uid;
	int64_t blocksize;
} pending;

typedef struct {
	const char *name; /* file name for messages */
	int64_t period;
	bool has_alloc;   /* some bracket is nonzero */
	bool header_star; /* the header's "t*:" line was read */
	/* the stack being read */
	bool in_stack;
	size_t stack_line;
	bool have_star;
	tline star;
	tline *threads;
	size_t n_threads, cap_threads;
	/* results */
	sp_u64vec addrs; /* adjusted addresses of every pending sample, back to back */
	size_t stack_addrs_off, stack_n_addrs;
	pending *out;
	size_t n_out, cap_out;
	thread_name *names;
	size_t n_names, cap_names;
} reader;

static sp_error *line_error(const char *name, size_t lineno, const char *expected, const char *s,
			    size_t n)
{
	char *q = sp_legacy_quote(s, n);
	sp_error *e = sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected %s, got %s", name,
				   lineno, expected, q);
	free(q);
	return e;
}

static void note_alloc(reader *r, const tline *t)
{
	if (t->v[CUM_OBJS] || t->v[CUM_BYTES])
		r->has_alloc = true;
}

static void push(reader *r, const int64_t *v, bool has_thread, uint64_t uid, int64_t blocksize)
{
	if (!v[0] && !v[1] && !v[2] && !v[3])
		return;
	pending q = {{v[0], v[1], v[2], v[3]}, r->stack_addrs_off, r->stack_n_addrs, has_thread, uid,
		     blocksize};
	SP_PUSH(r->out, r->n_out, r->cap_out, q);
}

/* Ends the stack being read: unsamples its "t*:" line and shares it out
 * among its threads. */
static sp_error *end_stack(reader *r)
{
	if (!r->in_stack)
		return NULL;
	r->in_stack = false;
	if (!r->have_star)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: expected the stack's \"t*: <objects>: <bytes> "
				    "[<objects>: <bytes>]\" line after it",
				    r->name, r->stack_line);
	const int64_t *raw = r->star.v;
	int64_t total[4];
	if (!sp_jemalloc_unsample(raw[CUR_OBJS], raw[CUR_BYTES], r->period, &total[CUR_OBJS],
				  &total[CUR_BYTES]) ||
	    !sp_jemalloc_unsample(raw[CUM_OBJS], raw[CUM_BYTES], r->period, &total[CUM_OBJS],
				  &total[CUM_BYTES]))
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: unsampled value of the stack does not fit in 64 "
				    "bits",
				    r->name, r->stack_line);
	/* pprof's "bytes" label: the average size, in-use pair first */
	int64_t blocksize = raw[CUR_OBJS] ? raw[CUR_BYTES] / raw[CUR_OBJS]
			    : raw[CUM_OBJS] ? raw[CUM_BYTES] / raw[CUM_OBJS]
					    : 0;
	unsigned __int128 weight[4] = {0, 0, 0, 0};
	for (size_t t = 0; t < r->n_threads; t++)
		for (int c = 0; c < 4; c++)
			weight[c] += (uint64_t)r->threads[t].v[c];
	/* thread t gets floor(total * cum_t / weight) - floor(total * cum_(t-1) / weight):
	 * within one of its own share, and the threads add up to the total */
	unsigned __int128 cum[4] = {0, 0, 0, 0};
	uint64_t given[4] = {0, 0, 0, 0};
	for (size_t t = 0; t < r->n_threads; t++) {
		int64_t v[4];
		for (int c = 0; c < 4; c++) {
			if (!weight[c]) {
				v[c] = 0;
				continue;
			}
			cum[c] += (uint64_t)r->threads[t].v[c];
			/* total < 2^63 times cum <= weight fits 128 bits once the weight fits
			 * 64: shift both (the last thread still gets cum == weight) */
			int sh = 0;
			while (weight[c] >> (64 + sh))
				sh++;
			uint64_t upto = (uint64_t)((unsigned __int128)(uint64_t)total[c] *
						   (cum[c] >> sh) / (weight[c] >> sh));
			v[c] = (int64_t)(upto - given[c]);
			given[c] = upto;
		}
		push(r, v, true, r->threads[t].uid, blocksize);
	}
	int64_t rest[4];
	for (int c = 0; c < 4; c++)
		rest[c] = weight[c] ? total[c] - (int64_t)given[c] : total[c];
	push(r, rest, false, 0, blocksize);
	return NULL;
}

static sp_error *start_stack(reader *r, size_t lineno, const char *s, size_t n, size_t at)
{
	sp_error *e = end_stack(r);
	if (e)
		return e;
	r->in_stack = true;
	r->stack_line = lineno;
	r->have_star = false;
	r->n_threads = 0;
	r->stack_addrs_off = r->addrs.n;
	sp_u64vec addrs = {0};
	e = sp_legacy_parse_addrs(r->name, lineno, s + at + 1, n - at - 1, &addrs);
	if (!e) {
		sp_legacy_adjust_pcs(addrs.v, addrs.n, true);
		for (size_t i = 0; i < addrs.n; i++)
			SP_PUSH(r->addrs.v, r->addrs.n, r->addrs.cap, addrs.v[i]);
	}
	r->stack_n_addrs = addrs.n;
	sp_u64vec_free(&addrs);
	return e;
}

static sp_error *thread_line(reader *r, size_t lineno, const char *s, size_t n)
{
	tline t;
	const char *why = parse_tline(s, n, &t);
	if (why)
		return line_error(r->name, lineno, why, s, n);
	note_alloc(r, &t);
	if (!r->in_stack) { /* the header's totals: only thread names are kept */
		if (t.star && !r->header_star) {
			r->header_star = true;
			return NULL;
		}
		if (t.star)
			return line_error(r->name, lineno,
					  "a thread line \"tN: ...\" or a stack \"@ 0x<addr> ...\" "
					  "(the header has one \"t*:\" line)",
					  s, n);
		if (t.name_len) {
			thread_name tn = {t.uid, t.name, t.name_len};
			SP_PUSH(r->names, r->n_names, r->cap_names, tn);
		}
		return NULL;
	}
	if (t.name_len)
		return line_error(r->name, lineno, "the end of the line after a stack's counts", s, n);
	if (t.star) {
		if (r->have_star)
			return line_error(r->name, lineno, "one \"t*:\" line per stack", s, n);
		r->have_star = true;
		r->star = t;
		return NULL;
	}
	if (!r->have_star)
		return line_error(r->name, lineno, "the stack's \"t*:\" line before its thread lines", s,
				  n);
	SP_PUSH(r->threads, r->n_threads, r->cap_threads, t);
	return NULL;
}

/* "heap_v2/<digits>" then blanks; the period goes to *PERIOD (0 when it
 * does not fit). */
static bool is_header(const char *s, size_t n, int64_t *period)
{
	size_t i = strlen("heap_v2/");
	if (n <= i || memcmp(s, "heap_v2/", i) != 0 || s[i] < '0' || s[i] > '9')
		return false;
	if (!number(s, n, &i, period))
		*period = -1;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return skip_blanks(s, n, i) == n;
}

static sp_profile *build(reader *r)
{
	sp_profile *p = sp_profile_new();
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	p->period = r->period;
	p->drop_frames = sp_profile_intern(p, JEMALLOC_DROP_FRAMES);
	sp_profile_add_sample_type(p, "inuse_objects", "count");
	sp_profile_add_sample_type(p, "inuse_space", "bytes");
	if (r->has_alloc) {
		sp_profile_add_sample_type(p, "alloc_objects", "count");
		sp_profile_add_sample_type(p, "alloc_space", "bytes");
	} else {
		sp_profile_add_comment(p, "jemalloc: no allocation totals (alloc_objects, "
					  "alloc_space): the process ran without prof_accum:true");
	}
	p->default_sample_type = sp_profile_intern(p, "inuse_space");
	if (r->period > 1) {
		char *c = sp_xasprintf("jemalloc: sampled every %" PRId64 " bytes on average "
				       "(lg_prof_sample); values unsampled",
				       r->period);
		sp_profile_add_comment(p, c);
		free(c);
	}
	if (r->n_names)
		qsort(r->names, r->n_names, sizeof(*r->names), cmp_thread_name);
	sp_u64vec ids = {0};
	for (size_t i = 0; i < r->n_out; i++) {
		const pending *q = &r->out[i];
		sp_legacy_locations(p, q->n_addrs ? r->addrs.v + q->addrs_off : NULL, q->n_addrs,
				    &ids);
		sp_label lab[3];
		size_t nl = 0;
		lab[nl++] = sp_label_num(p, "bytes", q->blocksize, NULL);
		if (q->has_thread) {
			char uid[24];
			snprintf(uid, sizeof(uid), "%" PRIu64, q->uid);
			lab[nl++] = sp_label_str(p, "thread", uid);
			thread_name key = {q->uid, NULL, 0};
			const thread_name *tn =
				r->n_names ? bsearch(&key, r->names, r->n_names, sizeof(*r->names),
						     cmp_thread_name)
					   : NULL;
			if (tn) {
				char *name = sp_xstrndup(tn->name, tn->len);
				lab[nl++] = sp_label_str(p, "thread_name", name);
				free(name);
			}
		}
		sp_profile_add_sample(p, q->v, ids.v, ids.n, lab, nl);
	}
	sp_u64vec_free(&ids);
	return p;
}

static void reader_free(reader *r)
{
	free(r->threads);
	sp_u64vec_free(&r->addrs);
	free(r->out);
	free(r->names);
}

sp_error *sp_jemalloc_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	name = name ? name : "jemalloc profile";
	sp_lines it;
	sp_lines_init(&it, data, len);
	int64_t period;
	if (!sp_lines_next(&it) || !is_header(it.line, it.line_len, &period))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a jemalloc heap profile", name);
	size_t header_line = it.line_len;
	const char *header = it.line;
	/* the header's "t*:" line makes it ours */
	sp_lines look = it;
	bool star = false;
	while (sp_lines_next(&look)) {
		if (sp_legacy_is_space_or_comment(look.line, look.line_len))
			continue;
		size_t i = skip_blanks(look.line, look.line_len, 0);
		star = look.line_len - i >= 3 && memcmp(look.line + i, "t*:", 3) == 0;
		break;
	}
	if (!star)
		return sp_error_new(SP_E_UNRECOGNIZED,
				    "%s: not a jemalloc heap profile (no \"t*:\" line after the "
				    "heap_v2 header)",
				    name);
	if (period < 1)
		return line_error(name, 1,
				  "a sampling period \"heap_v2/N\" with 1 <= N <= 2^63-1", header,
				  header_line);

	reader r = {.name = name, .period = period};
	sp_error *err = NULL;
	bool maps = false;
	while (!err && sp_legacy_next_line(&it, &maps)) {
		const char *s = it.line;
		size_t n = it.line_len;
		size_t i = skip_blanks(s, n, 0);
		if (s[i] == '@')
			err = start_stack(&r, it.lineno, s, n, i);
		else if (is_tline(s, n))
			err = thread_line(&r, it.lineno, s, n);
		else
			err = line_error(r.name, it.lineno,
					 "a stack \"@ 0x<addr> ...\" or a count line \"t*: ...\" / "
					 "\"tN: ...\"",
					 s, n);
	}
	if (!err)
		err = end_stack(&r);
	sp_profile *p = NULL;
	if (!err) {
		p = build(&r);
		err = sp_legacy_finish_maps(p, name, maps ? sp_lines_rest(&it) : NULL,
					    maps ? sp_lines_rest_len(&it) : 0);
	}
	reader_free(&r);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	if (sp_jemalloc_drop_allocator_frames(p)) {
		/* leave out the locations and mappings only the allocator's frames used,
		 * so they are neither symbolized nor reported */
		sp_profile *c = NULL;
		err = sp_profile_merge(&p, 1, &c);
		sp_profile_free(p);
		if (err)
			return err;
		p = c;
	}
	*out = p;
	return NULL;
}
