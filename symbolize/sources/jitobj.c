/* jitobj.c — the index of JIT-compiled code described by NAME.elf + NAME.meta
 * pairs (written by libjitreg, by `symprof jit dump`, or by an MCJIT event
 * listener).  The .meta file lists every section of the object with the
 * address the JIT placed it at:
 *
 *   {"sections":[{"name":"","start":0,"size":0},
 *                {"name":".text.add","start":140230412435456,"size":32},
 *                {"name":".debug_info","start":0,"size":812}]}
 *
 * The parser is hand-written for speed (a .meta can list tens of thousands of
 * sections) and strict: any deviation from JSON, a missing key or a number
 * that is not an unsigned integer is an error naming the file, the byte
 * offset and what was expected; unknown keys are skipped.  Loaded executable
 * sections (start and size non-zero, SHF_EXECINSTR in the .elf) of every
 * object go into one interval table (common/interval.c), so one binary search
 * finds the object however sections nest; the .elf's section addresses are its run-time
 * addresses, so the session resolves with base 0.
 */
#include "symbolize/sources/sources.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* .meta parsing.                                                           */

typedef struct {
	const char *name;
	const char *base, *p, *end;
	sp_buf str; /* scratch for strings */
} jparser;

static sp_error *jerr(jparser *j, const char *expected)
{
	if (j->p >= j->end)
		return sp_error_new(SP_E_MALFORMED, "%s: byte %zu: expected %s, got end of file",
				    j->name, (size_t)(j->p - j->base), expected);
	char c = *j->p;
	if (c >= 0x20 && c < 0x7f)
		return sp_error_new(SP_E_MALFORMED, "%s: byte %zu: expected %s, got '%c'", j->name,
				    (size_t)(j->p - j->base), expected, c);
	return sp_error_new(SP_E_MALFORMED, "%s: byte %zu: expected %s, got byte 0x%02x", j->name,
			    (size_t)(j->p - j->base), expected, (unsigned char)c);
}

