/* gdbjit.c — recovers the objects a process registered through the GDB JIT
 * interface (spec/FORMATS.md §5.3), from the live process or from its core
 * file, and writes them as jit-<n>.elf + jit-<n>.meta.  The descriptor is
 * found by name, `__jit_debug_descriptor`, in the symbol tables of the
 * executable and of every mapped ELF file (it lives in libjitreg.so, in
 * LLVM, or in the executable itself), each at its load bias; the executable
 * is searched first, as the dynamic linker does, and the first candidate
 * whose memory holds a version-1 descriptor with entries wins.  The list is
 * walked first_entry -> next_entry, bounded in length and stopped on a
 * cycle.  Memory comes from process_vm_readv (else /proc/PID/mem) for a live
 * process, and from the PT_LOAD segments of a core file, whose NT_FILE note
 * gives the libraries' load addresses and NT_AUXV the executable's entry.
 * Only 64-bit little- or big-endian targets of this machine's byte order
 * are read (the layouts of §5.3 on LP64).
 */
#include "symbolize/sources/sources.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_ENTRIES 1000000
#define MAX_OBJECT_SIZE (1ULL << 30)
#define DESCRIPTOR "__jit_debug_descriptor"

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

void sp_jit_objects_clear(sp_jit_objects *objs)
{
	for (size_t i = 0; i < objs->n; i++)
		free(objs->v[i].data);
	free(objs->v);
	memset(objs, 0, sizeof(*objs));
}

/* ------------------------------------------------------------------------ */
/* Memory sources.                                                          */

typedef struct {
	uint64_t vaddr, memsz, offset, filesz;
} core_seg;

typedef struct {
	pid_t pid;       /* live process, or 0 */
	int memfd;       /* /proc/PID/mem, opened on first need */
	bool vm_broken;  /* process_vm_readv refused: use memfd */
	const char *core_path;
	int core_fd;
	uint64_t core_size;
	core_seg *segs;
	size_t n_segs, cap_segs;
	sp_interval_table seg_table; /* address -> the first PT_LOAD holding it */
} memsrc;

/* What reading another process's memory needs, said once for every place it is refused. */
#define PTRACE_DENIED                                                                      \
	"permission denied (ptrace): reading another user's process needs root or "      \
	"CAP_SYS_PTRACE, and /proc/sys/kernel/yama/ptrace_scope may forbid it"

