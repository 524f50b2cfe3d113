# Manual pages (roff, written by hand), bash completion and documents
# installed under $(docdir).
dist_man_MANS = man/symprof.1 man/symprof-convert.1 man/symprof-info.1 \
	man/symprof-symbolize.1 man/symprof-jit.1 man/symprof-serve.1 man/libjitreg.3 \
	man/symprof.3
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = completion/symprof
dist_doc_DATA = README.md docs/raw-stacks.md docs/serve-deployment.md
