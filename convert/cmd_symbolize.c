/* cmd_symbolize.c — `symprof symbolize`: addr2line-style lookups in one ELF.
 *
 *   $ echo 0x1234 | symprof symbolize -e ./app -a -C
 *   0x0000000000001234
 *   ns::leaf(int)
 *   /src/app.cc:14
 *   main
 *   /src/app.cc:40
 *
 * Addresses come from the arguments or, one per line, from stdin (hex, "0x"
 * optional).  By default they are ELF virtual addresses of FILE, as for
 * addr2line; with --relative they are offsets from where the object's file
 * offset 0 would be loaded: symbol-file address = ADDR + p_vaddr - p_offset
 * of the PT_LOAD with the lowest p_vaddr (for most PIEs and shared
 * libraries the two are equal; for a non-PIE at 0x400000 they differ by
 * 0x400000).  Every frame is printed, innermost first: a function line then
 * a file:line line (addr2line -f -i layout); unknown parts print as ?? and
 * ??:0.  --json prints one object per address instead.  Output is flushed
 * whenever the next input line is not yet available, so the command works
 * as a co-process in a pipe while bulk input is written in large blocks.
 */
#include "convert/convert.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	bool print_addr, json;
	bool relative;
	uint64_t rel_adjust; /* added to every address with --relative */
	sp_object *obj;
	FILE *out;
	sp_u64map cache; /* address -> offset << 24 | length in text */
	sp_buf text;
} sym_ctx;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symprof symbolize [-e FILE] [-a] [-f] [-i] [-C|--demangle[=STYLE]]\n"
		"                         [--json] [--relative] [--debug-dir DIR] [ADDR...]\n"
		"\n"
		"Prints the function, file and line of each address of FILE (default a.out),\n"
		"with every inline frame, innermost first.  Addresses come from the arguments\n"
		"or one per line from stdin.\n"
		"\n"
		"  -e, --exe FILE       the ELF file\n"
		"  -a, --addresses      print each address before its frames\n"
		"  -f, --functions      print function names (always on)\n"
		"  -i, --inlines        print inline frames (always on)\n"
		"  -C, --demangle[=STYLE]  demangle names: full (default for -C), templates\n"
		"                       (no parameter lists), none (default without -C)\n"
		"      --json           one JSON object per address\n"
		"      --relative       addresses are offsets from the object's load address:\n"
		"                       ADDR + p_vaddr - p_offset of the lowest PT_LOAD\n"
		"      --debug-dir DIR  where separate debug files live (repeatable)\n");
}

static void json_str(sp_buf *b, const char *s)
{
	if (!s) {
		sp_buf_puts(b, "null");
		return;
	}
	sp_buf_append(b, "\"", 1);
	for (const char *run = s;; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch && ch != '"' && ch != '\\' && ch >= 0x20)
			continue;
		sp_buf_append(b, run, (size_t)(s - run));
		if (!ch)
			break;
		if (ch == '"' || ch == '\\')
			sp_buf_printf(b, "\\%c", ch);
		else
			sp_buf_printf(b, "\\u%04x", ch);
		run = s + 1;
	}
	sp_buf_append(b, "\"", 1);
}

/* Appends the frames of one address to B: the JSON "frames" array, or
 * function and file:line lines. */