static sp_error *read_live(memsrc *m, uint64_t addr, void *buf, size_t n)
{
	if (!m->vm_broken) {
		struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
		ssize_t r = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
		if (r == (ssize_t)n)
			return NULL;
		if (r < 0 && (errno == ENOSYS || errno == EPERM))
			m->vm_broken = true; /* try /proc/PID/mem */
		else if (r < 0 && errno == ESRCH)
			return sp_error_new(SP_E_IO, "process %d: no such process", (int)m->pid);
		else
			return sp_error_new(SP_E_IO, "process %d: unreadable memory at %#llx (%zu bytes)%s%s",
					    (int)m->pid, (unsigned long long)addr, n,
					    r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
	}
	if (m->memfd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)m->pid);
		m->memfd = open(path, O_RDONLY | O_CLOEXEC);
		if (m->memfd < 0 && (errno == EACCES || errno == EPERM))
			return sp_error_new(SP_E_IO, "process %d: %s", (int)m->pid, PTRACE_DENIED);
		if (m->memfd < 0 && errno == ENOENT)
			return sp_error_new(SP_E_IO, "process %d: no such process", (int)m->pid);
		if (m->memfd < 0)
			return sp_error_new(SP_E_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(m->memfd, (char *)buf + got, n - got, (off_t)(addr + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return sp_error_new(SP_E_IO, "process %d: unreadable memory at %#llx (%zu bytes)%s%s",
					    (int)m->pid, (unsigned long long)(addr + got), n - got,
					    r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
		got += (size_t)r;
	}
	return NULL;
}

static sp_error *read_core(memsrc *m, uint64_t addr, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		uint64_t a = addr + got;
		size_t si = sp_interval_table_find(&m->seg_table, a);
		const core_seg *s = si == SIZE_MAX ? NULL : &m->segs[si];
		if (!s)
			return sp_error_new(SP_E_IO, "%s: unreadable memory at %#llx: no PT_LOAD segment holds it",
					    m->core_path, (unsigned long long)a);
		uint64_t in = a - s->vaddr;
		if (in >= s->filesz)
			return sp_error_new(SP_E_IO, "%s: unreadable memory at %#llx: the segment at %#llx was not dumped",
					    m->core_path, (unsigned long long)a, (unsigned long long)s->vaddr);
		size_t chunk = n - got;
		if (chunk > s->filesz - in)
			chunk = (size_t)(s->filesz - in);
		uint64_t off = s->offset + in;
		if (off > m->core_size || chunk > m->core_size - off)
			return sp_error_new(SP_E_IO, "%s: truncated core: memory at %#llx is at file offset %llu, file has %llu bytes",
					    m->core_path, (unsigned long long)a, (unsigned long long)(off + chunk),
					    (unsigned long long)m->core_size);
		ssize_t r = pread(m->core_fd, (char *)buf + got, chunk, (off_t)off);
		if (r != (ssize_t)chunk)
			return sp_error_new(SP_E_IO, "%s: read failed at offset %llu", m->core_path,
					    (unsigned long long)off);
		got += chunk;
	}
	return NULL;
}

static sp_error *mem_read(memsrc *m, uint64_t addr, void *buf, size_t n)
{
	return m->pid ? read_live(m, addr, buf, n) : read_core(m, addr, buf, n);
}

/* ------------------------------------------------------------------------ */
/* Finding the descriptor.                                                  */

typedef struct {
	uint64_t start, end, offset; /* one mapping of a file */
} file_map;

typedef struct {
	char *path;
	file_map *maps;
	size_t n_maps, cap_maps;
} mapped_file;

typedef struct {
	mapped_file *v;
	size_t n, cap;
} mapped_files;

static void mapped_files_clear(mapped_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].path);
		free(f->v[i].maps);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static void mapped_add(mapped_files *f, const char *path, uint64_t start, uint64_t end,
		       uint64_t offset)
{
	mapped_file *mf = NULL;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].path, path))
			mf = &f->v[i];
	if (!mf) {
		mapped_file nf = {.path = sp_xstrdup(path)};
		SP_PUSH(f->v, f->n, f->cap, nf);
		mf = &f->v[f->n - 1];
	}
	file_map m = {start, end, offset};
	SP_PUSH(mf->maps, mf->n_maps, mf->cap_maps, m);
}

/* The value of DESCRIPTOR in PATH's symbol tables and its load bias given
 * the file's mappings (NULL/0 maps: bias from ENTRY_BIAS).  Returns false
 * when the file has no such defined symbol or cannot be placed. */
static bool find_symbol(const char *path, const file_map *maps, size_t n_maps,
			const uint64_t *entry_bias, uint64_t *addr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool found = false;
	uint64_t value = 0;
	GElf_Ehdr eh;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    gelf_getclass(e) != ELFCLASS64)
		goto out;
	for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (nm && !strcmp(nm, DESCRIPTOR)) {
				value = sym.st_value;
				found = true;
				break;
			}
		}
	}
	if (!found)
		goto out;
	if (eh.e_type == ET_EXEC) {
		*addr = value;
		goto out;
	}
	if (entry_bias) {
		*addr = value + *entry_bias;
		goto out;
	}
	/* bias = start of a mapping + (p_offset - its file offset) - p_vaddr,
	 * for a PT_LOAD whose file offset the mapping covers. */
	found = false;
	size_t phnum;
	if (elf_getphdrnum(e, &phnum) != 0)
		goto out;
	for (size_t i = 0; i < phnum && !found; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		for (size_t k = 0; k < n_maps; k++) {
			const file_map *m = &maps[k];
			if (ph.p_offset >= m->offset && ph.p_offset - m->offset < m->end - m->start) {
				uint64_t bias = m->start + (ph.p_offset - m->offset) - ph.p_vaddr;
				*addr = value + bias;
				found = true;
				break;
			}
		}
	}
