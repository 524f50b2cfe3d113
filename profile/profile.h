/* profile.h — the one in-memory profile model, shaped like pprof's Profile
 * message (spec/FORMATS.md §1.1), its builder, validity check, canonical
 * text dump, memory-map line parsing and the mapping rules.
 *
 * Every reader produces an sp_profile; every writer consumes one.  Strings
 * are interned in one table; every string field is an index into it, and
 * index 0 is always "".
 *
 * Ownership: the profile owns every array and string reachable from it.
 * Pointers returned by lookups are borrowed until the next call that adds
 * to the same array (arrays grow by realloc).
 *
 * Values that do not fit: every sample value, period and duration is an
 * int64.  A value read from a file, or computed from values read from a
 * file (a count times the period, the sum of samples with the same stack,
 * the sum over merged profiles), that does not fit is refused, never
 * wrapped or saturated: the reader's error names the file and the line or
 * byte offset of the record where the value stopped fitting, and a merge
 * names the profile.  Writers that add values up for display (a flame
 * graph's widths, folded output's sums of equal stacks) refuse the profile
 * the same way, naming the sample type.  pprof wraps silently; a wrapped
 * value is a wrong profile that looks right.
 */
#ifndef SYMPROF_PROFILE_H
#define SYMPROF_PROFILE_H

#include "common/common.h"

#include <regex.h>

typedef struct {
	int64_t type; /* str idx */
	int64_t unit; /* str idx */
} sp_value_type;

typedef struct {
	int64_t key;      /* str idx */
	int64_t str;      /* str idx; nonzero => string label */
	int64_t num;
	int64_t num_unit; /* str idx */
} sp_label;

typedef struct {
	uint64_t *location_ids; /* leaf first */
	size_t n_locations;
	int64_t *values;        /* exactly profile->n_sample_types entries */
	sp_label *labels;
	size_t n_labels;
} sp_sample;

/* The kernel half of the 64-bit address space starts here. */
#define SP_KERNEL_HALF (UINT64_C(1) << 63)

typedef struct {
	uint64_t id; /* nonzero, unique */
	uint64_t memory_start;
	uint64_t memory_limit; /* exclusive */
	uint64_t file_offset;
	int64_t filename; /* str idx */
	int64_t build_id; /* str idx, lowercase hex */
	bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
	/* The process whose address space this is (perf.data captures), 0 when
	 * unknown or shared (the kernel).  Not part of pprof: it only keys the
	 * per-process name sources (perf maps, jitdump files) while
	 * symbolizing, and is lost when the profile is written. */
	uint32_t pid;
} sp_mapping;

typedef struct {
	uint64_t function_id;
	int64_t line;
	int64_t column;
} sp_line;

typedef struct {
	uint64_t id; /* nonzero, unique */
	uint64_t mapping_id; /* 0 = none */
	uint64_t address;
	sp_line *lines; /* lines[0] innermost inlined frame; last = out-of-line */
	size_t n_lines;
	bool is_folded;
	/* Which of the codes that held ADDRESS over time this location saw
	 * (perf.data with jitdump files: a JIT's code record, see
	 * sp_jitdump_code_version), 0 when its name does not depend on time.
	 * Not part of pprof: it only keys the name lookup while symbolizing,
	 * and is lost when the profile is written. */
	uint64_t code_version;
} sp_location;

typedef struct {
	uint64_t id; /* nonzero, unique */
	int64_t name;        /* str idx, demangled */
	int64_t system_name; /* str idx, raw / mangled */
	int64_t filename;    /* str idx */
	int64_t start_line;
} sp_function;

typedef struct sp_profile_index sp_profile_index; /* private lookup tables */

