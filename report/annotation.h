/* annotation.h — annotated source and disassembly of a profile's functions,
 * as plain data.  The library's top layer (pipeline/annotate.c) fills it:
 * it alone sees the profile, the symbolizer's ELF files (every
 * instruction's bytes, its line and inline chain) and the source files.
 * report/ renders it: `--format list` (list.c), `--format disasm`
 * (disasm_view.c) and the HTML report's source and disassembly views
 * (html.c).  Nothing here opens a file.
 *
 * Attribution (what "flat" and "cum" mean here).  A function F is a name
 * and a file.  Each sample adds its value V (the chosen column):
 *   - to a source line L of F when a location of its stack has F in its
 *     inline chain with line L: a frame of F's own body, or the line of F
 *     a callee was inlined at.  Cum once per sample and line; flat when
 *     the location is the sample's leaf.  So code inlined into F counts on
 *     the line of the call as well as in the callee's body, and F's
 *     lines' flat values sum to F's flat total (samples whose leaf
 *     location has F in its chain);
 *   - to a line of an inlined callee C, shown under the line of F it was
 *     inlined at (an "inline row": depth 1 for a call made on F's line, 2
 *     for one made in C's body, ...), the same way;
 *   - to an instruction of F's machine code (its symbol's range in the
 *     ELF file) when a location's address lies in it: flat for the leaf,
 *     cum once per sample.  An instruction's values sum, over F's
 *     instructions, to the samples whose leaf lies in F's code.
 */
#ifndef SYMPROF_REPORT_ANNOTATION_H
#define SYMPROF_REPORT_ANNOTATION_H

#include "profile/profile.h"

/* A frame of an inline chain: indices into sp_annotation.strings. */
typedef struct {
	size_t function;
	size_t file;
	int64_t line;
} sp_ann_frame;

/* A row under a source line: a line of a callee inlined there. */
typedef struct {
	uint32_t depth;     /* 1: inlined at the line itself, 2: inside that callee, ... */
	sp_ann_frame frame; /* the callee, its file and the line in it */
	int64_t flat, cum;
} sp_ann_inline;

typedef struct {
	int64_t line;
	int64_t flat, cum;
	size_t first_inline, n_inline; /* into the function's inlines */
} sp_ann_line;

typedef struct {
	uint64_t vaddr;   /* symbol-file address, as objdump -d prints it */
	uint8_t len;
	uint8_t bytes[15];
	char *text;       /* objdump's text of the instruction */
	bool branch;      /* jumps or calls to TARGET */
	bool is_target;   /* a branch of this function lands here */
	uint64_t target;
	int64_t flat, cum;
	size_t first_frame, n_frames; /* into sp_annotation.frames, innermost first */
} sp_ann_insn;

typedef struct {
	size_t name; /* strings index: the function's name */
	size_t file; /* strings index: its source file ("" when unknown) */
	int64_t start_line; /* the declaration's line, 0 when unknown */
	int64_t flat, cum;  /* source attribution (above) */
	sp_ann_line *lines; /* sorted by line */
	size_t n_lines;
	sp_ann_inline *inlines; /* rows of each line, in the line's order */
	size_t n_inlines;
	/* disassembly: NULL object and insns when none (no_disasm says why) */
	char *object;       /* the ELF file decoded */
	char *symbol;       /* its raw symbol name */
	uint64_t start, end; /* [start, end) symbol-file addresses */
	sp_ann_insn *insns;
	size_t n_insns;
	int64_t code_flat;  /* samples whose leaf lies in the code */
	int64_t code_cum;   /* samples with a location in the code */
	char *no_disasm;
} sp_ann_function;

/* A source file: its lines, or why it was not read. */
typedef struct {
	size_t path;  /* strings index: the name the debug info gives */
	char *found;  /* where it was read, NULL when not */
	char *missing; /* why not (NULL when read) */
	char *text;   /* the bytes read */
	size_t *line_start; /* line_start[i]: offset of line i + 1 in text */
	size_t n_lines;
} sp_ann_source;

typedef struct {
	sp_ann_function *functions; /* hottest first (flat, then cum) */
	size_t n_functions;
	sp_ann_frame *frames;
	size_t n_frames, cap_frames;
	sp_ann_source *sources;
	size_t n_sources;
	sp_strtab strings; /* names and file names; index 0 is "" */
	int64_t total;     /* sum of |value| of every sample, before filters */
	const char *sample_type, *sample_unit; /* borrowed from the profile */
} sp_annotation;

/* A new empty annotation (strings[0] == ""); freed with sp_annotation_free. */
sp_annotation *sp_annotation_new(void);
void sp_annotation_free(sp_annotation *a);
/* The string at IDX. */
const char *sp_ann_str(const sp_annotation *a, size_t idx);
/* The source of file index FILE, or NULL when none was looked for. */
const sp_ann_source *sp_ann_source_of(const sp_annotation *a, size_t file);
/* Line LINE (from 1) of S (without its newline, *LEN bytes), or NULL. */
const char *sp_ann_source_line(const sp_ann_source *s, int64_t line, size_t *len);

/* -- building ------------------------------------------------------------- */

/* The functions of P worth annotating and their source lines' values, in
 * value column COL, over the samples KEEP keeps (NULL: all): those whose
 * name SELECT matches (NULL: every function), the hottest first (flat,
 * then cum), at most MAX_FUNCTIONS of them (0: all).  Totals are taken
 * over every sample.  Instructions and sources are left empty. */
sp_error *sp_annotation_build(const sp_profile *p, size_t col, const sp_sample_filter *keep,
			      const regex_t *select, size_t max_functions, sp_annotation **out);
/* Appends a frame to A->frames; returns its index. */
size_t sp_ann_add_frame(sp_annotation *a, const char *function, const char *file, int64_t line);

#endif