static void jws(jparser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static sp_error *jexpect(jparser *j, char c, const char *what)
{
	jws(j);
	if (j->p >= j->end || *j->p != c)
		return jerr(j, what);
	j->p++;
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool read_hex4(jparser *j, unsigned *out)
{
	if (j->end - j->p < 4)
		return false;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hexval(j->p[i]);
		if (d < 0)
			return false;
		v = v * 16 + (unsigned)d;
	}
	j->p += 4;
	*out = v;
	return true;
}

static void put_utf8(sp_buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sp_buf_append(b, u, n);
}

/* A JSON string into j->str (reset first). */
static sp_error *jstring(jparser *j)
{
	sp_error *err = jexpect(j, '"', "'\"' starting a string");
	if (err)
		return err;
	sp_buf_reset(&j->str);
	for (;;) {
		const char *s = j->p;
		while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
			j->p++;
		sp_buf_append(&j->str, s, (size_t)(j->p - s));
		if (j->p >= j->end)
			return jerr(j, "'\"' closing the string");
		char c = *j->p;
		if (c == '"') {
			j->p++;
			return NULL;
		}
		if (c != '\\')
			return jerr(j, "an escaped control character inside the string");
		j->p++;
		if (j->p >= j->end)
			return jerr(j, "an escape character after '\\'");
		c = *j->p++;
		switch (c) {
		case '"': case '\\': case '/':
			sp_buf_append(&j->str, &c, 1);
			break;
		case 'b': sp_buf_append(&j->str, "\b", 1); break;
		case 'f': sp_buf_append(&j->str, "\f", 1); break;
		case 'n': sp_buf_append(&j->str, "\n", 1); break;
		case 'r': sp_buf_append(&j->str, "\r", 1); break;
		case 't': sp_buf_append(&j->str, "\t", 1); break;
		case 'u': {
			unsigned cp, lo;
			if (!read_hex4(j, &cp))
				return jerr(j, "four hex digits after \\u");
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
					return jerr(j, "a low surrogate \\uDC00-\\uDFFF after a high surrogate");
				j->p += 2;
				if (!read_hex4(j, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return jerr(j, "a low surrogate \\uDC00-\\uDFFF after a high surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				j->p -= 6;
				return jerr(j, "no lone low surrogate");
			}
			put_utf8(&j->str, cp);
			break;
		}
		default:
			j->p--;
			return jerr(j, "one of \" \\ / b f n r t u after '\\'");
		}
	}
}

/* An unsigned decimal integer without sign, fraction or exponent. */
static sp_error *ju64(jparser *j, const char *what, uint64_t *out)
{
	jws(j);
	const char *s = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	if (j->p == s)
		return jerr(j, what);
	if (j->p - s > 1 && *s == '0') {
		j->p = s;
		return jerr(j, "a number without leading zeros");
	}
	if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
		return jerr(j, "an integer (no fraction or exponent)");
	if (!sp_parse_u64(s, j->p, 10, out)) {
		j->p = s;
		return jerr(j, "a number below 2^64");
	}
	return NULL;
}

/* Skips any JSON value (for keys this version does not know). */
static sp_error *jskip(jparser *j, int depth)
{
	if (depth > 64)
		return jerr(j, "nesting no deeper than 64 levels");
	jws(j);
	if (j->p >= j->end)
		return jerr(j, "a value");
	char c = *j->p;
	sp_error *err;
	if (c == '"')
		return jstring(j);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		jws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return NULL;
		}
		for (;;) {
			if (c == '{') {
				if ((err = jstring(j)) || (err = jexpect(j, ':', "':' after a key")))
					return err;
			}
			if ((err = jskip(j, depth + 1)))
				return err;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			return jexpect(j, close, c == '{' ? "',' or '}'" : "',' or ']'");
		}
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		if (c == '-')
			j->p++;
		const char *s = j->p;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == s)
			return jerr(j, "a digit");
		if (j->p < j->end && *j->p == '.') {
			j->p++;
			s = j->p;
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
			if (j->p == s)
				return jerr(j, "a digit after '.'");
		}
		if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
			j->p++;
			if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
				j->p++;
			s = j->p;
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
			if (j->p == s)
				return jerr(j, "a digit in the exponent");
		}
		return NULL;
	}
	static const char *const lits[] = {"true", "false", "null"};
	for (size_t i = 0; i < SP_ARRAY_LEN(lits); i++) {
		size_t n = strlen(lits[i]);
		if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, lits[i], n)) {
			j->p += n;
			return NULL;
		}
	}
	return jerr(j, "a JSON value");
}

static sp_error *parse_section(jparser *j, sp_jit_section *sec)
{
	sp_error *err = jexpect(j, '{', "'{' starting a section");
	if (err)
		return err;
	bool have_name = false, have_start = false, have_size = false;
	const char *open = j->p - 1;
	jws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
	} else {
		for (;;) {
			const char *key_at = j->p;
			if ((err = jstring(j)))
				return err;
			if ((err = jexpect(j, ':', "':' after a key")))
				return err;
			const char *key = sp_buf_str(&j->str);
			bool *seen = NULL;
			if (!strcmp(key, "name")) {
				seen = &have_name;
				if (!have_name && (err = jstring(j)))
					return err;
				if (!have_name)
					sec->name = sp_xstrdup(sp_buf_str(&j->str));
			} else if (!strcmp(key, "start")) {
				seen = &have_start;
				if (!have_start && (err = ju64(j, "an unsigned integer start address", &sec->start)))
					return err;
			} else if (!strcmp(key, "size")) {
				seen = &have_size;
				if (!have_size && (err = ju64(j, "an unsigned integer size", &sec->size)))
					return err;
			} else if ((err = jskip(j, 1))) {
				return err;
			}
			if (seen) {
				if (*seen) {
					j->p = key_at;
					return jerr(j, "each key once per section");
				}
				*seen = true;
			}
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				jws(j);
				continue;
			}
			if ((err = jexpect(j, '}', "',' or '}' in a section")))
				return err;
			break;
		}
	}
	if (!have_name || !have_start || !have_size) {
		return sp_error_new(SP_E_MALFORMED, "%s: byte %zu: section lacks \"%s\"", j->name,
				    (size_t)(open - j->base),
				    !have_name ? "name" : !have_start ? "start" : "size");
	}
	return NULL;
}