typedef struct sp_profile {
	sp_value_type *sample_types;
	size_t n_sample_types, cap_sample_types;
	sp_sample *samples;
	size_t n_samples, cap_samples;
	sp_mapping *mappings;
	size_t n_mappings, cap_mappings;
	sp_location *locations;
	size_t n_locations, cap_locations;
	sp_function *functions;
	size_t n_functions, cap_functions;
	/* The string table, read-only: it changes only through
	 * sp_profile_intern* and sp_profile_append_string. */
	char **strings; /* strings[0] == "" */
	size_t *string_lens;
	size_t n_strings, cap_strings;

	int64_t drop_frames; /* str idx */
	int64_t keep_frames; /* str idx */
	int64_t time_nanos;
	int64_t duration_nanos;
	sp_value_type period_type;
	int64_t period;
	int64_t *comments; /* str idx each */
	size_t n_comments, cap_comments;
	int64_t default_sample_type; /* str idx */
	int64_t doc_url;             /* str idx */
	/* A view setting, not part of pprof: unsymbolized locations named
	 * one frame per mapping rather than per address
	 * (sp_location_address_name); `convert` sets it unless --addresses. */
	bool group_unresolved;

	/* What an OpenTelemetry profile carried beyond pprof's fields (see
	 * "OpenTelemetry extras" below), NULL for other inputs. */
	struct sp_otel *otel;

	sp_profile_index *index; /* private */
} sp_profile;

/* A new empty profile whose string table holds "". */
sp_profile *sp_profile_new(void);
void sp_profile_free(sp_profile *p);

/* -- strings -------------------------------------------------------------- */
int64_t sp_profile_intern(sp_profile *p, const char *s);
int64_t sp_profile_intern_n(sp_profile *p, const char *s, size_t n);
/* Appends without de-duplication (for readers that must keep a file's own
 * string table indices). */
int64_t sp_profile_append_string(sp_profile *p, const char *s, size_t n);
/* The string at IDX, or "" when IDX is out of range. Borrowed. */
const char *sp_profile_str(const sp_profile *p, int64_t idx);

/* -- building --------------------------------------------------------------
 * Readers add things in the order they see them; ids are assigned 1..n in
 * first-seen order by the find-or-add functions. */

void sp_profile_add_sample_type(sp_profile *p, const char *type, const char *unit);
void sp_profile_add_comment(sp_profile *p, const char *comment);

/* Appends a copy of *M.  When m->id is 0 the id becomes n_mappings.
 * Returns the new mapping (borrowed). */
sp_mapping *sp_profile_add_mapping(sp_profile *p, const sp_mapping *m);
/* Appends a copy of *L (lines copied too); id 0 => n_locations. */
sp_location *sp_profile_add_location(sp_profile *p, const sp_location *l);
/* Appends a copy of *F; id 0 => n_functions. */
sp_function *sp_profile_add_function(sp_profile *p, const sp_function *f);

/* Find-or-add an unsymbolized location by (mapping_id, address); returns
 * its id.  Locations added this way have no lines. */
uint64_t sp_profile_location_for_address(sp_profile *p, uint64_t mapping_id,
					 uint64_t address);
/* The same by (mapping_id, address, code_version): one address that held
 * different code over time gives one location per version. */
uint64_t sp_profile_location_for_code(sp_profile *p, uint64_t mapping_id, uint64_t address,
				      uint64_t code_version);
/* Find-or-add a function by (name, system_name, filename, start_line)
 * string contents; returns its id. */
uint64_t sp_profile_function_for(sp_profile *p, const char *name, const char *system_name,
				 const char *filename, int64_t start_line);

/* Storage for the values and location ids of samples a reader adds in
 * bulk: N elements of ELSZ bytes (at most 8-byte aligned), zeroed, owned by
 * P and freed with it (or never, for N 0: NULL).  A sample may point into
 * it like into its own malloc'd arrays, except that those arrays must not
 * be reallocated or freed one by one: sp_sample_free knows which are
 * which.  One small allocation per sample costs malloc's overhead again
 * (a value of 8 bytes takes 32), which for a profile of many tiny samples
 * is most of its memory. */
void *sp_profile_sample_storage(sp_profile *p, size_t n, size_t elsz);
/* Frees the arrays of sample S of P (not S itself), whether the sample
 * owns them or they lie in P's sample storage. */
void sp_sample_free(const sp_profile *p, sp_sample *s);

/* Appends a sample; VALUES must hold n_sample_types entries; arrays are
 * copied. */
sp_sample *sp_profile_add_sample(sp_profile *p, const int64_t *values, const uint64_t *locs,
				 size_t n_locs, const sp_label *labels, size_t n_labels);
/* Appends a sample whose location ids are LOCS itself, N_LOCS ids already
 * in P's sample storage that other samples of the same stack share (so
 * that no one changes them in place: sp_sample_drop_leaves); its values
 * and labels are copied into that storage.  Nothing is allocated per
 * sample but its place in p->samples: for a reader whose records repeat
 * a few stacks many times (a heap profile's). */
