/* jitreg.c — the GDB JIT interface for JIT hosts, and the optional dump of
 * every registered object as NAME.elf + NAME.meta.  The descriptor and the
 * breakpoint function follow the GDB manual's "JIT Interface" exactly:
 * version 1, entries in a doubly linked list headed by first_entry, the
 * entry being (un)registered in relevant_entry, then a call of the
 * never-inlined __jit_debug_register_code on which a debugger stops.  One
 * mutex serialises updates.  Only libc and pthread are used: the .meta
 * writer reads the section headers of the in-memory ELF64 itself, bounds
 * checked, including extended numbering (e_shnum == 0: the count is in
 * section 0's sh_size; e_shstrndx == SHN_XINDEX: the index is in section 0's
 * sh_link).
 */
#include "jitreg/jitreg.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The GDB JIT interface.                                                   */

typedef enum {
	JIT_NOACTION = 0,
	JIT_REGISTER_FN = 1,
	JIT_UNREGISTER_FN = 2,
} jit_actions_t;

struct jit_code_entry {
	struct jit_code_entry *next_entry;
	struct jit_code_entry *prev_entry;
	const char *symfile_addr;
	uint64_t symfile_size;
};

struct jit_descriptor {
	uint32_t version;
	uint32_t action_flag;
	struct jit_code_entry *relevant_entry;
	struct jit_code_entry *first_entry;
};

/* Debuggers look both symbols up by name; they must stay global. */
extern struct jit_descriptor __jit_debug_descriptor;
void __jit_debug_register_code(void);

struct jit_descriptor __jit_debug_descriptor = {1, JIT_NOACTION, NULL, NULL};

__attribute__((noinline, used)) void __jit_debug_register_code(void)
{
	/* Keeps the call (and the function) from being optimised away. */
	__asm__ volatile("" ::: "memory");
}

static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

#define ENTRY_MAGIC 0x4a495452u /* "JITR" while registered */

struct jitreg_entry {
	struct jit_code_entry code; /* first: the list links the entry itself */
	void *copy;                 /* owned copy of the object, or NULL */
	uint32_t magic;
};

/* ------------------------------------------------------------------------ */
/* .meta from the section headers.                                          */

typedef struct {
	char *data;
	size_t len, cap;
	int failed; /* ENOMEM */
} outbuf;

static void out_append(outbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d) {
			b->failed = ENOMEM;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static void out_str(outbuf *b, const char *s)
{
	out_append(b, s, strlen(s));
}

static void out_json_string(outbuf *b, const char *s, size_t n)
{
	out_append(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			out_append(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			out_append(b, esc, 6);
		} else {
			out_append(b, (const char *)&s[i], 1);
		}
	}
	out_append(b, "\"", 1);
}

static int host_elfdata(void)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ELFDATA2LSB;
#else
	return ELFDATA2MSB;
#endif
}

/* Section header I of OBJ into *SH; 0 or -ENOEXEC when out of bounds. */
static int get_shdr(const unsigned char *obj, size_t size, const Elf64_Ehdr *eh, uint64_t i,
		    Elf64_Shdr *sh)
{
	if (eh->e_shentsize < sizeof(Elf64_Shdr) || eh->e_shoff > size)
		return -ENOEXEC;
	if (i > (size - eh->e_shoff) / eh->e_shentsize)
		return -ENOEXEC;
	uint64_t at = eh->e_shoff + i * eh->e_shentsize;
	if (at > size || size - at < sizeof(Elf64_Shdr))
		return -ENOEXEC;
	memcpy(sh, obj + at, sizeof(*sh));
	return 0;
}

