/* elfinfo.c — the identity of an ELF file, read with libelf: its type, its
 * PT_LOAD headers, its build id (GNU note, else Go's .note.go.buildid),
 * where .text and _stext are, whether it carries DWARF or a symbol table,
 * its .gnu_debuglink (file name + CRC-32) and .gnu_debugdata, and the
 * file-system identity (device, inode, size, mtime) used as a cache key
 * when there is no build id.  Also the CRC-32 that .gnu_debuglink uses.
 */
#include "symbolize/elf/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NT_GO_BUILD_ID 4

static sp_error *elf_err(const char *path, const char *what)
{
	return sp_error_new(SP_E_LIBELF, "%s: %s: %s", path, what, elf_errmsg(-1));
}

/* Looks through one block of notes for the GNU build id (name "GNU", type
 * NT_GNU_BUILD_ID).  Sets *ID (caller frees) when there is exactly one; two
 * in one block is an error, as nobody could tell which one is meant. */
static sp_error *gnu_build_id(const char *path, Elf_Data *data, char **id)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
			continue;
		if (*id) {
			free(*id);
			*id = NULL;
			return sp_error_new(SP_E_MALFORMED,
					    "%s: two GNU build id notes: cannot tell which one to use",
					    path);
		}
		*id = sp_hex_string((const uint8_t *)data->d_buf + desc_off, nh.n_descsz);
	}
	return NULL;
}

/* The Go build id: the note named "Go" of type 4 (the Go linker puts it in
 * section .note.go.buildid, inside a PT_NOTE); its descriptor is the build
 * id string itself (e.g. "abc/def/ghi/jkl"), used as it is. */
static char *go_build_id(Elf_Data *data)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		off = next;
		/* The Go linker writes the name as "Go\0\0" (namesz 4). */
		if (nh.n_type == NT_GO_BUILD_ID && (nh.n_namesz == 3 || nh.n_namesz == 4) &&
		    memcmp((const char *)data->d_buf + name_off, "Go", 3) == 0 &&
		    nh.n_descsz > 0) {
			const char *d = (const char *)data->d_buf + desc_off;
			return sp_xstrndup(d, strnlen(d, nh.n_descsz));
		}
	}
	return NULL;
}

/* .gnu_debuglink: NUL-terminated file name, padding to 4 bytes, then the
 * CRC-32 of the debug file as a 32-bit word in the file's byte order. */
static void read_debuglink(Elf *elf, Elf_Scn *scn, sp_elf_info *out)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 5)
		return;
	const uint8_t *p = d->d_buf;
	size_t len = strnlen((const char *)p, d->d_size);
	size_t crc_off = (len + 1 + 3) & ~(size_t)3;
	if (len == 0 || len == d->d_size || crc_off + 4 > d->d_size)
		return;
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	uint32_t crc;
	if (ident && ident[EI_DATA] == ELFDATA2MSB)
		crc = (uint32_t)p[crc_off] << 24 | (uint32_t)p[crc_off + 1] << 16 |
		      (uint32_t)p[crc_off + 2] << 8 | p[crc_off + 3];
	else
		crc = (uint32_t)p[crc_off + 3] << 24 | (uint32_t)p[crc_off + 2] << 16 |
		      (uint32_t)p[crc_off + 1] << 8 | p[crc_off];
	out->debuglink = sp_xstrndup((const char *)p, len);
	out->debuglink_crc = crc;
}

/* Asks for the bytes of section SH of ELF (mapped by read_elf's caller)
 * ahead of reading them. */
static void willneed(Elf *elf, const GElf_Shdr *sh)
{
	size_t fsize;
	const char *f = elf_rawfile(elf, &fsize);
	long page = sysconf(_SC_PAGESIZE);
	if (!f || page <= 0 || sh->sh_type == SHT_NOBITS || sh->sh_offset >= fsize)
		return;
	size_t len = sh->sh_size < fsize - sh->sh_offset ? sh->sh_size : fsize - sh->sh_offset;
	uintptr_t start = (uintptr_t)f + sh->sh_offset;
	uintptr_t from = start & ~(uintptr_t)(page - 1);
	(void)madvise((void *)from, len + (start - from), MADV_WILLNEED);
}

/* Address of _stext in the symbol table SCN. */
static void find_stext(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, sp_elf_info *out)
{
	/* read whole, with its names: asked for in large reads (the file is
	 * mapped for reading at random) */
	willneed(elf, sh);
	Elf_Scn *str = elf_getscn(elf, sh->sh_link);
	GElf_Shdr str_sh;
	if (str && gelf_getshdr(str, &str_sh))
		willneed(elf, &str_sh);
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize == 0)
		return;
	size_t n = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && strcmp(name, "_stext") == 0) {
			out->has_stext = true;
			out->stext = sym.st_value;
			return;
		}
	}
}

