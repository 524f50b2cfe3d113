/* legacy.h — private helpers shared by the gperftools-style text readers
 * (heap, contention, thread, Go count, raw) and the CPU reader's map
 * trailer (spec/FORMATS.md §2).  Not part of the public formats.h API.
 *
 * A legacy reader typically does:
 *
 *   sp_lines it;
 *   sp_lines_init(&it, data, len);
 *   while (sp_lines_next(&it)) {
 *           if (sp_legacy_is_maps_marker(it.line, it.line_len))
 *                   break;
 *           ... sp_legacy_parse_addrs(name, it.lineno, s, n, &addrs) ...
 *           sp_legacy_adjust_pcs(addrs.v, addrs.n, true);
 *           sp_legacy_locations(p, addrs.v, addrs.n, &ids);
 *           sp_profile_add_sample(p, values, ids.v, ids.n, ...);
 *   }
 *   err = sp_legacy_finish_maps(p, name, sp_lines_rest(&it), sp_lines_rest_len(&it));
 */
#ifndef SYMPROF_FORMATS_LEGACY_H
#define SYMPROF_FORMATS_LEGACY_H

#include "formats/formats.h"

#include <stdio.h>

/* Allocator frames, matched in full against simplified function names
 * (spec §1.4) so a heap profile's stacks end at the caller of the
 * allocator.  Written for both POSIX ERE and RE2.  Set by the gperftools
 * and jemalloc heap readers. */
#define SP_HEAP_DROP_FRAMES                                                             \
	"calloc|cfree|malloc|free|realloc|reallocarray|memalign|do_memalign|"           \
	"(__)?posix_memalign|aligned_alloc|pvalloc|valloc|"                             \
	"__libc_(malloc|calloc|realloc|free|memalign|valloc|pvalloc)|"                  \
	"(__)?(malloc|calloc|realloc|free|memalign)_hook|"                              \
	"tc_[a-z_0-9]*|tcmalloc::.*|tcmalloc_.*|"                                       \
	"(\\(anonymous namespace\\)::)?do_(malloc|calloc|free|realloc|memalign|new|delete)[a-z_]*|" \
	"(\\(anonymous namespace\\)::)?(cpp_alloc|nothrow_alloc|cpp_memalign)|"         \
	"operator new(\\[\\])?|operator delete(\\[\\])?|"                               \
	"__builtin_(vec_)?(new|delete)|"                                                \
	"std::__new_alloc.*|std::__default_alloc_template.*|std::__malloc_alloc.*|"     \
	"__gnu_cxx::new_allocator.*|std::allocator.*::(allocate|deallocate)|"           \
	"(__)?(mmap|mmap64|munmap|mremap|sbrk)|"                                        \
	"Malloc[A-Za-z]*Hook.*|MallocHook::.*|MallocExtension::.*|"                     \
	"HeapProfileTable::.*|(Mmap|Munmap|Mremap|Sbrk|New|Delete)Hook|"                \
	"RecordAlloc|RecordFree|"                                                       \
	"__(start|stop)_(google_malloc|malloc_hook)"

/* -- lines ------------------------------------------------------------------ */

/* Iterates over the lines of a buffer like Go's bufio.ScanLines: the
 * '\n' and one trailing '\r' are not part of the line; a last line without
 * '\n' is still a line.  Zero-initialise through sp_lines_init, or
 * sp_lines_init_file to read a file a piece at a time (then free with
 * sp_lines_free): only the current line and what follows it in the
 * current piece are in memory, so a reader that keeps no line needs memory
 * for what it makes of the file, not for the file. */
typedef struct {
	const char *data;
	size_t len;
	size_t pos;      /* offset of the next line */
	const char *line; /* current line, borrowed from DATA; not NUL-terminated;
			   * valid until the next sp_lines_next */
	size_t line_len;
	size_t line_off; /* byte offset of the current line */
	size_t lineno;   /* 1-based number of the current line; 0 before the first */
	/* reading a file: DATA is BUF, which holds the input from file offset
	 * BASE on; NULL F for a whole buffer */
	FILE *f;
	char *buf;
	size_t cap, base;
	sp_error *err; /* a read error: the input ended there (sp_lines_free frees it) */
} sp_lines;