sp_sample *sp_profile_add_sample_shared(sp_profile *p, const int64_t *values,
					const uint64_t *locs, size_t n_locs,
					const sp_label *labels, size_t n_labels);
/* Drops the CUT leaf-most location ids of sample S of P (CUT at most its
 * n_locations), without changing arrays that samples may share. */
void sp_sample_drop_leaves(const sp_profile *p, sp_sample *s, size_t cut);
/* The arrays of location ids a pass over the samples has looked at: the
 * samples of one stack often share theirs (sp_profile_add_sample_shared: a
 * heap profile's million samples may have some thousands of stacks), so
 * that a pass looks at each once.  Zero-initialized; at most
 * SP_IDS_SEEN_MAX arrays are remembered (the others are looked at each
 * time). */
#define SP_IDS_SEEN_MAX ((size_t)1 << 16)
typedef struct {
	struct sp_ids_ref *slot;
	size_t cap, n;
} sp_ids_seen;
/* True when the array IDS of N ids was seen before; else remembers it
 * (while there is room) and returns false.  VALUE (may be NULL) receives
 * a value kept with the array (0 when it was added now), NULL when it is
 * not remembered; valid until the next call. */
bool sp_ids_seen_add(sp_ids_seen *t, const uint64_t *ids, size_t n, size_t **value);
void sp_ids_seen_free(sp_ids_seen *t);
/* Appends LABEL to the labels of sample S of P, wherever they are kept. */
void sp_sample_add_label(const sp_profile *p, sp_sample *s, const sp_label *label);
/* Convenience: numeric label with unit (unit may be NULL). */
sp_label sp_label_num(sp_profile *p, const char *key, int64_t num, const char *unit);
sp_label sp_label_str(sp_profile *p, const char *key, const char *value);

/* -- lookups (hash index built on first use, kept up to date by adds) ----
 * The id index follows the arrays as they grow: an element appended by an
 * add function, or directly with its id set, is found at the next lookup.
 * Code that instead rewrites the ids of mappings, locations or functions in
 * place, or removes or reorders their elements, must call
 * sp_profile_reindex afterwards; until then lookups may return NULL or an
 * element that had the id before. */
sp_mapping *sp_profile_mapping(const sp_profile *p, uint64_t id);
sp_location *sp_profile_location(const sp_profile *p, uint64_t id);
sp_function *sp_profile_function(const sp_profile *p, uint64_t id);
/* Forgets the id index, so the next lookup rebuilds it from the arrays. */
void sp_profile_reindex(sp_profile *p);
/* The mapping containing ADDR (start <= addr < limit), or NULL. */
sp_mapping *sp_profile_mapping_for_address(const sp_profile *p, uint64_t addr);

/* Address -> mapping for many addresses at once (attaching locations):
 * O(log n) per address where a scan of the mappings is O(n).  Built from
 * the current mappings; find gives the slot in p->mappings of the first
 * mapping (in array order, pprof's rule) that holds ADDR in
 * [memory_start, memory_limit), or, with UNENCODED, in its unencoded first
 * part [memory_start - file_offset, memory_start) when file_offset is not 0
 * (pprof's "first part of a split mapping was not encoded"); SIZE_MAX when
 * none does.  A mapping with memory_limit <= memory_start holds nothing.
 * Valid until mappings are added, removed or moved; moving memory_start
 * down to memory_start - file_offset (and file_offset to 0) keeps it valid,
 * as the union it covers stays the same. */
typedef struct {
	sp_interval_table table;
} sp_mapping_index;
/* X zero-initialised or cleared. */
void sp_mapping_index_build(sp_mapping_index *x, const sp_profile *p, bool unencoded);
size_t sp_mapping_index_find(const sp_mapping_index *x, uint64_t addr);
void sp_mapping_index_clear(sp_mapping_index *x);

/* Index of the sample column chosen by SPEC with pprof's SampleIndexByName
 * semantics: NULL or "" => default_sample_type if it names a column, else
 * the last column; digits => that column; a name => exact type match, also
 * accepting "inuse_X" for a column "X". */
sp_error *sp_profile_sample_index(const sp_profile *p, const char *spec, size_t *index);

/* -- validity (spec §1.3) -------------------------------------------------- */
/* Runs after every reader and before every writer.  NAME is used in the
 * message ("NAME: malformed profile: ..."). */
