/* test_lockthread.c — contention (spec/FORMATS.md §2.3), thread (§2.4) and Go
 * count (§2.5) readers: the spec's examples, PC adjustment per the §2.7
 * table, memory-map attachment, "not mine" and "mine but broken". */
#include "tests/helpers/reader_util.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

static sp_profile *expect_ok(sp_reader_fn fn, const char *text, const char *want, const char *what)
{
	return reader_expect_ok(fn, "t.txt", text, want, what);
}

static void expect_error(sp_reader_fn fn, const char *text, sp_errcode code, const char *needle,
			 const char *what)
{
	reader_expect_error(fn, "t.txt", text, code, needle, what);
}

static const sp_mapping *leaf_mapping(const sp_profile *p)
{
	if (!p->n_samples || !p->samples[0].n_locations)
		return NULL;
	const sp_location *l = sp_profile_location(p, p->samples[0].location_ids[0]);
	return l ? sp_profile_mapping(p, l->mapping_id) : NULL;
}

/* drop_frames is matched as ^(RE)$ against function names (spec §1.4). */
static bool drops(const sp_profile *p, const char *fn)
{
	char *pat = sp_xasprintf("^(%s)$", sp_profile_str(p, p->drop_frames));
	regex_t re;
	bool ok = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0;
	bool m = ok && regexec(&re, fn, 0, NULL, 0) == 0;
	if (ok)
		regfree(&re);
	free(pat);
	return m;
}

static void contention(void)
{
	sp_profile *p = expect_ok(sp_contention_read,
				  "--- contentionz 1 ---\n"
				  "cycles/second = 3201000000\n"
				  "sampling period = 100\n"
				  "ms since reset = 6000\n"
				  "discarded samples = 0\n"
				  "19490304 27 @ 0x4ce1a9 0x4cd1e1\n"
				  "   # a comment\n"
				  "\n"
				  "5 1 @ 0x4ce1a9\n"
				  "--- Memory map: ---\n"
				  "00400000-00fc4000 r-xp 00000000 fc:00 1234 /usr/bin/server\n",
				  "2700 608881724 @ 0x4ce1a8 0x4cd1e0\n"
				  "100 156 @ 0x4ce1a8\n",
				  "contentionz (spec §2.3 example: 27, 19490304 cycles, period 100, "
				  "3.201 GHz)");
	if (p) {
		char *t = types_string(p);
		TAP_EQ_STR(t, "contentions/count delay/nanoseconds", "contention sample types");
		free(t);
		TAP_EQ_U64(p->period, 100, "sampling period is the profile period");
		TAP_EQ_STR(sp_profile_str(p, p->period_type.type), "contentions", "period type");
		TAP_EQ_U64(p->duration_nanos, 6000000000ULL, "ms since reset -> duration");
		const sp_mapping *m = leaf_mapping(p);
		TAP_OK(m && m->memory_start == 0x400000 &&
			       !strcmp(sp_profile_str(p, m->filename), "/usr/bin/server"),
		       "contention locations attached to the memory map");
		TAP_OK(drops(p, "pthread_mutex_lock") && drops(p, "__lll_lock_wait") &&
			       drops(p, "absl::Mutex::Lock") && drops(p, "sync.(*Mutex).Lock") &&
			       drops(p, "runtime.semacquire1"),
		       "lock frames match drop_frames");
		TAP_OK(!drops(p, "main") && !drops(p, "MutexStats::report") &&
			       !drops(p, "pthread_create"),
		       "user frames do not match drop_frames");
	}
	sp_profile_free(p);

	p = expect_ok(sp_contention_read,
		      "--- mutex:\nsampling period = 10\n1000 3 @ 0x10 0x20\n",
		      "30 1000 @ 0xf 0x1f\n", "mutex header, no cycles/second: delay stays in cycles");
	sp_profile_free(p);
	p = expect_ok(sp_contention_read,
		      "--- contention:\ncycles/second = 2000000000\n4000 2 @ 0x10\n---\n",
		      "2 2000 @ 0xf\n", "contention: header, default period 1");
	sp_profile_free(p);

	expect_error(sp_contention_read, "--- contentionz 1 ---\nformat = java\n1 1 @ 0x1\n",
		     SP_E_UNRECOGNIZED, "line 2", "Java format key is not mine");
	expect_error(sp_contention_read, "--- contentionz 1 ---\nflavour = 3\n",
		     SP_E_UNRECOGNIZED, "line 2", "unknown key is not mine");
	expect_error(sp_contention_read, "--- heapz 1 ---\n1 1 @ 0x1\n", SP_E_UNRECOGNIZED,
		     "not a contention profile", "other header is not mine");
	expect_error(sp_contention_read, "--- contentionz 1 ---\n1 1 @ 0x1\n12 @ 0x2\n",
		     SP_E_MALFORMED, "line 3: expected \"<delay> <count> @", "one number only");
	expect_error(sp_contention_read, "--- contentionz 1 ---\n1 1 @ 0x1 zz\n", SP_E_MALFORMED,
		     "line 2: expected hex address 0x[0-9a-f]+, got \"zz\"", "junk address");
	expect_error(sp_contention_read,
		     "--- contentionz 1 ---\ncycles/second = 1\nsampling period = 1000000000\n"
		     "99999999999 1 @ 0x1\n",
		     SP_E_MALFORMED, "line 4: delay", "delay overflow");
}