void sp_lines_init(sp_lines *it, const uint8_t *data, size_t len);
/* Lines of F (borrowed; read from its current position).  A read error
 * ends the lines and is kept in it->err, without the file's name. */
void sp_lines_init_file(sp_lines *it, FILE *f);
void sp_lines_free(sp_lines *it);
/* Advances to the next line; false at the end of the input (or at a read
 * error: see it->err). */
bool sp_lines_next(sp_lines *it);
/* The text after the current line (borrowed, read in whole when reading a
 * file), and its length. */
const char *sp_lines_rest(sp_lines *it);
size_t sp_lines_rest_len(sp_lines *it);

/* A reader of lines: the profile in IT's lines (from the first), for
 * input NAME, read as RO says (may be NULL). */
typedef sp_error *(*sp_lines_reader)(const char *name, sp_lines *it, const sp_read_options *ro,
				     sp_profile **out);
/* FN over the lines of [DATA, DATA+LEN). */
sp_error *sp_legacy_read_buffer(const char *name, const uint8_t *data, size_t len,
				sp_lines_reader fn, sp_profile **out);
/* FN over the lines of F (sp_lines_init_file), with RO.  When reading
 * fails, the input was cut short: the read error, naming NAME, replaces
 * what FN returned (*OUT freed). */
sp_error *sp_legacy_read_file(const char *name, FILE *f, sp_lines_reader fn,
			      const sp_read_options *ro, sp_profile **out);

/* True when the line is blank (only whitespace) or its first non-blank
 * character is '#' (pprof's isSpaceOrComment). */
bool sp_legacy_is_space_or_comment(const char *s, size_t n);

/* Advances to the next line that is neither blank nor a comment.  False
 * at the end of the buffer, and at a memory-map marker line (then *MAPS
 * becomes true and sp_lines_rest is the map text). */
bool sp_legacy_next_line(sp_lines *it, bool *maps);

/* True when the line contains "--- Memory map: ---" or "MAPPED_LIBRARIES:". */
bool sp_legacy_is_maps_marker(const char *s, size_t n);

/* Finds the first memory-map marker line at or after byte offset FROM.
 * Returns true and sets *SECTION to the offset just past that line (where
 * the map lines begin); false when there is none. */
bool sp_legacy_find_maps(const uint8_t *data, size_t len, size_t from, size_t *section);

/* A printable, double-quoted copy of [S, S+N) for error messages: bytes
 * outside printable ASCII become \xNN, and more than 60 bytes are cut with
 * "...".  Caller frees. */
char *sp_legacy_quote(const char *s, size_t n);

/* -- addresses ----------------------------------------------------------------- */

/* A growable address or id vector. Zero-initialise; free with sp_u64vec_free. */
typedef struct {
	uint64_t *v;
	size_t n, cap;
} sp_u64vec;
void sp_u64vec_free(sp_u64vec *v);

/* Parses [S, S+N) as whitespace-separated tokens each "0x[0-9a-f]+" (lower
 * case only, at most 64 bits) and appends them to *OUT (not cleared).  An
 * empty or all-blank range appends nothing.  A bad token gives an
 * SP_E_MALFORMED error "NAME: line LINENO: expected hex address
 * 0x[0-9a-f]+, got \"tok\"". */
sp_error *sp_legacy_parse_addrs(const char *name, size_t lineno, const char *s, size_t n,
				sp_u64vec *out);

/* pprof's hexNumberRE.FindAllString: appends every "0x[0-9a-f]+" found
 * anywhere in [S, S+N) (leftmost, non-overlapping, longest run), ignoring
 * the text around them — for thread stacks ("PC: 0x.. 0x..").  A number
 * that does not fit 64 bits is an SP_E_MALFORMED error naming NAME and
 * LINENO. */