sp_error *sp_profile_check(const sp_profile *p, const char *name);
/* sp_profile_check, and no string holding a NUL byte: what the protobuf
 * writers need (protobuf-c measures strings with strlen).  NAME as above. */
sp_error *sp_profile_check_for_protobuf(const sp_profile *p, const char *name);

/* -- canonical text dump for tests (deterministic; like pprof -raw) ------- */
void sp_profile_dump(const sp_profile *p, sp_sink *out);

/* -- memory maps (spec §2.6) ----------------------------------------------- */

typedef struct {
	uint64_t start, limit, offset;
	char perms[8];   /* "" when absent */
	bool has_perms;
	char *path;      /* NULL when none; " (deleted)" stripped */
	char *build_id;  /* NULL when none */
} sp_maps_entry;

/* Parses one line with procMapsRE then briefMapsRE.  Returns true and
 * fills *E (caller frees path/build_id with sp_maps_entry_clear) when the
 * line is a mapping line; false otherwise.  LINE need not be NUL-terminated. */
bool sp_maps_parse_line(const char *line, size_t len, sp_maps_entry *e);
void sp_maps_entry_clear(sp_maps_entry *e);

/* Parses a memory-map text section (every line to the end of TEXT), with
 * glog prefixes stripped and $name substitutions, skipping non-executable
 * entries, and adds the mappings to P.  Then applies the mapping rules:
 * massage (merge of adjacent pieces of the same file, never of a file-less
 * region with a named one), main binary first, ids 1..n. */
sp_error *sp_profile_parse_maps(sp_profile *p, const char *text, size_t len);

/* Applies the mapping post-processing of spec §2.6 (merge, main binary,
 * ids renumbered, locations re-pointed).  Called by parse_maps; exposed for
 * readers that add mappings themselves. */
void sp_profile_massage_mappings(sp_profile *p);

/* Assigns every location with mapping_id 0 and address != 0 to a mapping as
 * spec §2.6 says (containing mapping; else extend a mapping downward when
 * its offset allows; else one fake whole-space mapping). */
void sp_profile_attach_locations(sp_profile *p);

/* -- merge (spec §1.3 "Merge") ------------------------------------------------
 * Merges N profiles of the same kind (equal sample types and period type)
 * into a new profile with pprof's identity rules; N == 1 compacts.  The
 * inputs are not modified. */
sp_error *sp_profile_merge(sp_profile *const *profiles, size_t n, sp_profile **out);
/* The same, with errors about profile i naming NAMES[i] (its file). */
sp_error *sp_profile_merge_named(sp_profile *const *profiles, const char *const *names,
				 size_t n, sp_profile **out);
/* True when A and B are of one kind, the condition for merging them: equal
 * sample types (type and unit, in order) and equal period type. */
bool sp_profile_same_kind(const sp_profile *a, const sp_profile *b);
/* "[type/unit type/unit ...]": the sample types of P (caller frees). */
char *sp_profile_types_string(const sp_profile *p);
/* The sample types and the period type, for errors about kinds:
 * "[samples/count cpu/nanoseconds], period type cpu/nanoseconds" (caller
 * frees). */
char *sp_profile_kind_string(const sp_profile *p);

/* -- differences (diff.c; pprof's -base and -diff_base) ------------------------
 * *OUT = P − BASE: BASE's samples, values negated, merged into P's with
 * sp_profile_merge's identity rules, so a stack present in both carries its
 * change.  With KEEP_BASE (-diff_base) every negated sample is labelled
 * SP_BASE_LABEL=true and so stays a sample of its own, which lets a reader
 * show both sides; without it (-base) stacks whose values cancel are
 * dropped.  BASE's sample types are matched to P's by name and unit
 * ("objects" and "space" of a heap dump without frees are inuse_objects
 * and inuse_space), a column BASE lacks taken as 0; profiles with no type
 * in common are refused (SP_E_USAGE, naming both kinds:
 * sp_profile_base_check).  The inputs are not modified. */
sp_error *sp_profile_base_check(const sp_profile *p, const sp_profile *base);
#define SP_BASE_LABEL "pprof::base"
sp_error *sp_profile_diff(sp_profile *p, sp_profile *base, bool keep_base, sp_profile **out);
/* True when sample S of P carries SP_BASE_LABEL=true (a base sample). */
bool sp_sample_is_base(const sp_profile *p, const sp_sample *s);
/* True when some sample of P is a base sample. */
bool sp_profile_has_base(const sp_profile *p);

