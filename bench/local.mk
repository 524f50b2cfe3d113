# bench: the symbolization benchmark (not run by `make check`).
#   make bench                     generate, build and time (see bench/README.md)
#   make bench BENCH_ARGS='-r 5 -s "1000 100000" /path/to/elf'
EXTRA_DIST += bench/gen.py bench/addrs.py bench/run.sh bench/agree.py bench/README.md \
	bench/compare-pipeline.sh bench/compare-builds.sh
BENCH_ARGS =
bench: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/run.sh $(BENCH_ARGS)
.PHONY: bench
# batch conversion: 50 heap dumps, one --each run vs 50 runs (bench/batch.sh);
# -J: --each -j 1 vs -j 2, -s 1000: also over dumps grown by 1000 samples each
#   make bench-batch [BENCH_BATCH_ARGS='-n 50 -r 3'] [BENCH_BATCH_ARGS='-J -r 5 -s 1000']
EXTRA_DIST += bench/batch.sh bench/batch-jobs.sh bench/heapgrow.py
BENCH_BATCH_ARGS =
bench-batch: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/batch.sh $(BENCH_BATCH_ARGS)
.PHONY: bench-batch
# JIT case (bench/jit.sh, bench/jit.md): make bench-jit BENCH_JIT_ARGS='-a 3'
EXTRA_DIST += bench/jit.sh bench/jitgen.py bench/jit.md
BENCH_JIT_ARGS =
bench-jit: symprof$(EXEEXT) tests/helpers/jitload$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) JITLOAD=$(abs_top_builddir)/tests/helpers/jitload$(EXEEXT) \
		$(SHELL) $(top_srcdir)/bench/jit.sh $(BENCH_JIT_ARGS)
.PHONY: bench-jit
# perf.data conversion against perf script (bench/perf.sh: frame pointers, zstd, --call-graph
# dwarf of the unwind fixture, -m file sizes): make bench-perf BENCH_PERF_ARGS='-r 5 -n unw'
EXTRA_DIST += bench/perf.sh
BENCH_PERF_ARGS =
bench-perf: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/perf.sh $(BENCH_PERF_ARGS)
.PHONY: bench-perf

# stripped Go binary against go tool addr2line (bench/go.sh): make bench-go BENCH_GO_ARGS='-r 5'
EXTRA_DIST += bench/go.sh
BENCH_GO_ARGS =
bench-go: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/go.sh $(BENCH_GO_ARGS)
.PHONY: bench-go

# one address on zlib-compressed DWARF against addr2line and eu-addr2line (bench/startup.sh):
#   make bench-startup BENCH_STARTUP_ARGS='-r 9'
EXTRA_DIST += bench/startup.sh
BENCH_STARTUP_ARGS =
bench-startup: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/startup.sh $(BENCH_STARTUP_ARGS)
.PHONY: bench-startup

# convert --each over large inputs, -j 1 against -j N and the default (bench/each-deep.sh):
#   make bench-each-deep BENCH_EACH_DEEP_ARGS='-r 5 ELF'
EXTRA_DIST += bench/each-deep.sh
BENCH_EACH_DEEP_ARGS =
bench-each-deep: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/each-deep.sh $(BENCH_EACH_DEEP_ARGS)
.PHONY: bench-each-deep

# symbolize -j N against -j 1 (bench/jobs.sh): make bench-jobs BENCH_JOBS_ARGS='-r 7 ELF...'
EXTRA_DIST += bench/jobs.sh
BENCH_JOBS_ARGS =
bench-jobs: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/jobs.sh $(BENCH_JOBS_ARGS)
.PHONY: bench-jobs