sp_error *sp_legacy_scan_addrs(const char *name, size_t lineno, const char *s, size_t n,
			       sp_u64vec *out);

/* Lists of ids numbered in the order they are added: list i is
 * v[first[i] .. first[i + 1]).  Zero-initialise; free with
 * sp_id_lists_free. */
typedef struct {
	uint64_t *v;
	size_t *first;
	size_t n; /* lists */
	size_t cap_v, cap_first;
} sp_id_lists;
/* Adds IDS[0..N) as list number l->n (returned). */
size_t sp_id_lists_add(sp_id_lists *l, const uint64_t *ids, size_t n);
/* List I (< l->n), borrowed until the next sp_id_lists_add; *N gets its length
 * (an empty list: NULL). */
const uint64_t *sp_id_lists_get(const sp_id_lists *l, size_t i, size_t *n);
void sp_id_lists_free(sp_id_lists *l);

/* Stacks already read, by their text: a profile repeats its stacks many
 * times, and a stack seen before needs neither its addresses parsed nor
 * its locations looked up again.  The text kept is bounded (past
 * SP_STACK_MEMO_MAX bytes new stacks are no longer kept: they are parsed
 * as usual), so memory follows the distinct stacks up to that bound.
 * Valid while the locations it names keep their ids and are not changed
 * (the reading of one input).  Zero-initialise; free with
 * sp_stack_memo_free. */
#define SP_STACK_MEMO_MAX ((size_t)64 << 20)
typedef struct {
	sp_strtab stacks; /* the text of each stack kept */
	sp_id_lists ids;  /* stack i's ids: list i */
	size_t bytes;     /* text and ids offered */
} sp_stack_memo;
/* The location ids of the stack written [S, S+N), if kept: *IDS borrowed
 * until the next sp_stack_memo_add. */
bool sp_stack_memo_find(const sp_stack_memo *m, const char *s, size_t n, const uint64_t **ids,
			size_t *n_ids);
/* Keeps IDS[0..N_IDS) as the stack written [S, S+N) (not found before). */
void sp_stack_memo_add(sp_stack_memo *m, const char *s, size_t n, const uint64_t *ids,
		       size_t n_ids);
void sp_stack_memo_free(sp_stack_memo *m);

/* The "return address - 1" rule of spec §2.7: subtracts 1 from every
 * address except index 0 when ADJUST_LEAF is false, from every address
 * when true (heap, contention, Go count: true; CPU, thread: false).
 * Address 0 is left as 0 (pprof would wrap it). */
void sp_legacy_adjust_pcs(uint64_t *addrs, size_t n, bool adjust_leaf);

/* Replaces *IDS (cleared first) with the location ids of ADDRS (already
 * adjusted), found or added with mapping id 0; sp_legacy_finish_maps
 * attaches them to mappings later. */
void sp_legacy_locations(sp_profile *p, const uint64_t *addrs, size_t n, sp_u64vec *ids);

/* Parses the memory-map text [TEXT, TEXT+LEN) (may be empty), adds the
 * executable mappings with the mapping rules, then attaches every location
 * without a mapping (sp_profile_attach_locations).  Always call it once a
 * reader has all its samples, even with no map section: unmapped
 * locations then share one fake mapping, as pprof does.  NAME prefixes
 * errors. */
sp_error *sp_legacy_finish_maps(sp_profile *p, const char *name, const char *text, size_t len);
/* sp_legacy_finish_maps with the map that follows the first marker line at
 * or after byte offset FROM of [DATA, DATA+LEN) (sp_legacy_find_maps), or
 * with no map when there is none: the end of the text readers whose sample
 * section stops at a "---" line (FROM: that line's offset; LEN when the
 * samples ran to the end). */
sp_error *sp_legacy_finish_maps_from(sp_profile *p, const char *name, const uint8_t *data,
				     size_t len, size_t from);

#endif
