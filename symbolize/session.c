/* session.c — the symbolizer session: the unit at which objects are cached.
 *
 * A session owns a deep copy of its options and one sp_object per distinct
 * ELF file, found again by build id, else by device+inode+size+mtime, else
 * by path; every path asked for is remembered too, so a file is read once
 * per session.  A file that cannot be used (missing, not ELF) is cached as
 * a failure and reported again without touching the disk.  Each object
 * opens its libdw resolver (resolver.c) at the first address it resolves.
 * The finder's answer for a mapping's file (recorded path + build id ->
 * the file found, or why none was) is kept too, so a mapping met again in
 * another profile of the run is neither searched for nor read again.
 *
 * The objects' resolvers (libdw's handles, decompressed files and
 * sections, indexes) are what the session holds most of: when the memory
 * budget runs short (sp_mem_make_room, before a file is decompressed or a
 * section inflated), the session gives back the resolver of the object
 * least recently resolved in, never one in use (pinned), and opens it
 * again at its next address.  Frames are therefore borrowed only until the
 * next call that opens or resolves in an object.
 */
#include "symbolize/internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

struct sp_object {
	char *path;
	sp_elf_info info;
	bool have_info;
	sp_error *err; /* cached failure */
	sp_resolver *dw;  /* opened at the first address */
	sp_symbolizer *s;
	uint64_t used;    /* the session's clock when last resolved in */
	int pinned;       /* in use: not to be given back */
	bool refusal_said; /* a split unit refused for want of memory, noted */
	/* --index-dir: the index of the build id, looked for at the first
	 * address; when there is none that holds, the resolver answers and the
	 * index is written after its first answer */
	bool ix_tried, ix_write;
	sp_index *ix;      /* answering, or NULL */
	sp_index *ix_old;  /* found damaged while answering: its frames stay valid */
	char *ix_path;
};

typedef struct {
	char *key;    /* "p:PATH", "b:BUILDID" or "f:DEV:INO:SIZE:MTIME" */
	size_t obj;
} obj_key;

/* One answer of the finder: for the key "BUILDID\nRECORDED". */
typedef struct {
	char *key;
	char *found;     /* NULL when err is set */
	sp_error *err;
	sp_find_log log; /* every candidate tried */
} located;

struct sp_symbolizer {
	sp_symbolize_options opts;
	/* storage behind opts */
	char **strs;
	size_t n_strs, cap_strs;
	void **arrays;
	size_t n_arrays, cap_arrays;

	sp_object **objs;
	size_t n_objs, cap_objs;
	obj_key *keys;
	size_t n_keys, cap_keys;
	sp_idxset key_index;
	sp_finder *finder; /* created at first use */
	located *located;
	size_t n_located, cap_located;
	sp_idxset located_index;
	size_t finder_calls;
	char *kernel_release; /* of the profile being symbolized, or NULL */
	sp_filehash_cache *filehash; /* candidates' file ids, made at first use */
	char **notes;         /* what the caller is told once (sp_symbolizer_next_note) */
	size_t n_notes, cap_notes, notes_taken;

	/* name sources without a file, loaded at first use */
	bool sources_loaded;
	sp_error *sources_err;
	sp_jit_index *jit;
	sp_perf_map *perf;
	sp_jitdump *perfjit;
	sp_kallsyms *ksyms;
	/* sp_symbolizer_new_worker: the session that owns opts' storage and
	 * the sources above */
	const sp_symbolizer *parent;
	uint64_t clock;   /* for the objects' LRU */
	bool evictor;     /* registered with the memory budget */
	sp_error *index_err; /* the first index that could not be written */
};

/* The budget's evictor: the resolver of the object least recently
 * resolved in, of those not in use, is freed (its object stays, with its
 * identity, and opens again at its next address). */
static bool give_back(void *ctx, size_t want)
{
	(void)want;
	sp_symbolizer *s = ctx;
	sp_object *old = NULL;
	for (size_t i = 0; i < s->n_objs; i++) {
		sp_object *o = s->objs[i];
		if (o->dw && !o->pinned && (!old || o->used < old->used))
			old = o;
	}
	if (!old)
		return false;
	sp_resolver_free(old->dw);
	old->dw = NULL;
	return true;
}