# resource bombs (bench/bombs.sh): time, peak RSS, exit status and message of each, built
# at bench time: make bench-bombs BENCH_BOMBS_ARGS='-J 1000000 -D'
EXTRA_DIST += bench/bombs.sh
BENCH_BOMBS_ARGS =
bench-bombs: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/bombs.sh $(BENCH_BOMBS_ARGS)
.PHONY: bench-bombs
# OTLP from a busy host against the same work as pprof, cold and warm (bench/otlp.sh):
#   make bench-otlp [BENCH_OTLP_ARGS='-r 5 -n 1000000']
EXTRA_DIST += bench/otlp.sh bench/otlpgen.py bench/evict.py
BENCH_OTLP_ARGS =
bench-otlp: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/otlp.sh $(BENCH_OTLP_ARGS)
.PHONY: bench-otlp
# deep stacks: 1M heap samples of 20k distinct 10-40-frame stacks to folded, pprof, flame
# graph and top, two builds side by side (bench/deep.sh):
#   make bench-deep OLD=/path/to/old/symprof BENCH_DEEP_ARGS='-r 5 ELF'
EXTRA_DIST += bench/deep.sh bench/samples.py bench/samples.sh
BENCH_DEEP_ARGS =
bench-deep: symprof$(EXEEXT)
	NEW=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/deep.sh $(BENCH_DEEP_ARGS)
.PHONY: bench-deep
# the HTML report's load time in headless Chromium (bench/README.md, "The HTML report")
EXTRA_DIST += bench/page_load.py

# a --call-graph dwarf capture of N mappings, 10000 against 2500 (bench/unwind-maps.sh):
#   make bench-unwind-maps BENCH_UNWIND_MAPS_ARGS='-r 7 -n "2500 10000"'
EXTRA_DIST += bench/unwind-maps.sh
BENCH_UNWIND_MAPS_ARGS =
bench-unwind-maps: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/unwind-maps.sh $(BENCH_UNWIND_MAPS_ARGS)
.PHONY: bench-unwind-maps

# a --call-graph dwarf capture of several processes, -j 2 against -j 1 (bench/unwind-procs.sh):
#   make bench-unwind-procs BENCH_UNWIND_PROCS_ARGS='-r 7 -j 2'
EXTRA_DIST += bench/unwind-procs.sh
BENCH_UNWIND_PROCS_ARGS =
bench-unwind-procs: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/unwind-procs.sh $(BENCH_UNWIND_PROCS_ARGS)
.PHONY: bench-unwind-procs

# the symbol index: one address cold and from the index against addr2line, llvm-symbolizer
# and GSYM, sizes and batches against GSYM (bench/index.sh):
#   make bench-index BENCH_INDEX_ARGS='-r 7 /path/to/bench-exe'
EXTRA_DIST += bench/index.sh
BENCH_INDEX_ARGS =
bench-index: symprof$(EXEEXT) tests/helpers/index_content$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) \
	INDEX_CONTENT=$(abs_top_builddir)/tests/helpers/index_content$(EXEEXT) \
	$(SHELL) $(top_srcdir)/bench/index.sh $(BENCH_INDEX_ARGS)
.PHONY: bench-index
# perf users' first contact (bench/perf-users.sh): xz, python3, gcc and a C++ program
# recorded with perf record -g, symprof's top-20 shares against perf report's
#   make bench-perf-users [BENCH_PERF_USERS_ARGS='-n "xz cxx"']
EXTRA_DIST += bench/perf-users.sh bench/perfusers.cc
BENCH_PERF_USERS_ARGS =
bench-perf-users: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/perf-users.sh $(BENCH_PERF_USERS_ARGS)
.PHONY: bench-perf-users
# symprof serve: 1,000-address batches against a process per batch and a long-running
# llvm-symbolizer (bench/serve.sh): make bench-serve [BENCH_SERVE_ARGS='-b 50 -r 5']
EXTRA_DIST += bench/serve.sh bench/serve.py
BENCH_SERVE_ARGS =
bench-serve: symprof$(EXEEXT)
	SYMPROF=$(abs_top_builddir)/symprof$(EXEEXT) $(SHELL) $(top_srcdir)/bench/serve.sh $(BENCH_SERVE_ARGS)
.PHONY: bench-serve
