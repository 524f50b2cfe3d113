/* heap.c — the gperftools / tcmalloc heap profile text reader (spec
 * §2.1, §2.2, §2.6, §2.7), also the growth and fragmentation forms and
 * the Go runtime's legacy "heap/N" text.  Example input:
 *
 *   heap profile:    2:    18432 [    2:    18432] @ heap_v2/524288
 *        1:     9216 [     1:     9216] @ 0x4005d4 0x400612 0x7f3c1a021b45
 *        1:     9216 [     1:     9216] @ 0x4005d4 0x400640
 *
 *   MAPPED_LIBRARIES:
 *   00400000-00401000 r-xp 00000000 08:02 173521      /usr/bin/prog
 *
 * The first line decides: without "heap profile:" the input is not ours.
 * A line that has "heap profile:" but no "@ <type>" is refused with an
 * error rather than passed on: google/pprof rejects it too, and saying
 * why is more useful than "unrecognized format" (perl pprof reads it as an
 * old remote v1 format, which symprof does not support).  Only lower-case
 * hex addresses are accepted, as everywhere in these text formats. */
#include "formats/formats.h"
#include "formats/heapp.h"

#include <stdlib.h>
#include <string.h>

/* Scans IT's current line into R; a fresh stack's addresses (adjusted) are
 * appended to ADDRS. */
static sp_error *scan_line(heap_scan *sc, const sp_lines *it, heap_rec *r, sp_u64vec *addrs)
{
	size_t at;
	sp_error *err = sp_heap_scan_counts(sc->name, sc->h, it->lineno, it->line, it->line_len,
					    r, &at);
	if (err)
		return err;
	const char *st = it->line + at;
	size_t sn = it->line_len - at;
	return sp_heap_scan_stack(sc, it->lineno, st, sn, sp_strtab_find(&sc->stacks, st, sn), r,
				  addrs);
}

/* The sample lines of IT, after the header H, and the memory map; a line
 * is not kept once read.  With RO's jobs > 1 a file's lines are scanned on
 * as many threads (sp_heap_read_chunks). */
static sp_error *read_samples(const char *name, sp_lines *it, const heap_header *h,
			      const sp_read_options *ro, sp_profile **out)
{
	sp_error *err = NULL;
	sp_profile *p = sp_profile_new();
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	p->period = h->rate;
	p->drop_frames = sp_profile_intern(p, SP_HEAP_DROP_FRAMES);
	if (h->has_alloc) {
		sp_profile_add_sample_type(p, "alloc_objects", "count");
		sp_profile_add_sample_type(p, "alloc_space", "bytes");
		sp_profile_add_sample_type(p, "inuse_objects", "count");
		sp_profile_add_sample_type(p, "inuse_space", "bytes");
	} else {
		sp_profile_add_sample_type(p, "objects", "count");
		sp_profile_add_sample_type(p, "space", "bytes");
	}

	heap_scan sc = {.name = name, .h = h};
	heap_build bd = {.p = p, .bytes = sp_profile_intern(p, "bytes")};
	bool maps = false;
	char *owned = NULL; /* the map text read on several threads */
	const char *map_text = NULL;
	size_t map_len = 0;
	if (ro && ro->jobs >= 2 && it->f &&
	    sp_heap_read_chunks(&sc, &bd, it, ro->jobs, &owned, &map_len, &err)) {
		maps = owned != NULL;
		map_text = owned;
	} else {
		sp_u64vec addrs = {0};
		heap_rec r;
		while (!err && sp_legacy_next_line(it, &maps)) {
			addrs.n = 0;
			if (!(err = scan_line(&sc, it, &r, &addrs)))
				sp_heap_build_sample(&bd, &r, addrs.v);
		}
		sp_u64vec_free(&addrs);
		if (maps) {
			map_text = sp_lines_rest(it);
			map_len = sp_lines_rest_len(it);
		}
	}
	sp_strtab_free(&sc.stacks);
	sp_u64vec_free(&bd.fresh);
	free(bd.kept);
	if (!err)
		err = sp_legacy_finish_maps(p, name, maps ? map_text : NULL, maps ? map_len : 0);
	free(owned);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	*out = p;
	return NULL;
}

static sp_error *read_lines(const char *name, sp_lines *it, const sp_read_options *ro,
			     sp_profile **out)
{
	*out = NULL;
	name = name ? name : "heap profile";
	if (!sp_lines_next(it))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: empty input", name);
	heap_header h;
	sp_error *err = sp_heap_parse_header(name, it->line, it->line_len, &h);
	return err ? err : read_samples(name, it, &h, ro, out);
}

sp_error *sp_heap_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	return sp_legacy_read_buffer(name, data, len, read_lines, out);
}

sp_error *sp_heap_read_file_with(const char *name, FILE *f, const sp_read_options *ro,
				 sp_profile **out)
{
	return sp_legacy_read_file(name, f, read_lines, ro, out);
}

sp_error *sp_heap_read_file(const char *name, FILE *f, sp_profile **out)
{
	return sp_heap_read_file_with(name, f, NULL, out);
}