out:
	elf_end(e);
	close(fd);
	return found;
}

/* Reads the list headed at DESC into OUT. */
static sp_error *walk(memsrc *m, uint64_t desc, sp_jit_objects *out)
{
	uint8_t d[24];
	sp_error *err = mem_read(m, desc, d, sizeof(d));
	if (err)
		return sp_error_prefix(err, DESCRIPTOR " at %#llx", (unsigned long long)desc);
	uint32_t version;
	uint64_t entry;
	memcpy(&version, d, 4);
	memcpy(&entry, d + 16, 8);
	if (version != 1)
		return sp_error_new(SP_E_MALFORMED, DESCRIPTOR " at %#llx: version %u, expected 1",
				    (unsigned long long)desc, version);
	out->descriptor_addr = desc;
	sp_u64map seen = {0};
	for (size_t n = 0; entry; n++) {
		if (n >= MAX_ENTRIES) {
			err = sp_error_new(SP_E_LIMIT, "JIT list at %#llx: more than %d entries",
					   (unsigned long long)desc, MAX_ENTRIES);
			break;
		}
		uint64_t dummy;
		if (sp_u64map_get(&seen, entry, &dummy)) {
			err = sp_error_new(SP_E_MALFORMED, "JIT list at %#llx: cycle at entry %zu (%#llx)",
					   (unsigned long long)desc, n, (unsigned long long)entry);
			break;
		}
		sp_u64map_put(&seen, entry, n);
		uint8_t e[32];
		if ((err = mem_read(m, entry, e, sizeof(e)))) {
			err = sp_error_prefix(err, "JIT entry %zu at %#llx", n, (unsigned long long)entry);
			break;
		}
		uint64_t next, addr, size;
		memcpy(&next, e, 8);
		memcpy(&addr, e + 16, 8);
		memcpy(&size, e + 24, 8);
		if (size > MAX_OBJECT_SIZE) {
			err = sp_error_new(SP_E_LIMIT, "JIT entry %zu at %#llx: object of %llu bytes (limit %llu)",
					   n, (unsigned long long)entry, (unsigned long long)size,
					   MAX_OBJECT_SIZE);
			break;
		}
		sp_jit_object o = {.entry_addr = entry, .symfile_addr = addr, .size = (size_t)size};
		o.data = sp_xmalloc(size ? size : 1);
		if (size && (err = mem_read(m, addr, o.data, (size_t)size))) {
			free(o.data);
			err = sp_error_prefix(err, "JIT entry %zu at %#llx: object of %llu bytes", n,
					      (unsigned long long)entry, (unsigned long long)size);
			break;
		}
		SP_PUSH(out->v, out->n, out->cap, o);
		entry = next;
	}
	sp_u64map_free(&seen);
	return err;
}

/* Tries every candidate address in order: the first version-1 descriptor
 * with entries wins, else the first readable one (an empty list). */
static sp_error *walk_candidates(memsrc *m, const uint64_t *cand, size_t n_cand,
				 const char *where, sp_jit_objects *out)
{
	if (!n_cand)
		return sp_error_new(SP_E_NOT_FOUND,
				    "%s: no symbol " DESCRIPTOR " in the executable or any mapped ELF file (does the program register JIT code through the GDB JIT interface?)",
				    where);
	sp_error *first_err = NULL;
	ssize_t empty = -1;
	for (size_t i = 0; i < n_cand; i++) {
		sp_jit_objects tmp = {0};
		sp_error *err = walk(m, cand[i], &tmp);
		if (!err && tmp.n) {
			sp_error_free(first_err);
			*out = tmp;
			return NULL;
		}
		if (!err && empty < 0)
			empty = (ssize_t)i;
		sp_jit_objects_clear(&tmp);
		if (err && !first_err)
			first_err = err;
		else
			sp_error_free(err);
	}
	if (empty >= 0) {
		sp_error_free(first_err);
		out->descriptor_addr = cand[empty];
		return NULL;
	}
	return first_err;
}

