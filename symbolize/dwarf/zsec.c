/* zsec.c — compressed debug sections (SHF_COMPRESSED, zlib or zstd): their
 * compression header read, their data decompressed through common/'s
 * wrapper (common/decompress.c), whole or, for .debug_info and
 * .debug_line, lazily (sp_lazy: one address needs one compile unit, a
 * small part of sections that are megabytes inflated).  The size a header
 * claims is checked by the wrapper's bomb rule before anything is
 * allocated.
 */
#include "symbolize/dwarf/dwarfp.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

sp_error *sp_section_decompress(const char *path, const char *name, const GElf_Chdr *ch,
			       const char *src, size_t n, void **out, sp_lazy **lazy)
{
	sp_codec codec = ch->ch_type == ELFCOMPRESS_ZSTD ? SP_CODEC_ZSTD : SP_CODEC_ZLIB;
	const uint8_t *data = (const uint8_t *)src;
	char *where = sp_xasprintf("%s: section %s", path, name);
	sp_decompress_limit lim = {.name = where};
	sp_error *e = sp_decompress_check_size(codec, &lim, data, n, ch->ch_size);
	free(where);
	if (e)
		return e;
	/* the process's budget, with what it holds already, must have the room
	 * (its caches give back what they can first), whether the section is
	 * inflated now or as far as it is read */
	char *what = sp_xasprintf("%s: section %s inflated", path, name);
	e = sp_mem_make_room(ch->ch_size, what);
	free(what);
	if (e)
		return e;
	if (lazy && codec == SP_CODEC_ZLIB && ch->ch_size &&
	    (*lazy = sp_lazy_new(codec, data, n, ch->ch_size)) != NULL)
		return NULL;
	void *buf = malloc(ch->ch_size ? ch->ch_size : 1);
	if (!buf)
		return sp_error_new(SP_E_MALFORMED, "%s: section %s: %llu bytes inflated: too large",
				    path, name, (unsigned long long)ch->ch_size);
	const char *err = sp_decompress_sized(codec, data, n, buf, ch->ch_size);
	if (err) {
		e = sp_error_new(SP_E_MALFORMED,
				 "%s: section %s: corrupt %s data: %s (%llu bytes inflated)", path,
				 name, sp_codec_name(codec), err, (unsigned long long)ch->ch_size);
		free(buf);
		return e;
	}
	*out = buf;
	return NULL;
}

/* (libelf's elf_getdata and gelf_getchdr copy a whole compressed section
 * whose offset is not aligned for the header, which is every one the Go
 * linker writes: the image is read where it can be.) */
sp_error *sp_section_compressed(const char *path, const char *name, Elf *elf, Elf_Scn *scn,
			       const GElf_Shdr *sh, GElf_Chdr *ch, const char **src, size_t *n,
			       bool *raw)
{
	size_t fsize;
	GElf_Ehdr eh;
	const char *f = elf_rawfile(elf, &fsize);
	bool wide = gelf_getclass(elf) == ELFCLASS64;
	size_t hdr = wide ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
	*raw = f && gelf_getehdr(elf, &eh) && eh.e_ident[EI_DATA] == sp_elf_host_order() &&
	       sh->sh_offset <= fsize && fsize - sh->sh_offset >= sh->sh_size && sh->sh_size >= hdr;
	if (*raw && wide) {
		Elf64_Chdr c;
		memcpy(&c, f + sh->sh_offset, sizeof(c));
		*ch = (GElf_Chdr){c.ch_type, c.ch_reserved, c.ch_size, c.ch_addralign};
	} else if (*raw) {
		Elf32_Chdr c;
		memcpy(&c, f + sh->sh_offset, sizeof(c));
		*ch = (GElf_Chdr){c.ch_type, 0, c.ch_size, c.ch_addralign};
	}
	if (*raw) {
		*src = f + sh->sh_offset + hdr;
		*n = sh->sh_size - hdr;
		return NULL;
	}
	if (!gelf_getchdr(scn, ch))
		return sp_error_new(SP_E_MALFORMED, "%s: section %s: bad compression header: %s",
				    path, name, elf_errmsg(-1));
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size < hdr)
		return sp_error_new(SP_E_MALFORMED, "%s: section %s: %s data missing", path, name,
				    ch->ch_type == ELFCOMPRESS_ZSTD ? "zstd" : "zlib");
	*src = (const char *)data->d_buf + hdr;
	*n = data->d_size - hdr;
	return NULL;
}

sp_error *sp_section_inflate(const char *path, Elf *elf, Elf_Scn *scn, const char *name,
			     void **out, size_t *size)
{
	GElf_Shdr sh;
	GElf_Chdr ch;
	const char *src = NULL;
	size_t n = 0;
	bool raw;
	*out = NULL;
	*size = 0;
	if (!gelf_getshdr(scn, &sh))
		return sp_error_new(SP_E_MALFORMED, "%s: section %s: bad section header: %s", path,
				    name, elf_errmsg(-1));
	sp_error *e = sp_section_compressed(path, name, elf, scn, &sh, &ch, &src, &n, &raw);
	if (e)
		return e;
	if (ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD)
		return sp_error_new(SP_E_UNSUPPORTED,
				    "%s: section %s: compression type %u cannot be read "
				    "(zlib and zstd can)",
				    path, name, (unsigned)ch.ch_type);
	e = sp_section_decompress(path, name, &ch, src, n, out, NULL);
	*size = e ? 0 : ch.ch_size;
	return e;
}


/* At most this much of a file is asked for ahead of its reads (per
 * section and in all): a debug file of gigabytes is not read whole
 * because one address was asked of it. */
#define WILLNEED_MAX ((size_t)64 << 20)

void sp_sections_willneed(Elf *elf, bool (*wanted)(const char *name, const GElf_Shdr *sh))
{
	size_t fsize, shstrndx;
	const char *f = elf ? elf_rawfile(elf, &fsize) : NULL;
	long page = sysconf(_SC_PAGESIZE);
	if (!f || page <= 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	size_t left = WILLNEED_MAX;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && left; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size ||
		    sh.sh_offset >= fsize || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    !wanted(name, &sh))
			continue;
		size_t len = sh.sh_size < fsize - sh.sh_offset ? sh.sh_size : fsize - sh.sh_offset;
		len = len < left ? len : left;
		left -= len;
		uintptr_t start = (uintptr_t)f + sh.sh_offset;
		uintptr_t from = start & ~(uintptr_t)(page - 1);
		/* a hint: what it cannot do is read as it always is */
		(void)madvise((void *)from, len + (start - from), MADV_WILLNEED);
	}
}