static const char *keep_str(sp_symbolizer *s, const char *str)
{
	if (!str)
		return NULL;
	char *c = sp_xstrdup(str);
	SP_PUSH(s->strs, s->n_strs, s->cap_strs, c);
	return c;
}

static const char *const *keep_list(sp_symbolizer *s, const char *const *v, size_t n)
{
	if (!v || !n)
		return NULL;
	const char **c = sp_xreallocarray(NULL, n, sizeof(*c));
	for (size_t i = 0; i < n; i++)
		c[i] = keep_str(s, v[i]);
	SP_PUSH(s->arrays, s->n_arrays, s->cap_arrays, (void *)c);
	return c;
}

sp_symbolizer *sp_symbolizer_new(const sp_symbolize_options *opts)
{
	sp_symbolizer *s = sp_xcalloc(1, sizeof(*s));
	sp_mem_add_evictor(give_back, s, false);
	s->evictor = true;
	if (!opts)
		return s;
	s->opts = *opts;
	s->opts.binary_paths = keep_list(s, opts->binary_paths, opts->n_binary_paths);
	s->opts.debug_dirs = keep_list(s, opts->debug_dirs, opts->n_debug_dirs);
	s->opts.jit_dirs = keep_list(s, opts->jit_dirs, opts->n_jit_dirs);
	s->opts.perf_maps = keep_list(s, opts->perf_maps, opts->n_perf_maps);
	s->opts.sysroot = keep_str(s, opts->sysroot);
	s->opts.kallsyms = keep_str(s, opts->kallsyms);
	s->opts.index_dir = keep_str(s, opts->index_dir);
	if (opts->path_maps && opts->n_path_maps) {
		sp_path_map *pm = sp_xreallocarray(NULL, opts->n_path_maps, sizeof(*pm));
		for (size_t i = 0; i < opts->n_path_maps; i++) {
			pm[i].from = keep_str(s, opts->path_maps[i].from);
			pm[i].to = keep_str(s, opts->path_maps[i].to);
		}
		SP_PUSH(s->arrays, s->n_arrays, s->cap_arrays, (void *)pm);
		s->opts.path_maps = pm;
	} else {
		s->opts.path_maps = NULL;
	}
	return s;
}

sp_symbolizer *sp_symbolizer_new_worker(const sp_symbolizer *parent)
{
	sp_symbolizer *s = sp_xcalloc(1, sizeof(*s));
	s->opts = parent->opts;
	s->parent = parent;
	s->sources_loaded = parent->sources_loaded;
	s->sources_err = sp_error_dup(parent->sources_err);
	s->jit = parent->jit;
	s->perf = parent->perf;
	s->perfjit = parent->perfjit;
	s->ksyms = parent->ksyms;
	return s;
}

static void object_free(sp_object *o)
{
	if (!o)
		return;
	sp_resolver_free(o->dw);
	sp_index_free(o->ix);
	sp_index_free(o->ix_old);
	free(o->ix_path);
	if (o->have_info)
		sp_elf_info_clear(&o->info);
	sp_error_free(o->err);
	free(o->path);
	free(o);
}

void sp_symbolizer_not_evicted(sp_symbolizer *s)
{
	if (s->evictor)
		sp_mem_remove_evictor(give_back, s);
	s->evictor = false;
}

