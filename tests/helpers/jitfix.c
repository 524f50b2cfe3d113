/* jitfix.c — "loads" an ET_REL object the way a JIT would for the tests:
 * writes run-time addresses into the section headers of a copy (libelf,
 * keeping the file layout) and lists every section in a .meta file written
 * with plain stdio, so the index under test is checked against an
 * independent description. */
#include "tests/helpers/jitfix.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int jf_run(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void jf_placed_free(jf_placed *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].name);
	free(p);
}

const jf_placed *jf_find(const jf_placed *p, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	if (!in || !out) {
		perror(in ? to : from);
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return -1;
	}
	char buf[65536];
	size_t r;
	while ((r = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, r, out);
	fclose(in);
	return fclose(out) ? -1 : 0;
}

int jf_load(const char *in, const char *prefix, const jf_plan *plan, jf_placed **placed,
	    size_t *n_placed)
{
	char elfpath[4096], metapath[4096];
	snprintf(elfpath, sizeof(elfpath), "%s.elf", prefix);
	snprintf(metapath, sizeof(metapath), "%s.meta", prefix);
	*placed = NULL;
	*n_placed = 0;
	if (copy_file(in, elfpath))
		return -1;
	elf_version(EV_CURRENT);
	int fd = open(elfpath, O_RDWR);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_RDWR, NULL);
	size_t shnum, shstrndx;
	if (!e || elf_getshdrnum(e, &shnum) || elf_getshdrstrndx(e, &shstrndx)) {
		fprintf(stderr, "%s: %s\n", elfpath, elf_errmsg(-1));
		return -1;
	}
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);

	/* Executable sections in header order; the last one is held back when
	 * it must end at plan->limit. */
	size_t last_exec = 0;
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		gelf_getshdr(elf_getscn(e, i), &sh);
		if ((sh.sh_flags & SHF_ALLOC) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size)
			last_exec = i;
	}
	jf_placed *p = calloc(shnum, sizeof(*p));
	size_t np = 0;
	uint64_t next_exec = plan->base, next_data = plan->data_base;
	FILE *m = fopen(metapath, "w");
	fprintf(m, "{\"sections\": [");
	bool first = true;
	for (size_t i = plan->with_null ? 0 : 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		const char *name = i ? elf_strptr(e, shstrndx, sh.sh_name) : "";
		if (i && (sh.sh_flags & SHF_ALLOC) && (sh.sh_size || plan->place_empty)) {
			bool exec = sh.sh_flags & SHF_EXECINSTR;
			if (exec && plan->limit && i == last_exec) {
				sh.sh_addr = plan->limit - sh.sh_size;
			} else if (exec) {
				sh.sh_addr = next_exec;
				next_exec += plan->step;
			} else {
				sh.sh_addr = next_data;
				next_data += plan->step;
			}
			gelf_update_shdr(scn, &sh);
			elf_flagshdr(scn, ELF_C_SET, ELF_F_DIRTY);
			p[np].name = strdup(name);
			p[np].start = sh.sh_addr;
			p[np].size = sh.sh_size;
			p[np].exec = exec;
			np++;
		}
		fprintf(m, "%s\n  {\"name\": \"%s\", \"start\": %llu, \"size\": %llu}", first ? "" : ",",
			name, (unsigned long long)((sh.sh_flags & SHF_ALLOC) ? sh.sh_addr : 0),
			(unsigned long long)sh.sh_size);
		first = false;
	}
	fprintf(m, "\n]}\n");
	int rc = fclose(m);
	if (elf_update(e, ELF_C_WRITE) < 0) {
		fprintf(stderr, "%s: elf_update: %s\n", elfpath, elf_errmsg(-1));
		rc = -1;
	}
	elf_end(e);
	close(fd);
	*placed = p;
	*n_placed = np;
	return rc ? -1 : 0;
}