static void push_candidate(uint64_t **cand, size_t *n, size_t *cap, uint64_t addr)
{
	for (size_t i = 0; i < *n; i++)
		if ((*cand)[i] == addr)
			return;
	SP_PUSH(*cand, *n, *cap, addr);
}

sp_error *sp_jit_read_process(pid_t pid, sp_jit_objects *out)
{
	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return sp_error_new(SP_E_IO, "process %d: no such process", (int)pid);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		return sp_error_new(SP_E_IO, "process %d: %s", (int)pid, PTRACE_DENIED);
	if (fd >= 0)
		close(fd);
	uint8_t *data;
	size_t len;
	sp_error *err = sp_read_file(path, &data, &len);
	if (err)
		return err;
	mapped_files files = {0};
	char exe[4096];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t el = readlink(path, exe, sizeof(exe) - 1);
	exe[el > 0 ? el : 0] = '\0';
	if (el > 10 && !strcmp(exe + el - 10, " (deleted)"))
		exe[el - 10] = '\0';
	for (char *p = (char *)data, *nl; p < (char *)data + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)((char *)data + len - p));
		if (!nl)
			nl = (char *)data + len;
		*nl = '\0';
		unsigned long long s, e, off;
		int name_at = 0;
		if (sscanf(p, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &name_at) < 3 || !name_at)
			continue;
		char *name = p + name_at;
		if (name[0] != '/')
			continue;
		size_t nl_len = strlen(name);
		if (nl_len > 10 && !strcmp(name + nl_len - 10, " (deleted)"))
			name[nl_len - 10] = '\0';
		mapped_add(&files, name, s, e, off);
	}
	free(data);

	uint64_t *cand = NULL;
	size_t n_cand = 0, cap_cand = 0;
	/* The executable first, then the other files in address order. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < files.n; i++) {
			bool is_exe = !strcmp(files.v[i].path, exe);
			if (is_exe != (pass == 0))
				continue;
			uint64_t addr;
			/* The file as the process sees it (its mount namespace). */
			char *via_root = sp_xasprintf("/proc/%d/root%s", (int)pid, files.v[i].path);
			if (find_symbol(via_root, files.v[i].maps, files.v[i].n_maps, NULL, &addr) ||
			    find_symbol(files.v[i].path, files.v[i].maps, files.v[i].n_maps, NULL, &addr))
				push_candidate(&cand, &n_cand, &cap_cand, addr);
			free(via_root);
		}
	}
	mapped_files_clear(&files);
	memsrc m = {.pid = pid, .memfd = -1, .core_fd = -1};
	char where[32];
	snprintf(where, sizeof(where), "process %d", (int)pid);
	err = walk_candidates(&m, cand, n_cand, where, out);
	if (m.memfd >= 0)
		close(m.memfd);
	free(cand);
	return err;
}

/* NT_FILE: count, page size, count x {start, end, page offset}, names. */
static sp_error *parse_nt_file(const char *core, const uint8_t *d, size_t n, mapped_files *out)
{
	if (n < 16)
		return sp_error_new(SP_E_MALFORMED, "%s: NT_FILE note of %zu bytes, expected at least 16", core, n);
	uint64_t count, page;
	memcpy(&count, d, 8);
	memcpy(&page, d + 8, 8);
	if (count > (n - 16) / 24)
		return sp_error_new(SP_E_MALFORMED, "%s: NT_FILE note lists %llu files in %zu bytes",
				    core, (unsigned long long)count, n);
	const char *names = (const char *)d + 16 + count * 24, *end = (const char *)d + n;
	for (uint64_t i = 0; i < count; i++) {
		const char *nul = memchr(names, '\0', (size_t)(end - names));
		if (!nul)
			return sp_error_new(SP_E_MALFORMED, "%s: NT_FILE note: name %llu not terminated",
					    core, (unsigned long long)i);
		uint64_t s, e, off;
		memcpy(&s, d + 16 + i * 24, 8);
		memcpy(&e, d + 24 + i * 24, 8);
		memcpy(&off, d + 32 + i * 24, 8);
		if (e >= s)
			mapped_add(out, names, s, e, off * page);
		names = nul + 1;
	}
	return NULL;
}