void sp_symbolizer_free(sp_symbolizer *s)
{
	if (!s)
		return;
	if (s->evictor)
		sp_mem_remove_evictor(give_back, s);
	for (size_t i = 0; i < s->n_objs; i++)
		object_free(s->objs[i]);
	free(s->objs);
	for (size_t i = 0; i < s->n_keys; i++)
		free(s->keys[i].key);
	free(s->keys);
	sp_idxset_free(&s->key_index);
	for (size_t i = 0; i < s->n_located; i++) {
		located *l = &s->located[i];
		free(l->key);
		free(l->found);
		sp_error_free(l->err);
		sp_find_log_clear(&l->log);
	}
	free(s->located);
	sp_idxset_free(&s->located_index);
	free(s->kernel_release);
	sp_filehash_cache_free(s->filehash);
	for (size_t i = s->notes_taken; i < s->n_notes; i++)
		free(s->notes[i]);
	free(s->notes);
	sp_finder_free(s->finder);
	if (!s->parent) {
		sp_jit_index_free(s->jit);
		sp_perf_map_free(s->perf);
		sp_jitdump_free(s->perfjit);
		sp_kallsyms_free(s->ksyms);
	}
	sp_error_free(s->sources_err);
	sp_error_free(s->index_err);
	for (size_t i = 0; i < s->n_strs; i++)
		free(s->strs[i]);
	free(s->strs);
	for (size_t i = 0; i < s->n_arrays; i++)
		free(s->arrays[i]);
	free(s->arrays);
	free(s);
}

const sp_symbolize_options *sp_symbolizer_options(const sp_symbolizer *s)
{
	return &s->opts;
}

sp_finder *sp_symbolizer_finder(sp_symbolizer *s)
{
	if (!s->finder)
		s->finder = sp_finder_new(&s->opts);
	return s->finder;
}

typedef struct {
	const sp_symbolizer *s;
	const char *key;
} located_ctx;

static bool located_eq(void *ctx, size_t idx)
{
	located_ctx *k = ctx;
	return strcmp(k->s->located[idx].key, k->key) == 0;
}

void sp_symbolizer_set_kernel_release(sp_symbolizer *s, const char *release)
{
	free(s->kernel_release);
	s->kernel_release = release && *release ? sp_xstrdup(release) : NULL;
}

sp_error *sp_symbolizer_locate(sp_symbolizer *s, const char *recorded, const char *build_id,
			       const char **found, const sp_find_log **log)
{
	return sp_symbolizer_locate_as(s, false, recorded, build_id, found, log);
}

sp_error *sp_symbolizer_locate_as(sp_symbolizer *s, bool kernel, const char *recorded,
				  const char *build_id, const char **found,
				  const sp_find_log **log)
{
	return sp_symbolizer_locate_file(s, kernel, recorded, build_id, NULL, found, log);
}

sp_error *sp_symbolizer_locate_file(sp_symbolizer *s, bool kernel, const char *recorded,
				    const char *build_id, const char *htlhash, const char **found,
				    const sp_find_log **log)
{
	const char *rel = kernel && s->kernel_release ? s->kernel_release : "";
	char *key = sp_xasprintf("%s\n%s\n%s%s%s%s", build_id ? build_id : "",
				 recorded ? recorded : "", kernel ? "kernel " : "", rel,
				 htlhash ? "\nhtlhash " : "", htlhash ? htlhash : "");
	uint64_t h = sp_hash_bytes(key, strlen(key), 0);
	located_ctx k = {s, key};
	size_t i = sp_idxset_find(&s->located_index, h, located_eq, &k);
	if (i == SIZE_MAX) {
		located l = {.key = key};
		s->finder_calls++;
		sp_filehash_want want = {htlhash ? sp_symbolizer_filehash(s) : NULL, htlhash};
		l.err = kernel ? sp_finder_kernel(sp_symbolizer_finder(s), recorded, build_id,
						  s->kernel_release, &l.found, &l.log)
			: htlhash ? sp_finder_binary_check(sp_symbolizer_finder(s), recorded,
							   build_id, sp_filehash_check, &want,
							   &l.found, &l.log)
				  : sp_finder_binary(sp_symbolizer_finder(s), recorded, build_id,
						     &l.found, &l.log);
		SP_PUSH(s->located, s->n_located, s->cap_located, l);
		i = s->n_located - 1;
		sp_idxset_add(&s->located_index, h, i);
	} else {
		free(key);
	}
	*found = s->located[i].found;
	*log = &s->located[i].log;
	return sp_error_dup(s->located[i].err);
}

