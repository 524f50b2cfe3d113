/* test_elfinfo.c — sp_elf_info_read and sp_file_crc32 on ELF files built
 * at test time with gcc, objcopy and strip, compared with what binutils'
 * readelf/objdump and gzip (an independent CRC-32) say about them. */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <elf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/sp-elfinfo-XXXXXX";

SP_PRINTF(1, 2) static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		printf("# command failed (%d): %s\n", rc, cmd);
	return rc;
}

/* First line printed by a shell command, without its newline (caller frees). */
SP_PRINTF(1, 2) static char *capture(const char *fmt, ...)
{
	char cmd[2048], buf[4096];
	char *out = NULL;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (fgets(buf, sizeof(buf), p)) {
		buf[strcspn(buf, "\n")] = '\0';
		out = strdup(buf);
	}
	pclose(p);
	return out;
}

/* capture_u64(base, "literal with one %s", file): the command's first line
 * as a number; the format stays a literal at each call, so it is checked. */
#define capture_u64(base, cmd, file) parse_u64((base), capture(cmd, file))

/* S is consumed. */
static uint64_t parse_u64(int base, char *s)
{
	uint64_t v = s ? strtoull(s, NULL, base) : UINT64_MAX;
	free(s);
	return v;
}

static char *path(const char *name)
{
	return sp_xasprintf("%s/%s", dir, name);
}