static bool same_file(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	bool same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

/* The notes of segment PH of M's core E: the mapped files (NT_FILE) into
 * FILES, and the program's entry point (AT_ENTRY of NT_AUXV), when there. */
static sp_error *read_notes(const memsrc *m, Elf *e, const GElf_Phdr *ph, mapped_files *files,
			    bool *have_entry, uint64_t *at_entry)
{
	const char *core = m->core_path;
	if (ph->p_offset > m->core_size || ph->p_filesz > m->core_size - ph->p_offset)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: truncated core: notes end at offset %llu, file has %llu bytes",
				    core, (unsigned long long)(ph->p_offset + ph->p_filesz),
				    (unsigned long long)m->core_size);
	Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_NHDR);
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;
	while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const uint8_t *desc = (const uint8_t *)d->d_buf + doff;
		if (nh.n_type == NT_FILE) {
			sp_error *err = parse_nt_file(core, desc, nh.n_descsz, files);
			if (err)
				return err;
		} else if (nh.n_type == NT_AUXV) {
			for (size_t k = 0; k + 16 <= nh.n_descsz; k += 16) {
				uint64_t type, val;
				memcpy(&type, desc + k, 8);
				memcpy(&val, desc + k + 8, 8);
				if (type == AT_ENTRY) {
					*at_entry = val;
					*have_entry = true;
				}
			}
		}
	}
	return NULL;
}