sp_filehash_cache *sp_symbolizer_filehash(sp_symbolizer *s)
{
	if (!s->filehash)
		s->filehash = sp_filehash_cache_new();
	return s->filehash;
}

size_t sp_symbolizer_finder_calls(const sp_symbolizer *s)
{
	return s->finder_calls;
}

char *sp_symbolizer_next_note(sp_symbolizer *s)
{
	if (s->notes_taken == s->n_notes)
		return NULL;
	return s->notes[s->notes_taken++];
}

void sp_symbolizer_add_note(sp_symbolizer *s, char *note)
{
	for (size_t i = s->notes_taken; i < s->n_notes; i++) {
		if (!strcmp(s->notes[i], note)) {
			free(note);
			return;
		}
	}
	SP_PUSH(s->notes, s->n_notes, s->cap_notes, note);
}

void sp_symbolizer_pass_notes(sp_symbolizer *to, sp_symbolizer *from)
{
	char *note;
	while ((note = sp_symbolizer_next_note(from)) != NULL)
		sp_symbolizer_add_note(to, note);
}

/* Appends to *OUT the files DIR holds named PREFIX, a decimal pid, SUFFIX
 * (perf-PID.map, jit-PID.dump), in name order.  Anyone may put a file in
 * /tmp, where perf maps are: an entry that is not a regular file (a FIFO,
 * which a blocking open would wait on for ever, a link to /dev/zero) is
 * left out with a note naming it, checked on a descriptor opened without
 * blocking. */
static sp_error *files_of_dir(sp_symbolizer *s, const char *dir, const char *prefix,
			      const char *suffix, char ***out, size_t *n, size_t *cap)
{
	char **names;
	size_t k;
	sp_error *e = sp_dir_names(dir, prefix, suffix, &names, &k);
	size_t lp = strlen(prefix), ls = strlen(suffix);
	for (size_t i = 0; i < k; i++) {
		size_t digits = strlen(names[i]) - lp - ls;
		char *path = strspn(names[i] + lp, "0123456789") == digits
				     ? sp_xasprintf("%s/%s", dir, names[i])
				     : NULL;
		free(names[i]);
		if (!path)
			continue;
		sp_error *oe;
		int fd = sp_open_regular(path, NULL, &oe);
		if (fd >= 0)
			close(fd);
		if (oe && sp_error_root_code(oe) == SP_E_NOT_REGULAR) {
			char *msg = sp_error_string(oe);
			SP_PUSH(s->notes, s->n_notes, s->cap_notes,
				sp_xasprintf("%s: skipped", msg));
			free(msg);
			free(path);
		} else {
			SP_PUSH(*out, *n, *cap, path); /* other failures: the loader says */
		}
		sp_error_free(oe);
	}
	free(names);
	return e;
}

/* PATHS[0..n) with every directory among them replaced by its files named
 * PREFIX PID SUFFIX; *OUT and its strings are the caller's to free. */
static sp_error *expand_dirs(sp_symbolizer *s, const char *const *paths, size_t n,
			     const char *prefix, const char *suffix, char ***out, size_t *n_out)
{
	size_t cap = 0;
	*out = NULL;
	*n_out = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			sp_error *e = files_of_dir(s, paths[i], prefix, suffix, out, n_out, &cap);
			if (e)
				return e;
		} else {
			SP_PUSH(*out, *n_out, cap, sp_xstrdup(paths[i]));
		}
	}
	return NULL;
}