void sp_jit_sections_free(sp_jit_section *secs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(secs[i].name);
	free(secs);
}

sp_error *sp_jit_meta_parse(const char *name, const char *data, size_t len,
			    sp_jit_section **out, size_t *n_out)
{
	jparser j = {.name = name, .base = data, .p = data, .end = data + len};
	sp_jit_section *v = NULL;
	size_t n = 0, cap = 0;
	bool have_sections = false;
	sp_error *err;
	*out = NULL;
	*n_out = 0;
	if ((err = jexpect(&j, '{', "'{' starting the .meta object")))
		goto fail;
	jws(&j);
	if (j.p < j.end && *j.p == '}') {
		j.p++;
	} else {
		for (;;) {
			const char *key_at = j.p;
			if ((err = jstring(&j)) || (err = jexpect(&j, ':', "':' after a key")))
				goto fail;
			if (!strcmp(sp_buf_str(&j.str), "sections")) {
				if (have_sections) {
					j.p = key_at;
					err = jerr(&j, "one \"sections\" key");
					goto fail;
				}
				have_sections = true;
				if ((err = jexpect(&j, '[', "'[' starting the section list")))
					goto fail;
				jws(&j);
				if (j.p < j.end && *j.p == ']') {
					j.p++;
				} else {
					for (;;) {
						sp_jit_section sec = {0};
						err = parse_section(&j, &sec);
						if (err) {
							free(sec.name);
							goto fail;
						}
						SP_PUSH(v, n, cap, sec);
						jws(&j);
						if (j.p < j.end && *j.p == ',') {
							j.p++;
							continue;
						}
						if ((err = jexpect(&j, ']', "',' or ']' in the section list")))
							goto fail;
						break;
					}
				}
			} else if ((err = jskip(&j, 1))) {
				goto fail;
			}
			jws(&j);
			if (j.p < j.end && *j.p == ',') {
				j.p++;
				jws(&j);
				continue;
			}
			if ((err = jexpect(&j, '}', "',' or '}'")))
				goto fail;
			break;
		}
	}
	jws(&j);
	if (j.p != j.end) {
		err = jerr(&j, "end of file after the .meta object");
		goto fail;
	}
	if (!have_sections) {
		err = sp_error_new(SP_E_MALFORMED, "%s: byte 0: expected a \"sections\" key", name);
		goto fail;
	}
	sp_buf_free(&j.str);
	*out = v;
	*n_out = n;
	return NULL;
fail:
	sp_buf_free(&j.str);
	sp_jit_sections_free(v, n);
	return err;
}

static void put_json_string(sp_sink *s, const char *str)
{
	sp_sink_putc(s, '"');
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			sp_sink_printf(s, "\\%c", *p);
		else if (*p < 0x20)
			sp_sink_printf(s, "\\u%04x", *p);
		else
			sp_sink_putc(s, (char)*p);
	}
	sp_sink_putc(s, '"');
}

void sp_jit_meta_write(sp_sink *s, const sp_jit_section *secs, size_t n)
{
	sp_sink_puts(s, "{\"sections\":[");
	for (size_t i = 0; i < n; i++) {
		sp_sink_puts(s, i ? ",\n{\"name\":" : "\n{\"name\":");
		put_json_string(s, secs[i].name ? secs[i].name : "");
		sp_sink_printf(s, ",\"start\":%llu,\"size\":%llu}", (unsigned long long)secs[i].start,
			       (unsigned long long)secs[i].size);
	}
	sp_sink_puts(s, "]}\n");
}

/* ------------------------------------------------------------------------ */
/* Section facts from an ELF (libelf copes with extended numbering).        */

typedef struct {
	char *name;
	uint64_t flags, addr, size;
	uint32_t type;
} elf_sec;