/* -- kinds of code -----------------------------------------------------------
 * What a mapping or an address holds, for writers that mark frames (folded
 * --annotate, flame graphs) and for the symbolizer's choice of name source.
 * The kind is carried by the mapping's name (see kind.c), so it survives a
 * round trip through pprof; nothing outside kind.c compares those names. */
typedef enum {
	SP_CODE_FILE = 0,  /* code of a mapped file */
	SP_CODE_ANONYMOUS, /* no mapping, or a mapping without a file name */
	SP_CODE_JIT,       /* a file-less mapping whose code a JIT emitted */
	SP_CODE_KERNEL,    /* the kernel */
} sp_code_kind;

/* The kind of the code at ADDRESS in mapping M (NULL: none; P may then be
 * NULL too): KERNEL for
 * addresses in the upper half of the address space (>= 2^63) whatever the
 * mapping, and for mappings perf names "[kernel...]"; JIT for a mapping
 * named by sp_mapping_set_kind(..., SP_CODE_JIT); ANONYMOUS without a file
 * name; FILE otherwise. */
sp_code_kind sp_code_kind_of(const sp_profile *p, const sp_mapping *m, uint64_t address);
/* The kind of the code of location L: the kernel's when its OTLP frame type
 * says so (profile.frame.type "kernel"), else sp_code_kind_of its mapping
 * and address. */
sp_code_kind sp_location_kind(const sp_profile *p, const sp_location *l);
/* Names the file-less mapping M after the kind of code found in it (JIT
 * or KERNEL: "[jit]", "[kernel.kallsyms]"); other kinds leave it alone. */
void sp_mapping_set_kind(sp_profile *p, sp_mapping *m, sp_code_kind kind);

/* True when the mapping cannot be symbolized (pprof's Unsymbolizable). */
bool sp_mapping_unsymbolizable(const sp_profile *p, const sp_mapping *m);

/* -- drop_frames / keep_frames (spec §1.4) -----------------------------------
 * Applies P's drop_frames and keep_frames as pprof does: trims inline
 * chains and cuts each sample's stack at the first dropped frame after the
 * first user frame (root side).  Changes nothing else (unused locations
 * stay).  A no-op when drop_frames is empty or does not compile.
 * A function is tested by its name and, when they differ, by its system
 * name; DEMANGLE (may be NULL) turns a raw name into another form to test
 * (malloc'd, or NULL when it has none), so that a profile kept with raw
 * names (--demangle none) loses the same frames as a demangled one. */
typedef char *(*sp_name_fn)(const char *raw, void *ctx);
void sp_profile_prune_frames(sp_profile *p, sp_name_fn demangle, void *ctx);

/* perf report's --pid, --tid, --comm, --cpu and --time, in its syntax
 * (select.c); NULL or "": not asked. */
typedef struct {
	const char *pids, *tids, *comms, *cpus, *time;
} sp_profile_selection;
/* Keeps the samples of P that pass every selection of SEL.  Errors
 * (SP_E_USAGE): a malformed list or range, a label no sample has. */
sp_error *sp_profile_select(sp_profile *p, const sp_profile_selection *sel);

/* Keeps the samples of P for which KEEP says true, in their order; frees
 * the others.  Locations and the rest stay as they are. */
void sp_profile_retain_samples(sp_profile *p, bool (*keep)(const sp_sample *s, const void *ctx),
			       const void *ctx);

/* -- units of measure (units.c) ------------------------------------------------
 * pprof's tables: memory in powers of 1024 from bytes, time from
 * nanoseconds.  A unit is named case-insensitively by an alias, a plural
 * "s" dropped ("bytes", "kB", "milliseconds"). */
typedef struct {
	const char *name;       /* how a report shows it: "kB", "ms" */
	const char *aliases[4]; /* lower case */
	double factor;          /* in its kind's base unit (bytes, nanoseconds) */
} sp_measure_unit;

typedef struct {
	const sp_measure_unit *units;
	size_t n;
	size_t def; /* the unit shown when none is asked for */
} sp_measure_kind;