static void thread(void)
{
	sp_profile *p = expect_ok(sp_thread_read,
				  "--- threadz 3 ---\n"
				  "\n"
				  "--- Thread 7f12 (name: main/4711) stack: ---\n"
				  "  PC: 0x40e2f0 0x40e2f0\n"
				  "  0x4c5aa1 0x4c5b02\n"
				  "--- Thread 7f13 (name: worker/4712) stack: ---\n"
				  "  same as previous thread\n"
				  "--- Thread 7f14 (name: io/pool/4713) stack: ---\n"
				  "  creator: 0x500001\n"
				  "  0x400100\n"
				  "---- no stack trace for 7f15\n"
				  "--- Memory map: ---\n"
				  "00400000-00600000 r-xp 00000000 fc:00 99 /usr/bin/server\n",
				  "2 @ 0x40e2f0 0x4c5aa0 0x4c5b01\n"
				  "1 @ 0x500001 0x4000ff\n",
				  "threadz: leaf kept, callers -1, duplicate leaf removed, same as "
				  "previous counted");
	if (p) {
		char *t = types_string(p);
		TAP_EQ_STR(t, "thread/count", "thread sample type");
		free(t);
		TAP_OK(leaf_mapping(p) != NULL, "thread locations attached");
	}
	sp_profile_free(p);
	p = expect_ok(sp_thread_read,
		      "# comment\n--- Thread 1 (name: a/1) stack: ---\n0x10 0x20\n",
		      "1 @ 0x10 0x1f\n", "thread header first, no threadz line");
	sp_profile_free(p);
	expect_error(sp_thread_read, "--- threadz x ---\n", SP_E_UNRECOGNIZED,
		     "not a thread profile", "bad threadz header");
	expect_error(sp_thread_read, "--- Thread 1 (name: a/1) stack: ---\n0x10\n--- Thraed\n",
		     SP_E_MALFORMED, "line 3: expected \"--- Thread", "bad thread header later");
	expect_error(sp_thread_read,
		     "--- Thread 1 (name: a/1) stack: ---\n0x10000000000000000\n",
		     SP_E_MALFORMED, "line 2: hex address out of range", "address overflow");
}

static void gocount(void)
{
	sp_profile *p = expect_ok(sp_gocount_read,
				  "# leading comment\n"
				  "goroutine profile: total 3\n"
				  "2 @ 0x42f86a 0x42a3c5\n"
				  "\n"
				  "1 @ 0x42f86a\n"
				  "--- Memory map: ---\n"
				  "00400000-00500000 r-xp 00000000 fc:00 7 /usr/bin/gosrv\n",
				  "2 @ 0x42f869 0x42a3c4\n1 @ 0x42f869\n",
				  "goroutine profile: every PC -1");
	if (p) {
		char *t = types_string(p);
		TAP_EQ_STR(t, "goroutine/count", "type named by the header");
		free(t);
		TAP_EQ_U64(p->period, 1, "period 1");
		TAP_EQ_STR(sp_profile_str(p, p->period_type.type), "goroutine", "period type");
		TAP_OK(leaf_mapping(p) != NULL, "go count locations attached");
	}
	sp_profile_free(p);
	p = expect_ok(sp_gocount_read, "threadcreate profile: total 1\n1 @ 0x1000\n",
		      "1 @ 0xfff\n", "threadcreate");
	sp_profile_free(p);
	expect_error(sp_gocount_read, "goroutine profile: total x\n", SP_E_UNRECOGNIZED,
		     "not a Go count", "bad total");
	expect_error(sp_gocount_read, "heap profile: 1: 2 [3: 4] @ heap\n", SP_E_UNRECOGNIZED,
		     "not a Go count", "heap header is not mine");
	expect_error(sp_gocount_read, "goroutine profile: total 1\n2 @0x1\n", SP_E_MALFORMED,
		     "line 2: expected \"<count> @ 0x", "no space before address");
	expect_error(sp_gocount_read, "goroutine profile: total 1\n2 @ 0x1  0x2\n",
		     SP_E_MALFORMED, "line 2", "two spaces between addresses");
	expect_error(sp_gocount_read, "goroutine profile: total 1\n2 @ 0x1A\n", SP_E_MALFORMED,
		     "line 2", "uppercase hex");
}

int main(void)
{
	contention();
	thread();
	gocount();
	return tap_done();
}