static int build_meta(const void *objp, size_t size, outbuf *b)
{
	const unsigned char *obj = objp;
	Elf64_Ehdr eh;
	if (!obj || size < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, obj, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != host_elfdata())
		return -ENOEXEC;
	uint64_t shnum = eh.e_shnum, shstrndx = eh.e_shstrndx;
	Elf64_Shdr sh0;
	if (eh.e_shoff == 0) {
		shnum = 0;
	} else {
		if (get_shdr(obj, size, &eh, 0, &sh0))
			return -ENOEXEC;
		if (shnum == 0)
			shnum = sh0.sh_size;
		if (shstrndx == SHN_XINDEX)
			shstrndx = sh0.sh_link;
		/* Every header must lie inside the object. */
		if (shnum && get_shdr(obj, size, &eh, shnum - 1, &sh0))
			return -ENOEXEC;
	}
	const char *strtab = NULL;
	uint64_t strsz = 0;
	if (shnum && shstrndx != SHN_UNDEF) {
		Elf64_Shdr st;
		if (shstrndx >= shnum || get_shdr(obj, size, &eh, shstrndx, &st) ||
		    st.sh_type == SHT_NOBITS || st.sh_offset > size || st.sh_size > size - st.sh_offset)
			return -ENOEXEC;
		strtab = (const char *)obj + st.sh_offset;
		strsz = st.sh_size;
	}
	out_str(b, "{\"sections\":[");
	for (uint64_t i = 0; i < shnum; i++) {
		Elf64_Shdr sh;
		get_shdr(obj, size, &eh, i, &sh);
		const char *name = "";
		size_t nlen = 0;
		if (i && strtab) {
			if (sh.sh_name >= strsz)
				return -ENOEXEC;
			name = strtab + sh.sh_name;
			const char *nul = memchr(name, '\0', strsz - sh.sh_name);
			if (!nul)
				return -ENOEXEC;
			nlen = (size_t)(nul - name);
		}
		char num[80];
		out_str(b, i ? ",\n{\"name\":" : "\n{\"name\":");
		out_json_string(b, name, nlen);
		snprintf(num, sizeof(num), ",\"start\":%llu,\"size\":%llu}",
			 (unsigned long long)((sh.sh_flags & SHF_ALLOC) ? sh.sh_addr : 0),
			 (unsigned long long)sh.sh_size);
		out_str(b, num);
	}
	out_str(b, "]}\n");
	return b->failed ? -b->failed : 0;
}

static int write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int jitreg_write_meta(const void *obj, size_t size, int fd)
{
	outbuf b = {0};
	int rc = build_meta(obj, size, &b);
	if (rc == 0)
		rc = write_all(fd, b.data, b.len);
	free(b.data);
	return rc;
}

/* Writes DIR/NAME.SUFFIX through a temporary file renamed into place. */
/* Writes DATA to a new temporary file next to DIR/NAME; *TMP gets its
 * path. */