static sp_error *read_elf(Elf *elf, const char *path, sp_elf_info *out)
{
	GElf_Ehdr eh;
	size_t nph, shstrndx;
	sp_error *err = NULL;
	Elf_Scn *symtab_scn = NULL;
	GElf_Shdr symtab_sh = { 0 };
	char *go_id = NULL;
	size_t cap = 0;

	if (!gelf_getehdr(elf, &eh))
		return elf_err(path, "reading the ELF header");
	out->elf_type = eh.e_type;
	out->elf_class = eh.e_ident[EI_CLASS];

	if (elf_getphdrnum(elf, &nph) != 0)
		return elf_err(path, "counting program headers");
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_err(path, "reading a program header");
		if (ph.p_type == PT_LOAD) {
			sp_phdr s = {
				.type = ph.p_type,
				.flags = ph.p_flags,
				.offset = ph.p_offset,
				.vaddr = ph.p_vaddr,
				.filesz = ph.p_filesz,
				.memsz = ph.p_memsz,
				.align = ph.p_align,
			};
			SP_PUSH(out->loads, out->n_loads, cap, s);
		} else if (ph.p_type == PT_NOTE && ph.p_filesz > 0 && (!out->build_id || !go_id)) {
			Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
							   ph.p_filesz,
							   ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (d && !go_id)
				go_id = go_build_id(d);
			if (d && !out->build_id && (err = gnu_build_id(path, d, &out->build_id)))
				goto fail;
		}
	}

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return elf_err(path, "finding the section name table");
	bool notes_from_sections = !out->build_id;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return elf_err(path, "reading a section header");
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (sh.sh_type == SHT_NOTE && sh.sh_size > 0 &&
		    (!go_id || (notes_from_sections && !out->build_id))) {
			Elf_Data *d = elf_getdata(scn, NULL);
			if (d && !go_id)
				go_id = go_build_id(d);
			if (d && notes_from_sections && !out->build_id &&
			    (err = gnu_build_id(path, d, &out->build_id)))
				goto fail;
		} else if (strcmp(name, ".text") == 0) {
			out->has_text = true;
			out->text_addr = sh.sh_addr;
		} else if ((strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0) &&
			   sh.sh_type != SHT_NOBITS && sh.sh_size > 0) {
			out->has_dwarf = true;
		} else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			/* Entry 0 is the null symbol: more than one means names. */
			if (sh.sh_entsize > 0 && sh.sh_size / sh.sh_entsize > 1)
				out->has_symtab = true;
			if (sh.sh_type == SHT_SYMTAB) {
				
				symtab_scn = scn;
				symtab_sh = sh;
			}
		} else if (strcmp(name, ".gnu_debuglink") == 0 && !out->debuglink) {
			read_debuglink(elf, scn, out);
		} else if (strcmp(name, ".gnu_debugdata") == 0) {
			out->has_debugdata = true;
		}
	}

	/* Reading the symbol table is costly: only kernels need _stext.  A
	 * kernel is named vmlinux, or (in a build-id tree) loads itself in
	 * the kernel half of the address space. */
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	bool kernel = strstr(base, "vmlinux") != NULL;
	for (size_t i = 0; i < out->n_loads && !kernel; i++)
		kernel = out->loads[i].vaddr >= SP_KERNEL_HALF;
	if (symtab_scn && kernel)
		find_stext(elf, symtab_scn, &symtab_sh, out);

	if (!out->build_id && go_id) {
		out->build_id = go_id;
		go_id = NULL;
	}
fail:
	free(go_id);
	return err;
}

sp_error *sp_elf_info_read(const char *path, sp_elf_info *out)
{
	struct stat st;
	sp_error *err = NULL;

	memset(out, 0, sizeof(*out));
	/* ST is the file's own identity; what is read may be its decompressed
	 * copy (a compressed kernel module) */
	int fd = sp_object_fd(path, &st, &err);
	if (fd < 0)
		return err ? err
			   : sp_error_new(errno == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "%s: %s",
					  path, strerror(errno));
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a regular file", path);
	}
	out->path = sp_xstrdup(path);
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	out->size = st.st_size;
	out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;

	/* elf_version only declares which ELF version we speak; it is safe
	 * to call every time. */
	elf_version(EV_CURRENT);
	/* Headers, notes and a few small sections, scattered over the file:
	 * mapped for reading at random, so that a cold page cache reads the
	 * pages touched and not the device's read-ahead window around each
	 * (libelf's own mapping would be touched before any advice).  A
	 * private writable copy, as libelf's: it converts foreign byte
	 * orders in place. */
	struct stat rst;
	size_t size = fstat(fd, &rst) == 0 && rst.st_size > 0 ? (size_t)rst.st_size : 0;
	void *map = size ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	Elf *elf;
	if (map != MAP_FAILED) {
		(void)madvise(map, size, MADV_RANDOM);
		elf = elf_memory(map, size);
	} else {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	}
	if (!elf) {
		err = elf_err(path, "opening");
	} else if (elf_kind(elf) != ELF_K_ELF) {
		err = sp_error_new(SP_E_UNRECOGNIZED, "%s: not an ELF file", path);
	} else {
		err = read_elf(elf, path, out);
	}
	elf_end(elf);
	if (map != MAP_FAILED)
		munmap(map, size);
	close(fd);
	if (err)
		sp_elf_info_clear(out);
	return err;
}

void sp_elf_info_clear(sp_elf_info *info)
{
	if (!info)
		return;
	free(info->path);
	free(info->build_id);
	free(info->loads);
	free(info->debuglink);
	memset(info, 0, sizeof(*info));
}

sp_error *sp_file_crc32(const char *path, uint32_t *crc)
{
	uint32_t table[256];
	uint8_t buf[65536];
	uint32_t c = 0xffffffffu;
	ssize_t n;

	/* The reflected CRC-32 (polynomial 0xEDB88320), as zlib and
	 * gnu_debuglink_crc32 compute it.  The table is cheap to build. */
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t v = i;
		for (int k = 0; k < 8; k++)
			v = (v & 1) ? 0xedb88320u ^ (v >> 1) : v >> 1;
		table[i] = v;
	}

	sp_error *err;
	int fd = sp_open_regular(path, NULL, &err); /* a candidate: maybe a FIFO by now */
	if (fd < 0)
		return err;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = sp_error_new(SP_E_IO, "%s: read: %s", path, strerror(errno));
			close(fd);
			return err;
		}
		for (ssize_t i = 0; i < n; i++)
			c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
	}
	close(fd);
	*crc = c ^ 0xffffffffu;
	return NULL;
}