static void free_paths(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static sp_error *load_sources(sp_symbolizer *s)
{
	const sp_symbolize_options *o = &s->opts;
	sp_error *e = NULL;
	char **files;
	size_t n;
	if (o->n_jit_dirs && (e = sp_jit_index_load(o->jit_dirs, o->n_jit_dirs, &s->jit)))
		return e;
	if (o->n_jitdumps) {
		e = expand_dirs(s, o->jitdumps, o->n_jitdumps, "jit-", ".dump", &files, &n);
		if (!e)
			e = sp_jitdump_load((const char *const *)files, n, &s->perfjit);
		free_paths(files, n);
		if (e)
			return e;
	}
	if (o->n_perf_maps) {
		e = expand_dirs(s, o->perf_maps, o->n_perf_maps, "perf-", ".map", &files, &n);
		if (!e)
			e = sp_perf_map_load((const char *const *)files, n, &s->perf);
		free_paths(files, n);
		if (e)
			return e;
	}
	if (o->kallsyms && *o->kallsyms && (e = sp_kallsyms_load(o->kallsyms, &s->ksyms)))
		return e;
	return NULL;
}

sp_error *sp_symbolizer_sources(sp_symbolizer *s, const sp_jit_index **jit,
				const sp_perf_map **perf, const sp_kallsyms **ksyms)
{
	if (!s->sources_loaded) {
		s->sources_loaded = true;
		s->sources_err = load_sources(s);
	}
	sp_symbolizer_loaded_sources(s, jit, perf, ksyms);
	return sp_error_dup(s->sources_err);
}

sp_error *sp_symbolizer_use_kallsyms(sp_symbolizer *s, const char *path,
				     const sp_kallsyms **ksyms)
{
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	sp_error *e = sp_symbolizer_sources(s, &jit, &perf, ksyms);
	if (e || *ksyms)
		return e;
	if ((e = sp_kallsyms_load(path, &s->ksyms)))
		return e;
	*ksyms = s->ksyms;
	return NULL;
}

const sp_jitdump *sp_symbolizer_jitdump(const sp_symbolizer *s)
{
	return s->perfjit;
}

void sp_symbolizer_loaded_sources(const sp_symbolizer *s, const sp_jit_index **jit,
				  const sp_perf_map **perf, const sp_kallsyms **ksyms)
{
	*jit = s->jit;
	*perf = s->perf;
	*ksyms = s->ksyms;
}

typedef struct {
	const sp_symbolizer *s;
	const char *key;
} key_ctx;

static bool key_eq(void *ctx, size_t idx)
{
	key_ctx *k = ctx;
	return strcmp(k->s->keys[idx].key, k->key) == 0;
}

static sp_object *lookup(sp_symbolizer *s, const char *key)
{
	key_ctx k = {s, key};
	size_t i = sp_idxset_find(&s->key_index, sp_hash_bytes(key, strlen(key), 0), key_eq, &k);
	return i == SIZE_MAX ? NULL : s->objs[s->keys[i].obj];
}

/* Consumes KEY. */
static void remember(sp_symbolizer *s, char *key, size_t obj)
{
	if (lookup(s, key)) {
		free(key);
		return;
	}
	obj_key k = {key, obj};
	SP_PUSH(s->keys, s->n_keys, s->cap_keys, k);
	sp_idxset_add(&s->key_index, sp_hash_bytes(key, strlen(key), 0), s->n_keys - 1);
}

static size_t add_object(sp_symbolizer *s, sp_object *o)
{
	o->s = s;
	SP_PUSH(s->objs, s->n_objs, s->cap_objs, o);
	return s->n_objs - 1;
}

static sp_error *check_build_id(const sp_object *o, const char *expected)
{
	if (!expected || !*expected || !o->info.build_id || !*o->info.build_id)
		return NULL;
	if (strcasecmp(expected, o->info.build_id) == 0)
		return NULL;
	return sp_error_new(SP_E_BUILD_ID_MISMATCH, "%s: build id %s, expected %s", o->path,
			    o->info.build_id, expected);
}

sp_error *sp_symbolizer_object(sp_symbolizer *s, const char *path,
			       const char *expected_build_id, sp_object **out)
{
	*out = NULL;
	char *pkey = sp_xasprintf("p:%s", path);
	sp_object *o = lookup(s, pkey);
	if (o) {
		free(pkey);
		if (o->err)
			return sp_error_dup(o->err);
		sp_error *e = check_build_id(o, expected_build_id);
		if (!e)
			*out = o;
		return e;
	}

	o = sp_xcalloc(1, sizeof(*o));
	o->path = sp_xstrdup(path);
	sp_error *err = sp_elf_info_read(path, &o->info);
	if (err) {
		o->err = err;
		remember(s, pkey, add_object(s, o));
		return sp_error_dup(err);
	}
	o->have_info = true;

	/* The same file under another name, or another copy of the same
	 * build: share the object already open. */
	char *ikey = o->info.build_id && *o->info.build_id
			     ? sp_xasprintf("b:%s", o->info.build_id)
			     : sp_xasprintf("f:%ju:%ju:%jd:%jd", (uintmax_t)o->info.dev,
					    (uintmax_t)o->info.ino, (intmax_t)o->info.size,
					    (intmax_t)o->info.mtime_ns);
	sp_object *same = lookup(s, ikey);
	if (same) {
		object_free(o);
		o = same;
		size_t idx = 0;
		while (s->objs[idx] != same)
			idx++;
		remember(s, pkey, idx);
		free(ikey);
	} else {
		size_t idx = add_object(s, o);
		remember(s, pkey, idx);
		remember(s, ikey, idx);
	}
	sp_error *e = check_build_id(o, expected_build_id);
	if (!e)
		*out = o;
	return e;
}

const sp_elf_info *sp_object_info(const sp_object *o)
{
	return &o->info;
}

const char *sp_object_path(const sp_object *o)
{
	return o->path;
}

const char *sp_object_debug_path(const sp_object *o)
{
	if (o->ix)
		return sp_index_debug_path(o->ix);
	return o->dw ? sp_resolver_debug_path(o->dw) : NULL;
}

const sp_find_log *sp_object_debug_log(const sp_object *o)
{
	return o->dw && !o->ix ? sp_resolver_find_log(o->dw) : NULL;
}

sp_error *sp_object_split_error(const sp_object *o)
{
	if (o->ix)
		return sp_index_split_error(o->ix);
	return o->dw ? sp_resolver_split_error(o->dw) : NULL;
}

/* O's resolver, made when it has none (never, or given back to the
 * budget); O pinned until unpin (it may open files, which may ask the
 * budget for room). */
const char *sp_object_index_path(const sp_object *o)
{
	return o->ix ? sp_index_file(o->ix) : NULL;
}

sp_error *sp_symbolizer_index_error(const sp_symbolizer *s)
{
	return sp_error_dup(s->index_err);
}

static sp_resolver *object_dwarf(sp_object *o)
{
	o->used = ++o->s->clock;
	o->pinned++;
	if (!o->dw)
		o->dw = sp_resolver_new(o->path, &o->s->opts, &o->info, sp_symbolizer_finder(o->s));
	return o->dw;
}

static sp_error *unpin(sp_object *o, sp_error *e)
{
	o->pinned--;
	return e;
}

/* After a resolve in O: a split unit the budget had no room for leaves
 * its functions without their inline frames (the skeleton's lines only),
 * which the caller is told once per object, as a note. */
static sp_error *note_refusal(sp_object *o, sp_error *e)
{
	const sp_error *r;
	if (!o->refusal_said && o->dw && (r = sp_resolver_split_refused(o->dw)) != NULL) {
		o->refusal_said = true;
		char *msg = sp_error_string(r);
		sp_symbolizer *s = o->s;
		SP_PUSH(s->notes, s->n_notes, s->cap_notes,
			sp_xasprintf("%s: %s; the functions of that unit are named without "
				     "their inline frames", o->path, msg));
		free(msg);
	}
	return unpin(o, e);
}

/* The object's index, looked for at the first call: one that holds is
 * kept; without, the index is to be written (by the session that owns its
 * options, not by a worker) after the resolver's first answer. */
static sp_index *object_index(sp_object *o)
{
	if (o->ix_tried)
		return o->ix;
	o->ix_tried = true;
	const sp_symbolize_options *opts = &o->s->opts;
	int et = o->have_info ? o->info.elf_type : ET_NONE;
	if (!opts->index_dir || !*opts->index_dir || (et != ET_EXEC && et != ET_DYN) ||
	    !(o->ix_path = sp_index_path(opts->index_dir, o->info.build_id)))
		return NULL;
	sp_error *e = sp_index_open(o->ix_path, o->info.build_id, opts->demangle, &o->ix);
	sp_index_stats st;
	if (!e) {
		/* made when the file had no debug info to be found: one that has
		 * some now answers better */
		sp_index_stats_of(o->ix, &st);
		if (!st.dwarf && !st.go && o->info.has_dwarf) {
			sp_index_free(o->ix);
			o->ix = NULL;
		}
	}
	sp_error_free(e); /* missing, stale, another build's, damaged: made again */
	o->ix_write = !o->ix && !o->s->parent;
	return o->ix;
}

/* After the resolver's first answer: the index written, when it is to be
 * and holds debug info that was all there (no index is kept of a symbol
 * table alone, or with split units missing: debug info found later would
 * answer better). */
static void index_fill(sp_object *o)
{
	if (!o->ix_write)
		return;
	o->ix_write = false;
	sp_symbolizer *s = o->s;
	sp_buf bytes = {0};
	sp_index_stats st;
	sp_error *e = sp_object_index_build(o, &bytes, &st);
	if (!e && (st.dwarf || st.go) && !st.split_missing)
		e = sp_index_store(o->ix_path, bytes.data, bytes.len);
	sp_buf_free(&bytes);
	if (e && !s->index_err)
		s->index_err = sp_error_prefix(e, "symbol index %s", o->ix_path);
	else
		sp_error_free(e);
}

sp_error *sp_object_index_build(sp_object *o, sp_buf *out, sp_index_stats *stats)
{
	return sp_index_build(o->path, &o->info, &o->s->opts, sp_symbolizer_finder(o->s), out,
			      stats);
}

/* The index failed with E (consumed) while answering: a stored failure
 * of the resolver's is its answer; a damaged part of the file makes the
 * resolver answer from now on (and the index be written again). */
static sp_error *index_failed(sp_object *o, sp_error *e)
{
	if (!sp_index_damaged(o->ix))
		return e;
	sp_error_free(e);
	o->ix_old = o->ix;
	o->ix = NULL;
	o->ix_write = !o->s->parent;
	return NULL;
}

sp_error *sp_object_section_address(sp_object *o, const char *name, uint64_t *vaddr)
{
	return unpin(o, sp_resolver_section_address(object_dwarf(o), name, vaddr));
}

sp_error *sp_object_symbol_at(sp_object *o, uint64_t vaddr, sp_symbol *out)
{
	return sp_resolver_symbol_at(object_dwarf(o), vaddr, out);
}

sp_error *sp_object_symbol_named(sp_object *o, const char *name, sp_symbol *out)
{
	return sp_resolver_symbol_named(object_dwarf(o), name, out);
}

sp_error *sp_object_open(sp_object *o)
{
	if (object_index(o))
		return NULL;
	return unpin(o, sp_resolver_open(object_dwarf(o)));
}

sp_error *sp_object_resolve(sp_object *o, uint64_t vaddr, const sp_frame **frames, size_t *n)
{
	if (object_index(o)) {
		sp_error *e = sp_index_resolve(o->ix, vaddr, frames, n);
		if (!e || (e = index_failed(o, e)) != NULL)
			return e;
	}
	sp_error *e = note_refusal(o, sp_resolver_resolve(object_dwarf(o), vaddr, frames, n));
	index_fill(o);
	return e;
}

bool sp_object_warm(const sp_object *o, uint64_t vaddr)
{
	if (o->ix)
		return true;
	return o->dw && sp_resolver_warm(o->dw, vaddr);
}

sp_error *sp_object_resolve_once(sp_object *o, uint64_t vaddr, const sp_frame **frames,
				 size_t *n)
{
	if (object_index(o)) {
		sp_error *e = sp_index_resolve_once(o->ix, vaddr, frames, n);
		if (!e || (e = index_failed(o, e)) != NULL)
			return e;
	}
	sp_error *e =
		note_refusal(o, sp_resolver_resolve_once(object_dwarf(o), vaddr, frames, n));
	index_fill(o);
	return e;
}