#define SP_N_MEASURE_KINDS 2 /* memory, time */
extern const sp_measure_kind sp_measure_kinds[SP_N_MEASURE_KINDS];
/* The unit of kind K that S names, or NULL. */
const sp_measure_unit *sp_measure_of_kind(const sp_measure_kind *k, const char *s);
/* The unit S names and its kind (index into sp_measure_kinds), or NULL. */
const sp_measure_unit *sp_measure_find(const char *s, size_t *kind);

/* -- focus / ignore (filter.c) -------------------------------------------------
 * pprof's -focus and -ignore: a sample is kept when no location of its
 * stack matches IGNORE and, when FOCUS is given, one matches FOCUS.  A
 * location matches by any inline frame's function name or file, by its
 * mapping's file, and when it has no lines by sp_location_address_name. */
typedef struct sp_sample_filter sp_sample_filter;
/* Compiles FOCUS and IGNORE (sp_regex_compile; NULL or "" => none).  Errors:
 * an invalid expression (SP_E_USAGE, naming which one).  P is borrowed
 * until sp_sample_filter_free and must not change meanwhile. */
sp_error *sp_sample_filter_new(const sp_profile *p, const char *focus, const char *ignore,
			       sp_sample_filter **out);
/* Compiles SRC into RE as focus and ignore do: POSIX extended, without
 * submatches, case-insensitive after a leading "(?i)" (pprof users type
 * it).  Errors: SP_E_USAGE "WHAT: invalid regular expression ...".  On
 * success the caller regfree()s RE. */
sp_error *sp_regex_compile(const char *what, const char *src, regex_t *re);
/* Adds pprof's -tagfocus and -tagignore to F (NULL or "" => none).  Each
 * is "[KEY=]FILTER".  A FILTER of the forms N, N:, :N or N:M, N an integer
 * with an optional unit (64kb, 10ms), is a range over numeric labels
 * (bounds inclusive, units of one kind converted, memory in powers of
 * 1024; a bound without a unit matches only labels without one, and M
 * without a unit takes N's, as pprof reads them); otherwise it is a comma-separated list of regular expressions
 * (as sp_regex_compile) over string labels: with KEY, one of them must
 * match one of KEY's values; without, each must match some "key:value".
 * Errors as sp_regex_compile, naming tagfocus or tagignore. */
sp_error *sp_sample_filter_tags(sp_sample_filter *f, const char *tagfocus,
				const char *tagignore);
/* True when sample S of the filter's profile passes focus, ignore,
 * tagfocus and tagignore. */
bool sp_sample_filter_keep(const sp_sample_filter *f, const sp_sample *s);
/* Whether F filters anything. */
bool sp_sample_filter_active(const sp_sample_filter *f);
/* Drops from F's profile (which F borrows read-only; P is the same
 * profile, writable) every sample F does not keep. */
void sp_sample_filter_apply(const sp_sample_filter *f, sp_profile *p);
void sp_sample_filter_free(sp_sample_filter *f);

/* The name of an unsymbolized location (kind.c), the same in every run of
 * a program whatever the load address.  BY_ADDRESS: "libstdc++.so.6+0x9d4a2"
 * (the mapping file's base name and the offset in that file),
 * "[anon]+0x10", "[jit]+0x10" or "[kernel]+0x10" (relative to the region's
 * start).  Otherwise one name for every address of the mapping, as pprof
 * names them: "[libstdc++.so.6]", "[anon]", "[jit]", "[kernel.kallsyms]".
 * "0x4011a2" either way when no mapping holds it.  Caller frees. */
char *sp_location_unresolved_name(const sp_profile *p, const sp_location *l, bool by_address);
/* The same as P's views name it: one frame per mapping when
 * p->group_unresolved (function granularity: folded, top, graphs, the
 * flame graph, the viewers), else by address. */
char *sp_location_address_name(const sp_profile *p, const sp_location *l);
/* The annotation of line LINE_IDX of L (index 0 the innermost; any index
 * for a location without lines), as flamegraph.pl's collapse scripts mark
 * frames: 'i' for every inlined frame (all but the outermost), else 'k' for
 * kernel code, 'j' for JIT code (sp_code_kind_of), else 0.  The folded
 * output and the flame graph both use it. */
char sp_frame_annotation(const sp_profile *p, const sp_location *l, size_t line_idx);

