/* types.h — what every part of symbolize/ speaks: the options of a session,
 * a frame (one function of an inline chain at an address), and the names of
 * the session's handles.  The layer's public header is symbolize.h.
 */
#ifndef SYMPROF_SYMBOLIZE_TYPES_H
#define SYMPROF_SYMBOLIZE_TYPES_H

#include "profile/profile.h"

#include <sys/types.h>

/* ------------------------------------------------------------------------ */
/* Options.  Zero-initialised means defaults; NULL pointers mean defaults.  */

typedef enum {
	SP_DEMANGLE_SIMPLE = 0, /* no parameter lists, no template args (pprof's) */
	SP_DEMANGLE_TEMPLATES,  /* no parameter lists, template args kept */
	SP_DEMANGLE_FULL,       /* everything libbfd prints */
	SP_DEMANGLE_NONE,       /* raw linkage names */
} sp_demangle_style;

typedef struct {
	const char *from, *to;
} sp_path_map;

typedef struct {
	const char *const *binary_paths; /* --binary-path / PPROF_BINARY_PATH */
	size_t n_binary_paths;
	const char *const *debug_dirs;   /* --debug-dir, before /usr/lib/debug */
	size_t n_debug_dirs;
	bool no_default_debug_dirs;      /* --no-default-debug-dir: not /usr/lib/debug */
	const char *sysroot;             /* prefix for recorded paths */
	const sp_path_map *path_maps;    /* --path-map OLD=NEW, applied before sysroot */
	size_t n_path_maps;
	const char *const *jit_dirs;     /* --jit-dir: NAME.elf + NAME.meta pairs */
	size_t n_jit_dirs;
	const char *const *perf_maps;    /* --perf-map FILE, or DIR: its perf-PID.map */
	size_t n_perf_maps;
	const char *const *jitdumps;     /* --jitdump FILE (jit-PID.dump), or DIR: its
					    jit-PID.dump files */
	size_t n_jitdumps;
	const char *kallsyms;            /* --kallsyms FILE */
	bool no_debuginfod;
	bool debuginfod_quiet;           /* no line on stderr while a server is asked */
	bool no_inline;                  /* keep only the outermost frame */
	bool force_mismatch;             /* use a file that does not match its
					    mapping (sp_mapping_file_match) */
	bool resymbolize;                /* name again the locations that have lines
					    (an OTLP profiler's Go frames, a
					    symbolized pprof's) */
	sp_demangle_style demangle;
	const char *index_dir;           /* --index-dir: symbol indexes by build id,
					    read and written (symbolize/index/) */
} sp_symbolize_options;

/* ------------------------------------------------------------------------ */
/* Frames and handles.                                                      */

typedef struct {
	const char *name;        /* demangled per the session's style */
	const char *system_name; /* raw linkage name */
	const char *gnu_name;    /* name as binutils' addr2line chooses it (demangled
				    alike): the DWARF linkage name, else for the
				    innermost frame the symbol holding the address,
				    else the DWARF name; NULL: name */
	const char *file;        /* NULL when unknown */
	int64_t line;            /* 0 when unknown */
	int32_t column;          /* 0 when unknown (or past what 31 bits hold) */
	int32_t start_line;      /* line of the function's declaration, or 0 (likewise) */
	uint32_t discriminator;  /* the line's discriminator: 0 when none or unknown */
	bool inlined;            /* true for every frame but the outermost */
} sp_frame;

/* A symbol of an object's symbol tables, by the rules of
 * symbolize/dwarf/symtab.c, and where an address is among the sections. */
typedef struct {
	const char *name;       /* raw; NULL: none (borrowed until sp_symbolizer_free) */
	const char *demangled;  /* the name in the session's demangling style */
	uint64_t value, size;   /* its symbol-file address; size 0: none given */
	const char *section;    /* the allocated section holding the address, or NULL */
	uint64_t section_start; /* that section's symbol-file address */
} sp_symbol;

/* A session (session.c) and one object file it has opened. */
typedef struct sp_symbolizer sp_symbolizer;
typedef struct sp_object sp_object;

#endif
