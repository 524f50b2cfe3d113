noinst_LTLIBRARIES += symbolize/libsymbolize.la
symbolize_libsymbolize_la_SOURCES = \
	symbolize/symbolize.h \
	symbolize/types.h \
	symbolize/internal.h \
	symbolize/elf/elf.h \
	symbolize/find/find.h \
	symbolize/sources/sources.h \
	symbolize/unwind/unwind.h \
	symbolize/dwarf/dwarf.h \
	symbolize/dwarf/cursor.h \
	symbolize/dwarf/dwarfp.h \
	symbolize/dwarf/module.c \
	symbolize/dwarf/symtab.c \
	symbolize/dwarf/gopclntab.c \
	symbolize/dwarf/gopclntab.h \
	symbolize/dwarf/resolver.c \
	symbolize/dwarf/units.c \
	symbolize/dwarf/functree.c \
	symbolize/dwarf/die.c \
	symbolize/dwarf/split.c \
	symbolize/dwarf/dwp.c \
	symbolize/dwarf/lines.c \
	symbolize/dwarf/zsec.c \
	symbolize/dwarf/walk.c \
	symbolize/index/index.h \
	symbolize/index/indexp.h \
	symbolize/index/build.c \
	symbolize/index/read.c \
	symbolize/index/store.c \
	symbolize/index/format.c \
	symbolize/elf/loadbase.c \
	symbolize/elf/mapcheck.c \
	symbolize/elf/objfile.c \
	symbolize/elf/elfinfo.c \
	symbolize/elf/codefile.c \
	symbolize/elf/disasm.c \
	symbolize/find/findp.h \
	symbolize/find/finder.c \
	symbolize/find/binary.c \
	symbolize/find/debuginfo.c \
	symbolize/find/kernel.c \
	symbolize/find/perfcache.c \
	symbolize/find/debuginfod.c \
	symbolize/find/libdebuginfod.c \
	symbolize/find/libdebuginfod.h \
	symbolize/demangle.c \
	symbolize/session.c \
	symbolize/kernel_names.c \
	symbolize/code.c \
	symbolize/batch.c \
	symbolize/jobs.c \
	symbolize/sources.c \
	symbolize/symbolize.c \
	symbolize/sources/jitobj.c \
	symbolize/sources/perfmap.c \
	symbolize/sources/jitdump.c \
	symbolize/sources/kallsyms.c \
	symbolize/sources/gdbjit.c \
	symbolize/unwind/unwindp.h \
	symbolize/unwind/unwind.c \
	symbolize/unwind/memo.c \
	symbolize/unwind/modules.c \
	symbolize/unwind/parallel.c \
	symbolize/unwind/regs_x86_64.c
symbolize_libsymbolize_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(DEBUGINFOD_CFLAGS)
symbolize_libsymbolize_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(OPCODES_LIBS) $(BFD_LIBS)
# what a mapping holds (ELF virtual or run-time addresses), and finding a file by the
# OpenTelemetry eBPF profiler's ids (build ids, then its file id)
symbolize_libsymbolize_la_SOURCES += symbolize/elf/addrrule.c symbolize/find/filehash.c \
	symbolize/find/fileid.c