static void elf_secs_free(elf_sec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static sp_error *elf_sections(Elf *elf, const char *name, elf_sec **out, size_t *n_out)
{
	size_t shnum, shstrndx;
	*out = NULL;
	*n_out = 0;
	if (elf_kind(elf) != ELF_K_ELF)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not an ELF object", name);
	if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return sp_error_new(SP_E_LIBELF, "%s: cannot read section headers: %s", name,
				    elf_errmsg(-1));
	elf_sec *v = sp_xcalloc(shnum ? shnum : 1, sizeof(*v));
	for (size_t i = 0; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh)) {
			elf_secs_free(v, shnum);
			return sp_error_new(SP_E_LIBELF, "%s: cannot read section header %zu: %s", name,
					    i, elf_errmsg(-1));
		}
		const char *nm = i ? elf_strptr(elf, shstrndx, sh.sh_name) : "";
		v[i].name = sp_xstrdup(nm ? nm : "");
		v[i].flags = sh.sh_flags;
		v[i].addr = sh.sh_addr;
		v[i].size = sh.sh_size;
		v[i].type = sh.sh_type;
	}
	*out = v;
	*n_out = shnum;
	return NULL;
}

sp_error *sp_jit_object_sections(const char *name, const void *obj, size_t size,
				 sp_jit_section **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)obj, size);
	if (!elf)
		return sp_error_new(SP_E_LIBELF, "%s: %s", name, elf_errmsg(-1));
	elf_sec *es;
	size_t n;
	sp_error *err = elf_sections(elf, name, &es, &n);
	elf_end(elf);
	if (err)
		return err;
	sp_jit_section *v = sp_xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i].name = es[i].name;
		es[i].name = NULL;
		v[i].start = (es[i].flags & SHF_ALLOC) ? es[i].addr : 0;
		v[i].size = es[i].size;
	}
	elf_secs_free(es, n);
	*out = v;
	*n_out = n;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* The index.                                                               */

struct sp_jit_index {
	sp_interval *v; /* value: the object (index into paths); freed once indexed */
	size_t n, cap;
	sp_interval_table table;
	char **paths;
	size_t n_paths, cap_paths;
};

void sp_jit_index_free(sp_jit_index *idx)
{
	if (!idx)
		return;
	for (size_t i = 0; i < idx->n_paths; i++)
		free(idx->paths[i]);
	free(idx->paths);
	free(idx->v);
	sp_interval_table_clear(&idx->table);
	free(idx);
}

typedef struct {
	const char *name;
	bool exec;
} name_flag;