/* -- OpenTelemetry extras (otel.c) ---------------------------------------------
 * An OTLP profile (spec/OTLP-PROFILES.md) carries more than pprof's model:
 * typed attributes with units on resources, scopes, profiles, samples,
 * mappings and locations; links from samples to trace spans; per-sample
 * timestamps; several profiles, of several sample types, for several
 * resources in one message; profile ids and original payloads.  The OTLP
 * reader makes of them, once:
 *
 *   - the model, as any reader does, with pprof's projection of them: every
 *     sample's attributes and its resource's attributes as labels (strings
 *     as string labels, integers as numeric labels with their units, arrays
 *     of either as one label per element, other values as their text), its
 *     timestamps as numeric labels SP_OTEL_TIMESTAMP_LABEL (nanoseconds) and
 *     its link as string labels SP_OTEL_TRACE_ID_LABEL and
 *     SP_OTEL_SPAN_ID_LABEL (hex).  Every writer, pprof's included, sees
 *     them without knowing OTLP;
 *   - an sp_otel beside it (p->otel) holding the exact values, which the
 *     OTLP writer prefers, so that OTLP -> model -> OTLP keeps every
 *     attribute with its type and unit, every link, timestamp, resource,
 *     scope and profile field.
 *
 * The sp_otel describes P's samples one for one (sp_otel_describes):
 * removing samples through sp_profile_retain_samples keeps it in step;
 * symbolizing (which adds lines and functions) and pruning frames leave it
 * valid.  A profile made by merging or subtracting has none: the OTLP
 * writer then works from the labels alone.
 *
 * Strings and byte strings of the extras live in their own table (they may
 * hold NUL bytes, which pprof's string table may not), index 0 "".  Every
 * array grows by sp_grow; counts are uint32_t, checked by the reader. */

#define SP_OTEL_TIMESTAMP_LABEL "timestamp_unix_nano" /* unit "nanoseconds" */
#define SP_OTEL_TRACE_ID_LABEL "trace_id"
#define SP_OTEL_SPAN_ID_LABEL "span_id"

typedef enum {
	SP_OTEL_EMPTY = 0, /* an AnyValue with no value set */
	SP_OTEL_STRING,
	SP_OTEL_BOOL,
	SP_OTEL_INT,
	SP_OTEL_DOUBLE,
	SP_OTEL_BYTES,
	SP_OTEL_ARRAY,
	SP_OTEL_KVLIST,
} sp_otel_kind;

/* A run of N entries of a pool from OFF. */
typedef struct {
	uint32_t off, n;
} sp_otel_run;

/* One AnyValue.  An ARRAY's or KVLIST's elements are the values
 * items[list.off .. list.off + list.n) of the pool sp_otel.items (value
 * indices); a KVLIST element carries its key. */
typedef struct {
	uint8_t kind;  /* sp_otel_kind */
	uint32_t key;  /* as a KVLIST element: its key (string); else 0 */
	union {
		int64_t i;
		double d;
		bool b;
		uint32_t str; /* STRING, BYTES: string index */
		sp_otel_run list;
	} v;
} sp_otel_value;

/* An attribute: key, unit (0: none) and value (index into values). */
typedef struct {
	uint32_t key, unit, value;
} sp_otel_attr;

typedef struct {
	sp_otel_run attrs;       /* attribute indices (items pool) */
	uint32_t dropped_attributes_count;
	uint32_t schema_url;     /* string */
	sp_otel_run entity_refs; /* value indices (items pool): one KVLIST each,
				    keys schema_url, type, id_keys, description_keys */
} sp_otel_resource;

typedef struct {
	uint32_t resource;
	uint32_t name, version, schema_url; /* strings */
	sp_otel_run attrs;
	uint32_t dropped_attributes_count;
} sp_otel_scope;

/* One OTLP Profile: the samples of one sample type (the model's column
 * COLUMN) of one scope. */
typedef struct {
	uint32_t scope;
	uint32_t column;
	uint64_t time_unix_nano, duration_nano;
	uint32_t period_type, period_unit; /* strings */
	int64_t period;
	uint32_t profile_id;               /* string (bytes) */
	uint32_t dropped_attributes_count;
	uint32_t original_payload_format;  /* string */
	uint32_t original_payload;         /* string (bytes) */
	sp_otel_run attrs;
} sp_otel_profile;

/* Profiles whose samples are the model's samples together: the profiles
 * first .. first + n - 1 (several when a scope's profiles are the columns
 * of one pprof profile: equal samples, one sample type each). */
