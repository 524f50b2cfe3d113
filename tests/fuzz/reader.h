/* reader.h — the body every profile reader's fuzz harness shares.
 *
 * An input either fails with an error (and leaves no profile behind), or
 * yields a profile that passes the validity check, survives pruning, prints
 * as folded stacks, and writes as pprof that the pprof reader accepts
 * again.  Anything else aborts, which libFuzzer reports as a crash.
 *
 * scripts/fuzz builds each tests/fuzz/fuzz_<format>.c with libFuzzer and
 * ASan+UBSan; "make check" links them with tests/fuzz/standalone.c, which
 * replays the malformed-input corpus and deterministic mutations of it. */
#ifndef SYMPROF_FUZZ_READER_H
#define SYMPROF_FUZZ_READER_H

#include "formats/formats.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sp_fuzz_drop(sp_error *err)
{
	char *s = sp_error_string(err); /* every error must format */
	free(s);
	sp_error_free(err);
}

static int sp_fuzz_reader(sp_reader_fn read, const uint8_t *data, size_t size)
{
	sp_profile *p = NULL;
	sp_error *err = read("fuzz", data, size, &p);
	if (err) {
		if (p)
			SP_FUZZ_FAIL("a half-built profile on error");
		sp_fuzz_drop(err);
		return 0;
	}
	if ((err = sp_profile_check(p, "fuzz")))
		SP_FUZZ_FAIL("a reader returned an invalid profile");

	sp_sink *pb = sp_sink_memory_new();
	err = sp_pprof_write(p, false, pb);
	if (!err) {
		size_t len;
		const uint8_t *bytes = sp_sink_memory_data(pb, &len);
		sp_profile *again = NULL;
		if ((err = sp_pprof_read("again", bytes, len, &again)))
			SP_FUZZ_FAIL("what we write, we must read");
		sp_profile_free(again);
	} else {
		sp_fuzz_drop(err);
	}
	sp_sink_free(pb);

	sp_profile_prune_frames(p, NULL, NULL);
	sp_sink *folded = sp_sink_memory_new();
	if ((err = sp_folded_write(p, NULL, folded)))
		sp_fuzz_drop(err);
	sp_sink_free(folded);
	sp_profile_free(p);
	return 0;
}

#endif