static void format_frames(const sym_ctx *c, const sp_frame *fr, size_t n, sp_buf *b)
{
	if (c->json) {
		sp_buf_puts(b, "[");
		for (size_t i = 0; i < n; i++) {
			sp_buf_puts(b, i ? ",{\"function\":" : "{\"function\":");
			json_str(b, fr[i].name);
			sp_buf_puts(b, ",\"raw\":");
			json_str(b, fr[i].system_name);
			sp_buf_puts(b, ",\"file\":");
			json_str(b, fr[i].file);
			sp_buf_printf(b,
				      ",\"line\":%" PRId64 ",\"column\":%" PRId64
				      ",\"start_line\":%" PRId64 ",\"inlined\":%s}",
				      fr[i].line, fr[i].column, fr[i].start_line,
				      fr[i].inlined ? "true" : "false");
		}
		sp_buf_puts(b, "]");
		return;
	}
	if (n == 0) {
		sp_buf_puts(b, "??\n??:0\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char num[24], *e = num + sizeof(num), *q = e;
		uint64_t line = fr[i].line > 0 ? (uint64_t)fr[i].line : 0;
		do
			*--q = (char)('0' + line % 10);
		while (line /= 10);
		sp_buf_puts(b, fr[i].name ? fr[i].name : "??");
		sp_buf_append(b, "\n", 1);
		sp_buf_puts(b, fr[i].file ? fr[i].file : "??");
		sp_buf_append(b, ":", 1);
		sp_buf_append(b, q, (size_t)(e - q));
		sp_buf_append(b, "\n", 1);
	}
}

/* Output text per address is kept (up to this much in all), so the hot
 * addresses of a profile-like list cost one lookup and one copy. */
#define TEXT_CACHE_MAX ((size_t)64 << 20)

static void print_one(sym_ctx *c, const char *text, size_t len)
{
	uint64_t addr, v;
	const sp_frame *fr = NULL;
	size_t n = 0;
	while (len && (text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	bool ok = sp_parse_u64(text, text + len, 16, &addr);
	if (ok && c->relative)
		addr += c->rel_adjust;
	if (c->json) {
		fputs("{\"address\":", c->out);
		if (ok)
			fprintf(c->out, "\"0x%" PRIx64 "\"", addr);
		else
			fputs("\"\"", c->out);
		fputs(",\"frames\":", c->out);
	} else if (c->print_addr) {
		if (ok)
			fprintf(c->out, "0x%016" PRIx64 "\n", addr);
		else
			fprintf(c->out, "%.*s\n", (int)len, text);
	}
	if (ok && sp_u64map_get(&c->cache, addr, &v)) {
		fwrite(c->text.data + (v >> 24), 1, v & 0xffffff, c->out);
	} else {
		if (ok) {
			sp_error *e = sp_object_resolve(c->obj, addr, &fr, &n);
			if (e) {
				n = 0;
				sp_error_free(e);
			}
		}
		size_t off = c->text.len;
		format_frames(c, fr, n, &c->text);
		size_t tl = c->text.len - off;
		fwrite(c->text.data + off, 1, tl, c->out);
		if (ok && c->text.len < TEXT_CACHE_MAX && tl < 0xffffff)
			sp_u64map_put(&c->cache, addr, (uint64_t)off << 24 | tl);
		else
			c->text.len = off;
	}
	if (c->json)
		fputs("}\n", c->out);
}

/* Reads stdin in blocks; flushes the output before any read that could
 * block, so a co-process sees its answer as soon as its line is done. */
static int run_stdin(sym_ctx *c)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = sp_xmalloc(cap);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = sp_xrealloc(buf, cap);
		}
		fflush(c->out);
		ssize_t got = read(STDIN_FILENO, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fprintf(stderr, "symprof symbolize: stdin: %s\n", strerror(errno));
			free(buf);
			return 1;
		}
		if (got == 0)
			break;
		len += (size_t)got;
		size_t start = 0;
		for (;;) {
			char *nl = memchr(buf + start, '\n', len - start);
			if (!nl)
				break;
			print_one(c, buf + start, (size_t)(nl - (buf + start)));
			start = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
	}
	if (len)
		print_one(c, buf, len);
	free(buf);
	return 0;
}

int cmd_symbolize(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_RELATIVE, OPT_DEBUG_DIR };
	static const struct option longopts[] = {
		{"exe", required_argument, NULL, 'e'},
		{"addresses", no_argument, NULL, 'a'},
		{"functions", no_argument, NULL, 'f'},
		{"inlines", no_argument, NULL, 'i'},
		{"demangle", optional_argument, NULL, 'C'},
		{"json", no_argument, NULL, OPT_JSON},
		{"relative", no_argument, NULL, OPT_RELATIVE},
		{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *exe = "a.out";
	const char **dirs = NULL;
	size_t n_dirs = 0, cap_dirs = 0;
	sym_ctx c = {.out = stdout};
	sp_symbolize_options o = {.demangle = SP_DEMANGLE_NONE};
	int opt, rc = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "e:afiCh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e': exe = optarg; break;
		case 'a': c.print_addr = true; break;
		case 'f':
		case 'i': break;
		case 'C':
			if (!optarg || !strcmp(optarg, "full"))
				o.demangle = SP_DEMANGLE_FULL;
			else if (!strcmp(optarg, "templates"))
				o.demangle = SP_DEMANGLE_TEMPLATES;
			else if (!strcmp(optarg, "none"))
				o.demangle = SP_DEMANGLE_NONE;
			else {
				fprintf(stderr,
					"symprof symbolize: --demangle=%s: expected full, "
					"templates or none\n",
					optarg);
				free(dirs);
				return 2;
			}
			break;
		case OPT_JSON: c.json = true; break;
		case OPT_RELATIVE: c.relative = true; break;
		case OPT_DEBUG_DIR: SP_PUSH(dirs, n_dirs, cap_dirs, optarg); break;
		case 'h':
			usage(stdout);
			free(dirs);
			return 0;
		default:
			usage(stderr);
			free(dirs);
			return 2;
		}
	}
	o.debug_dirs = dirs;
	o.n_debug_dirs = n_dirs;

	sp_symbolizer *s = sp_symbolizer_new(&o);
	free(dirs);
	sp_error *err = sp_symbolizer_object(s, exe, NULL, &c.obj);
	if (err) {
		char *msg = sp_error_string(err);
		fprintf(stderr, "symprof symbolize: %s\n", msg);
		free(msg);
		sp_error_free(err);
		sp_symbolizer_free(s);
		return 1;
	}
	if (c.relative) {
		const sp_elf_info *info = sp_object_info(c.obj);
		const sp_phdr *low = NULL;
		for (size_t i = 0; i < info->n_loads; i++)
			if (!low || info->loads[i].vaddr < low->vaddr)
				low = &info->loads[i];
		if (low)
			c.rel_adjust = low->vaddr - low->offset;
	}

	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			print_one(&c, argv[i], strlen(argv[i]));
	} else {
		rc = run_stdin(&c);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "symprof symbolize: writing output: %s\n", strerror(errno));
		rc = 1;
	}
	sp_u64map_free(&c.cache);
	sp_buf_free(&c.text);
	sp_symbolizer_free(s);
	return rc;
}