typedef struct {
	uint32_t first, n;
} sp_otel_group;

/* The OTLP view of one model sample. */
#define SP_OTEL_NO_VALUES 1u /* the sample had timestamps and no values */
typedef struct {
	uint32_t group;
	uint32_t link;       /* 0: none; else links[link - 1] */
	sp_otel_run attrs;   /* attribute indices (items pool) */
	sp_otel_run stamps;  /* timestamps (stamps pool) */
	uint32_t origin;     /* samples read from one OTLP sample share it */
	uint32_t flags;      /* SP_OTEL_NO_VALUES */
} sp_otel_sample;

typedef struct {
	uint32_t trace_id, span_id; /* strings (bytes) */
} sp_otel_link;

typedef struct sp_otel {
	sp_strtab strings;           /* [0] == "" */
	sp_otel_value *values;       /* [0]: EMPTY */
	size_t n_values, cap_values;
	uint32_t *items;             /* runs of attribute or value indices */
	size_t n_items, cap_items;
	uint64_t *stamps;
	size_t n_stamps, cap_stamps;
	sp_otel_attr *attrs;
	size_t n_attrs, cap_attrs;
	sp_otel_link *links;
	size_t n_links, cap_links;
	sp_otel_resource *resources;
	size_t n_resources, cap_resources;
	sp_otel_scope *scopes;
	size_t n_scopes, cap_scopes;
	sp_otel_profile *profiles;
	size_t n_profiles, cap_profiles;
	sp_otel_group *groups;
	size_t n_groups, cap_groups;
	sp_otel_sample *samples;     /* one per sample of the profile */
	size_t n_samples, cap_samples;
	/* attributes of mapping and location ID: [ID], empty past the end (the
	 * reader's ids are 1..n) */
	sp_otel_run *mapping_attrs;
	size_t n_mapping_attrs, cap_mapping_attrs;
	sp_otel_run *location_attrs;
	size_t n_location_attrs, cap_location_attrs;
} sp_otel;

sp_otel *sp_otel_new(void);
void sp_otel_free(sp_otel *o);
/* Whether P has extras that describe its samples one for one. */
bool sp_otel_describes(const sp_profile *p);

/* Building (the reader).  Each returns the new element's index. */
uint32_t sp_otel_string(sp_otel *o, const char *s, size_t n);
const char *sp_otel_str(const sp_otel *o, uint32_t i, size_t *len); /* borrowed; "" if bad */
uint32_t sp_otel_add_value(sp_otel *o, const sp_otel_value *v);
uint32_t sp_otel_add_attr(sp_otel *o, uint32_t key, uint32_t unit, uint32_t value);
/* Appends N entries to the items pool; returns their run. */
sp_otel_run sp_otel_add_items(sp_otel *o, const uint32_t *items, size_t n);
sp_otel_run sp_otel_add_stamps(sp_otel *o, const uint64_t *stamps, size_t n);
/* Sets the attributes of mapping or location ID (a run of attribute
 * indices); ID at most the number of mappings or locations read. */
void sp_otel_set_mapping_attrs(sp_otel *o, uint64_t id, sp_otel_run attrs);
void sp_otel_set_location_attrs(sp_otel *o, uint64_t id, sp_otel_run attrs);
sp_otel_run sp_otel_mapping_attrs(const sp_otel *o, uint64_t id);
sp_otel_run sp_otel_location_attrs(const sp_otel *o, uint64_t id);

/* The string value of attribute KEY among the attributes RUN, or NULL when
 * there is none or it is not a string (borrowed). */
const char *sp_otel_attr_string(const sp_otel *o, sp_otel_run run, const char *key);
/* The same for mapping M (by id) and location L of P; NULL without extras. */
const char *sp_mapping_otel_string(const sp_profile *p, uint64_t mapping_id, const char *key);
const char *sp_location_otel_string(const sp_profile *p, uint64_t location_id, const char *key);

/* Appends the text of value V to B: a string as it is, a bool as
 * true/false, numbers in decimal (doubles with 17 digits), bytes in hex,
 * arrays and lists in brackets and braces (strings quoted there). */
void sp_otel_value_text(const sp_otel *o, uint32_t v, sp_buf *b);

/* The extras in the canonical dump (sp_profile_dump's last section). */
void sp_otel_dump(const sp_profile *p, sp_sink *out);

#endif