static void write_file(const char *name, const void *data, size_t n)
{
	char *p = path(name);
	FILE *f = fopen(p, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
	free(p);
}

static const char prog[] = "#include <stdio.h>\n"
			   "int mid(int x) { return x * 3 + 1; }\n"
			   "int main(int argc, char **argv) { printf(\"%d\\n\", mid(argc)); "
			   "return 0; }\n";

static void test_pie(void)
{
	char *bin = path("pie");
	sp_elf_info info;
	struct stat st;

	if (run("gcc -g -O1 -fPIE -pie -Wl,--build-id -o %s %s/prog.c", bin, dir) != 0) {
		TAP_OK(0, "gcc builds a PIE");
		free(bin);
		return;
	}
	sp_error *err = sp_elf_info_read(bin, &info);
	TAP_OK(!err, "PIE: read");
	sp_error_free(err);
	if (err) {
		free(bin);
		return;
	}
	char *want_id = capture("readelf -n %s | sed -n 's/.*Build ID: *//p'", bin);
	TAP_EQ_STR(info.build_id, want_id, "PIE: build id as readelf -n prints it");
	free(want_id);
	TAP_EQ_STR(info.path, bin, "PIE: path");
	TAP_EQ_U64(info.elf_type, ET_DYN, "PIE: ET_DYN");
	TAP_EQ_U64(info.n_loads, capture_u64(10, "readelf -lW %s | grep -c '^ *LOAD '", bin),
		   "PIE: as many PT_LOADs as readelf -l lists");
	ssize_t x = -1;
	for (size_t i = 0; i < info.n_loads; i++)
		if (info.loads[i].flags & PF_X)
			x = (ssize_t)i;
	TAP_OK(x >= 0, "PIE: an executable PT_LOAD");
	if (x >= 0) {
		TAP_EQ_U64(info.loads[x].offset,
			   capture_u64(16, "readelf -lW %s | awk '$1==\"LOAD\" && / E /{print $2}'",
				       bin),
			   "PIE: text PT_LOAD p_offset");
		TAP_EQ_U64(info.loads[x].vaddr,
			   capture_u64(16, "readelf -lW %s | awk '$1==\"LOAD\" && / E /{print $3}'",
				       bin),
			   "PIE: text PT_LOAD p_vaddr");
	}
	TAP_OK(info.has_text, "PIE: has .text");
	TAP_EQ_U64(info.text_addr,
		   capture_u64(16, "objdump -h %s | awk '$2==\".text\"{print $4}'", bin),
		   "PIE: .text address as objdump -h prints it");
	TAP_OK(info.has_dwarf, "PIE built with -g has DWARF");
	TAP_OK(info.has_symtab, "PIE has a symbol table");
	TAP_OK(!info.has_stext, "PIE: _stext not looked for outside vmlinux");
	TAP_OK(!info.debuglink && !info.has_debugdata, "PIE: no debuglink, no debugdata");
	stat(bin, &st);
	TAP_OK(info.dev == st.st_dev && info.ino == st.st_ino && info.size == st.st_size &&
		       info.mtime_ns == (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
	       "PIE: dev, inode, size and mtime from stat");

	/* Split debug info off and link it back. */
	char *dbg = path("pie.debug"), *stripped = path("pie.stripped");
	run("objcopy --only-keep-debug %s %s", bin, dbg);
	run("strip --strip-all -o %s %s", stripped, bin);
	run("objcopy --add-gnu-debuglink=%s %s", dbg, stripped);
	sp_elf_info s, d;
	err = sp_elf_info_read(stripped, &s);
	TAP_OK(!err, "stripped: read");
	sp_error_free(err);
	err = sp_elf_info_read(dbg, &d);
	TAP_OK(!err, "debug file: read");
	sp_error_free(err);
	TAP_EQ_STR(s.build_id, info.build_id, "stripped keeps the build id");
	TAP_EQ_STR(d.build_id, info.build_id, "debug file keeps the build id");
	TAP_OK(!s.has_dwarf && s.has_symtab, "stripped: no DWARF, dynsym only");
	TAP_OK(d.has_dwarf, "debug file has DWARF");
	TAP_EQ_STR(s.debuglink, "pie.debug", "stripped: debuglink name");
	uint32_t crc = 0;
	err = sp_file_crc32(dbg, &crc);
	TAP_OK(!err, "crc32 of the debug file");
	sp_error_free(err);
	TAP_EQ_U64(s.debuglink_crc, crc, "debuglink CRC written by objcopy equals ours");
	/* gzip's trailer holds the CRC-32 of the data, little-endian. */
	TAP_EQ_U64(crc, capture_u64(10, "gzip -c %s | tail -c 8 | od -An -tu4 -N4 --endian=little",
				    dbg),
		   "crc32 equals the one gzip computes");
	sp_elf_info_clear(&s);
	sp_elf_info_clear(&d);
	sp_elf_info_clear(&info);
	TAP_OK(info.path == NULL && info.loads == NULL, "clear resets the struct");
	sp_elf_info_clear(&info);
	sp_elf_info_clear(NULL);
	free(dbg);
	free(stripped);
	free(bin);
}

static void test_types(void)
{
	char *exe = path("exe"), *obj = path("prog.o"), *noid = path("noid");
	sp_elf_info info;
	sp_error *err;

	run("gcc -O1 -no-pie -Wl,--build-id -o %s %s/prog.c", exe, dir);
	run("gcc -O1 -c -o %s %s/prog.c", obj, dir);
	run("gcc -O1 -Wl,--build-id=none -o %s %s/prog.c", noid, dir);

	err = sp_elf_info_read(exe, &info);
	TAP_OK(!err && info.elf_type == ET_EXEC, "non-PIE executable is ET_EXEC");
	TAP_OK(!err && !info.has_dwarf, "built without -g: no DWARF");
	TAP_OK(!err && info.build_id && strlen(info.build_id) == 40, "sha1 build id: 40 hex digits");
	sp_error_free(err);
	sp_elf_info_clear(&info);

	err = sp_elf_info_read(obj, &info);
	TAP_OK(!err && info.elf_type == ET_REL && info.n_loads == 0,
	       "object file is ET_REL without PT_LOAD");
	sp_error_free(err);
	sp_elf_info_clear(&info);

	err = sp_elf_info_read(noid, &info);
	TAP_OK(!err && info.build_id == NULL, "--build-id=none: no build id");
	sp_error_free(err);
	sp_elf_info_clear(&info);

	/* A Go build id note added to the binary without a GNU one. */
	static const char go_note[] = "\3\0\0\0\10\0\0\0\4\0\0\0Go\0\0abc/defg";
	write_file("gonote", go_note, sizeof(go_note) - 1);
	char *gobin = path("gobin");
	run("objcopy --add-section .note.go.buildid=%s/gonote %s %s 2>/dev/null", dir, noid,
	    gobin);
	err = sp_elf_info_read(gobin, &info);
	TAP_OK(!err, "Go note: read");
	TAP_EQ_STR(info.build_id, "abc/defg", "Go build id string used as it is");
	sp_error_free(err);
	sp_elf_info_clear(&info);

	/* Two GNU build id notes in one section. */
	static const char two[] = "\4\0\0\0\4\0\0\0\3\0\0\0GNU\0\1\2\3\4"
				  "\4\0\0\0\4\0\0\0\3\0\0\0GNU\0\5\6\7\10";
	write_file("twonotes", two, sizeof(two) - 1);
	char *twobin = path("twobin");
	run("objcopy --add-section .note.gnu.build-id=%s/twonotes %s %s 2>/dev/null", dir, noid,
	    twobin);
	err = sp_elf_info_read(twobin, &info);
	TAP_OK(err != NULL, "two GNU build id notes are an error");
	sp_error_free(err);
	/* One GNU note in a section: found through the section headers. */
	char *onebin = path("onebin");
	write_file("onenote", two, 20);
	run("objcopy --add-section .note.gnu.build-id=%s/onenote %s %s 2>/dev/null", dir, noid,
	    onebin);
	err = sp_elf_info_read(onebin, &info);
	TAP_EQ_STR(info.build_id, "01020304", "GNU note found in SHT_NOTE section, lowercase hex");
	sp_error_free(err);
	sp_elf_info_clear(&info);

	free(onebin);
	free(twobin);
	free(gobin);
	free(exe);
	free(obj);
	free(noid);
}

/* A real Go binary, when the Go toolchain is here: its build id as
 * `go tool buildid` prints it. */
static void test_go(void)
{
	static const char src[] = "package main\n\nfunc main() {}\n";
	write_file("m.go", src, sizeof(src) - 1);
	char *bin = path("gomain");
	if (run("cd %s && GOCACHE=%s/gocache GO111MODULE=off GOFLAGS= go build -o %s m.go "
		">/dev/null 2>&1",
		dir, dir, bin) != 0) {
		TAP_OK(1, "# SKIP go toolchain cannot build");
		free(bin);
		return;
	}
	char *want = capture("go tool buildid %s", bin);
	sp_elf_info info;
	sp_error *err = sp_elf_info_read(bin, &info);
	TAP_OK(!err, "Go binary: read");
	TAP_EQ_STR(err ? NULL : info.build_id, want, "Go binary: build id as go tool buildid says");
	if (!err)
		sp_elf_info_clear(&info);
	sp_error_free(err);
	free(want);
	free(bin);
}

static void test_not_elf(void)
{
	char *txt = path("notes.txt"), *missing = path("missing");
	sp_elf_info info;
	write_file("notes.txt", "hello, world\n", 13);
	sp_error *err = sp_elf_info_read(txt, &info);
	char *msg = err ? sp_error_string(err) : NULL;
	TAP_OK(err && sp_error_root_code(err) == SP_E_UNRECOGNIZED,
	       "text file: SP_E_UNRECOGNIZED");
	TAP_OK(msg && strstr(msg, txt), "text file: message names the file: %s",
	       msg ? msg : "(none)");
	free(msg);
	sp_error_free(err);
	err = sp_elf_info_read(missing, &info);
	TAP_OK(err && sp_error_root_code(err) == SP_E_NOT_FOUND, "missing file: SP_E_NOT_FOUND");
	sp_error_free(err);
	err = sp_elf_info_read(dir, &info);
	TAP_OK(err && sp_error_root_code(err) == SP_E_UNRECOGNIZED, "directory: not mine");
	sp_error_free(err);
	free(txt);
	free(missing);
}

static void test_crc(void)
{
	uint32_t crc = 0;
	write_file("check", "123456789", 9);
	write_file("empty", "", 0);
	char *p = path("check"), *e = path("empty");
	sp_error *err = sp_file_crc32(p, &crc);
	TAP_OK(!err && crc == 0xcbf43926u, "CRC-32 check value of \"123456789\" is 0xcbf43926");
	sp_error_free(err);
	err = sp_file_crc32(e, &crc);
	TAP_OK(!err && crc == 0, "CRC-32 of nothing is 0");
	sp_error_free(err);
	free(p);
	free(e);
}

static void test_stext(void)
{
	static const char src[] = "void _stext(void) {}\nvoid start_kernel(void) {}\n";
	write_file("k.c", src, sizeof(src) - 1);
	char *vm = path("vmlinux-test"), *other = path("kernel-test");
	run("gcc -O0 -nostdlib -static -Wl,-e,_stext -Wl,--build-id -o %s %s/k.c", vm, dir);
	run("cp %s %s", vm, other);
	sp_elf_info info;
	sp_error *err = sp_elf_info_read(vm, &info);
	TAP_OK(!err && info.has_stext, "vmlinux: _stext found");
	TAP_EQ_U64(info.stext, capture_u64(16, "nm %s | awk '$3==\"_stext\"{print $1}'", vm),
		   "vmlinux: _stext address as nm prints it");
	sp_error_free(err);
	sp_elf_info_clear(&info);
	err = sp_elf_info_read(other, &info);
	TAP_OK(!err && !info.has_stext, "same file under another name: _stext not read");
	sp_error_free(err);
	sp_elf_info_clear(&info);
	free(vm);
	free(other);
}

/* More sections than fit in e_shnum (>= 0xff00): extended numbering, and
 * the section name table's index too large for e_shstrndx. */
static void test_many_sections(void)
{
	char *s = path("many.s"), *o = path("many.o");
	FILE *f = fopen(s, "w");
	fputs("\t.text\n\t.globl f0\nf0:\tret\n", f);
	for (int i = 1; i < 66000; i++)
		fprintf(f, "\t.section .text.f%d,\"ax\",@progbits\nf%d:\tret\n", i, i);
	fputs("\t.section .debug_info,\"\",@progbits\n\t.byte 0\n", f);
	fclose(f);
	if (run("gcc -c -o %s %s", o, s) != 0) {
		TAP_OK(0, "assembling 66000 sections");
		free(s);
		free(o);
		return;
	}
	sp_elf_info info;
	sp_error *err = sp_elf_info_read(o, &info);
	if (err) {
		char *m = sp_error_string(err);
		printf("# %s\n", m);
		free(m);
	}
	TAP_OK(!err, "66000 sections: read");
	TAP_OK(!err && info.elf_type == ET_REL && info.has_text,
	       "66000 sections: ET_REL with .text");
	TAP_OK(!err && info.has_dwarf, "66000 sections: .debug_info after section 65280 found");
	TAP_OK(!err && info.has_symtab, "66000 sections: symbol table");
	sp_error_free(err);
	sp_elf_info_clear(&info);
	free(s);
	free(o);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return tap_done();
	}
	write_file("prog.c", prog, sizeof(prog) - 1);
	test_pie();
	test_types();
	test_go();
	test_not_elf();
	test_crc();
	test_stext();
	test_many_sections();
	int rc = tap_done();
	if (rc == 0)
		run("rm -rf %s", dir);
	return rc;
}