static int cmp_name_flag(const void *a, const void *b)
{
	return strcmp(((const name_flag *)a)->name, ((const name_flag *)b)->name);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Adds the loaded executable sections of META (parsed) to IDX as object OBJ;
 * executable-ness comes from the ELF section with the same index (the .meta
 * lists sections in header order, with or without the null section 0) when
 * the names agree, else from a section of the same name, else from the
 * name (.text*). */
static void add_object(sp_jit_index *idx, size_t obj, const sp_jit_section *meta, size_t n_meta,
		       const elf_sec *es, size_t n_es)
{
	ptrdiff_t off = n_meta == n_es ? 0 : n_meta + 1 == n_es ? 1 : -1;
	name_flag *byname = NULL;
	for (size_t i = 0; i < n_meta; i++) {
		const sp_jit_section *m = &meta[i];
		if (!m->start || !m->size)
			continue;
		bool exec;
		if (off >= 0 && !strcmp(es[i + (size_t)off].name, m->name)) {
			exec = es[i + (size_t)off].flags & SHF_EXECINSTR;
		} else {
			if (!byname) {
				byname = sp_xcalloc(n_es ? n_es : 1, sizeof(*byname));
				for (size_t k = 0; k < n_es; k++) {
					byname[k].name = es[k].name;
					byname[k].exec = es[k].flags & SHF_EXECINSTR;
				}
				qsort(byname, n_es, sizeof(*byname), cmp_name_flag);
			}
			name_flag key = {.name = m->name};
			name_flag *hit = n_es ? bsearch(&key, byname, n_es, sizeof(*byname), cmp_name_flag)
					      : NULL;
			if (hit) {
				/* Any equally named executable section counts. */
				while (hit > byname && !strcmp(hit[-1].name, m->name))
					hit--;
				exec = false;
				for (; hit < byname + n_es && !strcmp(hit->name, m->name); hit++)
					exec |= hit->exec;
			} else {
				exec = starts_with(m->name, ".text");
			}
		}
		if (!exec)
			continue;
		sp_interval r = {
			.start = m->start,
			.end = m->size > UINT64_MAX - m->start ? UINT64_MAX : m->start + m->size,
			.value = obj,
		};
		SP_PUSH(idx->v, idx->n, idx->cap, r);
	}
	free(byname);
}

static sp_error *load_pair(sp_jit_index *idx, const char *meta_path, const char *elf_path)
{
	uint8_t *data;
	size_t len;
	sp_error *err = sp_read_file(meta_path, &data, &len);
	if (err)
		return err;
	sp_jit_section *meta;
	size_t n_meta;
	err = sp_jit_meta_parse(meta_path, (const char *)data, len, &meta, &n_meta);
	free(data);
	if (err)
		return err;

	int fd = open(elf_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = sp_error_new(SP_E_IO, "%s: cannot open: %s", elf_path, strerror(errno));
		sp_jit_sections_free(meta, n_meta);
		return err;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	elf_sec *es = NULL;
	size_t n_es = 0;
	if (!elf)
		err = sp_error_new(SP_E_LIBELF, "%s: %s", elf_path, elf_errmsg(-1));
	else
		err = elf_sections(elf, elf_path, &es, &n_es);
	elf_end(elf);
	close(fd);
	if (!err) {
		size_t obj = idx->n_paths;
		SP_PUSH(idx->paths, idx->n_paths, idx->cap_paths, sp_xstrdup(elf_path));
		add_object(idx, obj, meta, n_meta, es, n_es);
	}
	elf_secs_free(es, n_es);
	sp_jit_sections_free(meta, n_meta);
	return err;
}

/* Which range an address belongs to, best first: the greatest start (the
 * innermost, when a section encloses others), then the greatest end, then
 * the object loaded last. */
static int cmp_best(const void *a, const void *b)
{
	const sp_interval *x = a, *y = b;
	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->value > y->value ? -1 : x->value < y->value;
}

static sp_error *load_dir(sp_jit_index *idx, const char *dir)
{
	char **names;
	size_t n;
	sp_error *err = sp_dir_names(dir, "", ".meta", &names, &n);
	if (err)
		return sp_error_prefix(err, "JIT directory");
	/* sorted, so object numbering (and ties) do not depend on readdir */
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]) - 5;
		char *meta = sp_xasprintf("%s/%s", dir, names[i]);
		char *elf = sp_xasprintf("%s/%.*s.elf", dir, (int)l, names[i]);
		if (!err && access(elf, F_OK) == 0)
			err = load_pair(idx, meta, elf);
		free(meta);
		free(elf);
		free(names[i]);
	}
	free(names);
	return err;
}

sp_error *sp_jit_index_load(const char *const *dirs, size_t n_dirs, sp_jit_index **out)
{
	*out = NULL;
	elf_version(EV_CURRENT);
	sp_jit_index *idx = sp_xcalloc(1, sizeof(*idx));
	for (size_t i = 0; i < n_dirs; i++) {
		sp_error *err = load_dir(idx, dirs[i]);
		if (err) {
			sp_jit_index_free(idx);
			return err;
		}
	}
	if (idx->n)
		qsort(idx->v, idx->n, sizeof(*idx->v), cmp_best);
	sp_interval_table_build(&idx->table, idx->v, idx->n);
	free(idx->v);
	idx->v = NULL;
	idx->cap = 0;
	*out = idx;
	return NULL;
}

size_t sp_jit_index_count(const sp_jit_index *idx)
{
	return idx ? idx->n : 0;
}

/* One binary search, however the sections nest (cmp_best says which wins). */
const char *sp_jit_index_lookup(const sp_jit_index *idx, uint64_t addr)
{
	if (!idx)
		return NULL;
	size_t obj = sp_interval_table_find(&idx->table, addr);
	return obj == SIZE_MAX ? NULL : idx->paths[obj];
}
