/* heapp.h — private to the gperftools heap reader: what its lines
 * (heap_line.c), its reading line by line (heap.c) and its scanning on
 * several threads (heap_chunks.c) share.
 * A sample line is read in two halves: scanning (its counts, and its
 * stack's text looked up among the stacks seen before, its addresses
 * parsed when it is new) needs only the line, building (locations
 * interned, the sample added) only the profile. */
#ifndef SYMPROF_FORMATS_HEAPP_H
#define SYMPROF_FORMATS_HEAPP_H

#include "formats/legacy.h"

typedef enum { SAMPLING_NONE, SAMPLING_V2 } heap_sampling;

typedef struct {
	heap_sampling samp;
	int64_t rate;
	bool has_alloc;
} heap_header;

/* What scanning makes of one line. */
typedef struct {
	int64_t vals[4];
	int64_t blocksize;
	size_t stack;   /* the stack's number among those kept, SIZE_MAX when not kept */
	bool fresh;     /* not seen before (or not kept): its addresses follow */
	size_t n_addrs; /* when fresh */
} heap_rec;

/* The scanning half's state: the text of the stacks kept, numbered in
 * the order they first appear, up to SP_STACK_MEMO_MAX bytes of text and
 * addresses (past it new stacks are parsed every time, as with
 * sp_stack_memo). */
typedef struct {
	const char *name;
	const heap_header *h;
	sp_strtab stacks;
	size_t bytes;
} heap_scan;

/* A stack's location ids in the profile's sample storage, shared by
 * every sample of the stack. */
typedef struct {
	const uint64_t *ids;
	size_t n;
} heap_stack;

/* The building half's state: the location ids of each kept stack, by its
 * number. */
typedef struct {
	sp_profile *p;
	int64_t bytes; /* the label key */
	heap_stack *kept;
	size_t n_kept, cap_kept;
	sp_u64vec fresh; /* a fresh stack's ids */
} heap_build;

/* The header line [S, S+N) (line 1) into H; SP_E_UNRECOGNIZED when it is
 * not a heap profile's. */
sp_error *sp_heap_parse_header(const char *name, const char *s, size_t n, heap_header *h);

/* The counts of sample line LINENO, [S, S+N), into R's values and block
 * size; *STACK_AT gets the offset of the stack's text (after '@').  Needs
 * nothing but the line and the header H: any thread may call it. */
sp_error *sp_heap_scan_counts(const char *name, const heap_header *h, size_t lineno,
			      const char *s, size_t n, heap_rec *r, size_t *stack_at);
/* The stack [ST, ST+SN) of line LINENO into R: FOUND is its number among
 * SC's stacks (sp_strtab_find), SIZE_MAX when not there; a fresh stack's
 * addresses (adjusted) are appended to ADDRS and, while SC's bound allows,
 * the stack is kept. */
sp_error *sp_heap_scan_stack(heap_scan *sc, size_t lineno, const char *st, size_t sn,
			     size_t found, heap_rec *r, sp_u64vec *addrs);
/* Adds the sample of R; ADDRS are its addresses when it is fresh. */
void sp_heap_build_sample(heap_build *b, const heap_rec *r, const uint64_t *addrs);

/* The sample lines of IT (a file's, its header read) scanned on up to
 * JOBS threads, the caller's included, and built on the caller's in input
 * order: the same profile, and the same first error, as line by line.
 * When the samples end at a memory-map marker, *MAPS gets the text after
 * it (caller frees) and *MAPS_LEN its length; otherwise *MAPS is NULL.  A
 * read error of the input is left in it->err.  False when the threads'
 * state cannot be made (nothing was read then). */
bool sp_heap_read_chunks(heap_scan *sc, heap_build *bd, sp_lines *it, int jobs, char **maps,
			 size_t *maps_len, sp_error **err);

#endif