sp_error *sp_jit_read_core(const char *core, const char *exe, sp_jit_objects *out)
{
	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	memsrc m = {.core_path = core, .memfd = -1};
	m.core_fd = open(core, O_RDONLY | O_CLOEXEC);
	if (m.core_fd < 0)
		return sp_error_new(SP_E_IO, "%s: cannot open: %s", core, strerror(errno));
	off_t sz = lseek(m.core_fd, 0, SEEK_END);
	m.core_size = sz > 0 ? (uint64_t)sz : 0;
	sp_error *err = NULL;
	mapped_files files = {0};
	uint64_t *cand = NULL;
	size_t n_cand = 0, cap_cand = 0;
	bool have_entry = false;
	uint64_t at_entry = 0;
	Elf *e = elf_begin(m.core_fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t phnum;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		err = sp_error_new(SP_E_UNRECOGNIZED, "%s: not an ELF file", core);
		goto out;
	}
	if (eh.e_type != ET_CORE || gelf_getclass(e) != ELFCLASS64) {
		err = sp_error_new(SP_E_UNSUPPORTED, "%s: not a 64-bit core file (e_type %u)", core,
				   (unsigned)eh.e_type);
		goto out;
	}
	if (elf_getphdrnum(e, &phnum) != 0) {
		err = sp_error_new(SP_E_LIBELF, "%s: %s", core, elf_errmsg(-1));
		goto out;
	}
	for (size_t i = 0; i < phnum && !err; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			err = sp_error_new(SP_E_LIBELF, "%s: program header %zu: %s", core, i, elf_errmsg(-1));
			break;
		}
		if (ph.p_type == PT_LOAD) {
			core_seg s = {ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz};
			SP_PUSH(m.segs, m.n_segs, m.cap_segs, s);
		} else if (ph.p_type == PT_NOTE) {
			err = read_notes(&m, e, &ph, &files, &have_entry, &at_entry);
		}
	}
	if (err)
		goto out;
	/* segments in program-header order, the first holding an address wins */
	sp_interval *r = sp_xreallocarray(NULL, m.n_segs ? m.n_segs : 1, sizeof(*r));
	for (size_t i = 0; i < m.n_segs; i++) {
		const core_seg *g = &m.segs[i];
		r[i] = (sp_interval){g->vaddr,
				     g->memsz > UINT64_MAX - g->vaddr ? UINT64_MAX : g->vaddr + g->memsz,
				     i};
	}
	sp_interval_table_build(&m.seg_table, r, m.n_segs);
	free(r);

	/* The executable: its bias from AT_ENTRY, else from its NT_FILE maps. */
	int xfd = open(exe, O_RDONLY | O_CLOEXEC);
	if (xfd < 0) {
		err = sp_error_new(SP_E_IO, "%s: cannot open: %s", exe, strerror(errno));
		goto out;
	}
	Elf *xe = elf_begin(xfd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr xeh;
	bool ok = xe && elf_kind(xe) == ELF_K_ELF && gelf_getehdr(xe, &xeh);
	elf_end(xe);
	close(xfd);
	if (!ok) {
		err = sp_error_new(SP_E_UNRECOGNIZED, "%s: not an ELF file", exe);
		goto out;
	}
	uint64_t addr, bias = have_entry ? at_entry - xeh.e_entry : 0;
	const mapped_file *xmf = NULL;
	for (size_t i = 0; i < files.n && !xmf; i++)
		if (same_file(files.v[i].path, exe))
			xmf = &files.v[i];
	if (have_entry ? find_symbol(exe, NULL, 0, &bias, &addr)
		       : xmf && find_symbol(exe, xmf->maps, xmf->n_maps, NULL, &addr))
		push_candidate(&cand, &n_cand, &cap_cand, addr);
	for (size_t i = 0; i < files.n; i++) {
		if (&files.v[i] == xmf || same_file(files.v[i].path, exe))
			continue;
		if (find_symbol(files.v[i].path, files.v[i].maps, files.v[i].n_maps, NULL, &addr))
			push_candidate(&cand, &n_cand, &cap_cand, addr);
	}
	err = walk_candidates(&m, cand, n_cand, core, out);
out:
	elf_end(e);
	close(m.core_fd);
	free(m.segs);
	sp_interval_table_clear(&m.seg_table);
	free(cand);
	mapped_files_clear(&files);
	return err;
}

/* ------------------------------------------------------------------------ */
/* Writing.                                                                 */

static sp_error *write_bytes(const char *path, const void *data, size_t n,
			     const sp_jit_section *secs, size_t n_secs)
{
	sp_sink *s;
	sp_error *err = sp_sink_file_new(path, &s);
	if (err)
		return err;
	if (secs)
		sp_jit_meta_write(s, secs, n_secs);
	else
		sp_sink_write(s, data, n);
	err = sp_sink_finish(s);
	sp_sink_free(s);
	return err;
}

sp_error *sp_jit_objects_write(const sp_jit_objects *objs, const char *dir)
{
	for (size_t i = 0; i < objs->n; i++) {
		const sp_jit_object *o = &objs->v[i];
		char *name = sp_xasprintf("object %zu at %#llx", i, (unsigned long long)o->symfile_addr);
		sp_jit_section *secs;
		size_t n_secs;
		sp_error *err = sp_jit_object_sections(name, o->data, o->size, &secs, &n_secs);
		free(name);
		if (err)
			return err;
		char *elf = sp_xasprintf("%s/jit-%zu.elf", dir, i), *meta = sp_xasprintf("%s/jit-%zu.meta", dir, i);
		err = write_bytes(elf, o->data, o->size, NULL, 0);
		if (!err)
			err = write_bytes(meta, NULL, 0, secs, n_secs);
		free(elf);
		free(meta);
		sp_jit_sections_free(secs, n_secs);
		if (err)
			return err;
	}
	return NULL;
}