static int write_tmp(const char *dir, const char *name, const void *data, size_t n,
		     char tmp[PATH_MAX])
{
	if (snprintf(tmp, PATH_MAX, "%s/%s.tmp.XXXXXX", dir, name) >= PATH_MAX)
		return -ENAMETOOLONG;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	int rc = write_all(fd, data, n);
	if (rc == 0 && fchmod(fd, 0644) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* Writes the object as DIR/NAME.elf, then DIR/NAME.meta, each complete
 * before it appears.  An explicit NAME replaces older files; the default
 * name, derived from the object's address, must never overwrite the dump of
 * an earlier object that lived at the same address, so "-1", "-2", ... are
 * appended until the .elf can be linked in under a free name. */
static int dump(const void *obj, size_t size, const char *dir, const char *name)
{
	char base[64], chosen[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
	bool fixed = name != NULL;
	if (!fixed) {
		snprintf(base, sizeof(base), "jit-%ld-%llx", (long)getpid(),
			 (unsigned long long)(uintptr_t)obj);
		name = base;
	}
	if (!*name || strchr(name, '/'))
		return -EINVAL;
	outbuf b = {0};
	int rc = build_meta(obj, size, &b);
	if (rc == 0)
		rc = write_tmp(dir, name, obj, size, tmp);
	if (rc != 0) {
		free(b.data);
		return rc;
	}
	rc = -EEXIST;
	for (unsigned k = 0; rc == -EEXIST && k < 10000; k++) {
		int l = k ? snprintf(chosen, sizeof(chosen), "%s-%u", name, k)
			  : snprintf(chosen, sizeof(chosen), "%s", name);
		if (l >= (int)sizeof(chosen) ||
		    snprintf(path, sizeof(path), "%s/%s.elf", dir, chosen) >= (int)sizeof(path)) {
			rc = -ENAMETOOLONG;
			break;
		}
		if (fixed)
			rc = rename(tmp, path) == 0 ? 0 : -errno;
		else
			rc = link(tmp, path) == 0 ? 0 : -errno;
	}
	unlink(tmp); /* after rename: already gone */
	/* The .meta goes last: a reader only looks at complete pairs. */
	if (rc == 0)
		rc = write_tmp(dir, chosen, b.data, b.len, tmp);
	if (rc == 0 && snprintf(path, sizeof(path), "%s/%s.meta", dir, chosen) >= (int)sizeof(path))
		rc = -ENAMETOOLONG;
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = -errno;
		unlink(tmp);
	}
	free(b.data);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Registration.                                                            */

int jitreg_register(const void *obj, size_t size, const jitreg_options *opt, jitreg_entry **out)
{
	jitreg_options o;
	memset(&o, 0, sizeof(o));
	if (out)
		*out = NULL;
	if (!obj || !size || !out)
		return -EINVAL;
	if (opt) {
		size_t n = opt->size == 0 || opt->size > sizeof(o) ? sizeof(o) : opt->size;
		memcpy(&o, opt, n);
	}
	const char *dir = o.dump_dir;
	if (!dir && !(o.flags & JITREG_NO_DUMP)) {
		dir = getenv("JITREG_DUMP_DIR");
		if (dir && !*dir)
			dir = NULL;
	}
	jitreg_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	const void *bytes = obj;
	if (o.flags & JITREG_COPY) {
		e->copy = malloc(size);
		if (!e->copy) {
			free(e);
			return -ENOMEM;
		}
		memcpy(e->copy, obj, size);
		bytes = e->copy;
	}
	if (dir) {
		int rc = dump(bytes, size, dir, o.name);
		if (rc) {
			free(e->copy);
			free(e);
			return rc;
		}
	}
	e->code.symfile_addr = bytes;
	e->code.symfile_size = size;
	e->magic = ENTRY_MAGIC;

	pthread_mutex_lock(&jit_lock);
	e->code.prev_entry = NULL;
	e->code.next_entry = __jit_debug_descriptor.first_entry;
	if (e->code.next_entry)
		e->code.next_entry->prev_entry = &e->code;
	__jit_debug_descriptor.first_entry = &e->code;
	__jit_debug_descriptor.relevant_entry = &e->code;
	__jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
	__jit_debug_register_code();
	pthread_mutex_unlock(&jit_lock);
	*out = e;
	return 0;
}

int jitreg_unregister(jitreg_entry *e)
{
	if (!e)
		return 0;
	if (e->magic != ENTRY_MAGIC)
		return -EINVAL;
	pthread_mutex_lock(&jit_lock);
	struct jit_code_entry *c = &e->code;
	if (c->prev_entry)
		c->prev_entry->next_entry = c->next_entry;
	else
		__jit_debug_descriptor.first_entry = c->next_entry;
	if (c->next_entry)
		c->next_entry->prev_entry = c->prev_entry;
	__jit_debug_descriptor.relevant_entry = c;
	__jit_debug_descriptor.action_flag = JIT_UNREGISTER_FN;
	__jit_debug_register_code();
	/* The entry is about to be freed: leave nothing pointing at it. */
	__jit_debug_descriptor.relevant_entry = NULL;
	__jit_debug_descriptor.action_flag = JIT_NOACTION;
	e->magic = 0;
	pthread_mutex_unlock(&jit_lock);
	free(e->copy);
	free(e);
	return 0;
}
