# Tests, by place: tests/unit/<layer>/ mirror the source folders, tests/cli/ run the
# symprof command end to end, tests/fuzz/ hold the fuzz harnesses, tests/helpers/ what they
# share.  Fixture programs and recordings are made from testdata/src/ at test time;
# malformed inputs (tests/malformed/<format>/) and fuzz seeds (tests/fuzz/seeds/) stay
# beside the tests that read them.
TEST_LIBS = pipeline/libpipeline.la report/libreport.la formats/libformats.la symbolize/libsymbolize.la profile/libprofile.la \
	common/libcommon.la
EXTRA_DIST += tests/malformed
EXTRA_DIST += testdata
EXTRA_DIST += scripts
EXTRA_DIST += .ci/run
EXTRA_DIST += README.md
