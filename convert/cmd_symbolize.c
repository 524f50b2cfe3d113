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
 * ??:0.  --json prints one object per address instead.
 *
 * The name sources of `convert` work here too, on run-time addresses:
 * --jit-dir objects first (an address inside one of their loaded sections
 * resolves in that object), then FILE, then --perf-map names, then
 * --kallsyms for kernel addresses.  With a source and no -e, no ELF file is
 * read.  -e FILE is a recorded path: --binary-path, --path-map and
 * --sysroot locate it as they locate a mapping's file.  Output is flushed
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

/* Output goes to a buffer of ours and then straight to write(2): at a
 * million addresses stdio's per-call locking and copying cost more than
 * the lookups. */
typedef struct {
	char *buf;
	size_t len, cap;
	int fd;
	int err; /* errno of the first failed write; output stops there */
} outbuf;

/* Output text per address, kept in one open-addressing table of slots
 * that each fit in a cache line with their neighbours (len 0: empty). */
typedef struct {
	uint64_t addr;
	uint32_t off, len; /* into sym_ctx.text */
} text_slot;

typedef struct {
	bool print_addr, json;
	bool relative;
	uint64_t rel_adjust; /* added to every address with --relative */
	sp_object *obj;      /* -e FILE, or NULL */
	sp_symbolizer *s;
	sp_demangle_style demangle;
	const sp_jit_index *jit; /* name sources: each NULL when not given */
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	outbuf out;
	text_slot *slots;
	size_t n_slots, cap_slots; /* cap: a power of two */
	sp_buf text;
} sym_ctx;

static void out_flush(outbuf *o)
{
	size_t done = 0;
	while (done < o->len && !o->err) {
		ssize_t w = write(o->fd, o->buf + done, o->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			o->err = w < 0 ? errno : EIO;
		else
			done += (size_t)w;
	}
	o->len = 0;
}

#define OUT_FLUSH_AT ((size_t)1 << 20)

static void out_put(outbuf *o, const char *p, size_t n)
{
	if (o->len + n > o->cap) {
		out_flush(o);
		if (n > o->cap) {
			o->cap = n;
			o->buf = sp_xrealloc(o->buf, o->cap);
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static const unsigned char *hex_digits(void)
{
	static const unsigned char t[256] = {
#define D16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
		D16(0xff), D16(0xff), D16(0xff),
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		D16(0xff),
		0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		D16(0xff), D16(0xff), D16(0xff), D16(0xff), D16(0xff), D16(0xff), D16(0xff),
		D16(0xff), D16(0xff),
#undef D16
	};
	return t;
}

/* Hex number with optional 0x/0X, at least one digit, no overflow: the
 * same language as sp_parse_u64 base 16, one table look-up a digit and
 * the checks once at the end (a non-digit maps to 0xff). */
static bool parse_hex(const char *s, const char *end, uint64_t *out)
{
	const unsigned char *t = hex_digits();
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s >= end)
		return false;
	while (end - s > 16 && *s == '0')
		s++;
	if (end - s > 16)
		return false;
	uint64_t v = 0;
	unsigned bad = 0;
	for (; s < end; s++) {
		unsigned d = t[(unsigned char)*s];
		bad |= d;
		v = v << 4 | (d & 15);
	}
	if (bad > 15)
		return false;
	*out = v;
	return true;
}

/* "0x" and 16 hex digits, as addr2line -a prints an address. */
static void put_addr16(outbuf *o, uint64_t a)
{
	char b[19];
	b[0] = '0';
	b[1] = 'x';
	for (int i = 17; i >= 2; i--, a >>= 4)
		b[i] = "0123456789abcdef"[a & 15];
	b[18] = '\n';
	out_put(o, b, sizeof(b));
}

static size_t slot_of(const sym_ctx *c, uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 32) & (c->cap_slots - 1);
}

static const text_slot *cache_get(const sym_ctx *c, uint64_t addr)
{
	if (!c->cap_slots)
		return NULL;
	for (size_t i = slot_of(c, addr);; i = (i + 1) & (c->cap_slots - 1)) {
		const text_slot *t = &c->slots[i];
		if (!t->len)
			return NULL;
		if (t->addr == addr)
			return t;
	}
}

static void cache_put(sym_ctx *c, uint64_t addr, uint32_t off, uint32_t len)
{
	if ((c->n_slots + 1) * 4 >= c->cap_slots * 3) {
		size_t old = c->cap_slots;
		text_slot *os = c->slots;
		c->cap_slots = old ? old * 2 : 1024;
		c->slots = sp_xcalloc(c->cap_slots, sizeof(*c->slots));
		c->n_slots = 0;
		for (size_t i = 0; i < old; i++)
			if (os[i].len)
				cache_put(c, os[i].addr, os[i].off, os[i].len);
		free(os);
	}
	size_t i = slot_of(c, addr);
	while (c->slots[i].len)
		i = (i + 1) & (c->cap_slots - 1);
	c->slots[i] = (text_slot){addr, off, len};
	c->n_slots++;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symprof symbolize [-e FILE] [-a] [-f] [-i] [-C|--demangle[=STYLE]]\n"
		"                         [--json] [--relative] [OPTIONS] [ADDR...]\n"
		"\n"
		"Prints the function, file and line of each address of FILE (default a.out),\n"
		"with every inline frame, innermost first.  Addresses come from the arguments\n"
		"or one per line from stdin.  Addresses inside a --jit-dir object's loaded\n"
		"section resolve in that object; --perf-map and --kallsyms name addresses\n"
		"FILE does not know.  Without -e, FILE is a.out unless a name source is given.\n"
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
		"\n"
		"finding files and names:\n" SP_CLI_FIND_HELP);
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

/* Frames for ADDR (as given) and VADDR (ADDR in FILE's address space):
 * the JIT objects, FILE, the perf maps, kallsyms, the first that knows it.
 * A perf-map or kallsyms frame is built in *ONE, its demangled name in
 * *NAME (caller frees). */
static void lookup(sym_ctx *c, uint64_t addr, uint64_t vaddr, const sp_frame **fr, size_t *n,
		   sp_frame *one, char **name)
{
	const char *raw = NULL;
	sp_error *e = NULL;

	*n = 0;
	if (c->jit) {
		const char *path = sp_jit_index_lookup(c->jit, addr);
		sp_object *o;
		if (path && !(e = sp_symbolizer_object(c->s, path, NULL, &o)))
			e = sp_object_resolve(o, addr, fr, n);
		sp_error_free(e);
		if (*n)
			return;
	}
	if (c->obj) {
		e = sp_object_resolve(c->obj, vaddr, fr, n);
		sp_error_free(e);
		if (*n)
			return;
		*n = 0;
	}
	if (c->perf)
		raw = sp_perf_map_lookup(c->perf, addr);
	if (!raw && c->ksyms && addr >= (1ULL << 63))
		raw = sp_kallsyms_lookup(c->ksyms, addr);
	if (!raw)
		return;
	*name = sp_demangle(raw, c->demangle);
	*one = (sp_frame){.name = *name ? *name : raw, .system_name = raw};
	*fr = one;
	*n = 1;
}

/* Output text per address is kept (up to this much in all), so the hot
 * addresses of a profile-like list cost one lookup and one copy. */
#define TEXT_CACHE_MAX ((size_t)64 << 20)

static void print_one(sym_ctx *c, const char *text, size_t len)
{
	uint64_t addr, vaddr = 0;
	const sp_frame *fr = NULL;
	size_t n = 0;
	while (len && (text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	bool ok = parse_hex(text, text + len, &addr);
	if (ok)
		vaddr = c->relative ? addr + c->rel_adjust : addr;
	if (c->json) {
		char a[48];
		int k = ok ? snprintf(a, sizeof(a), "{\"address\":\"0x%" PRIx64 "\",\"frames\":", vaddr)
			   : snprintf(a, sizeof(a), "{\"address\":\"\",\"frames\":");
		out_put(&c->out, a, (size_t)k);
	} else if (c->print_addr) {
		if (ok) {
			put_addr16(&c->out, vaddr);
		} else {
			out_put(&c->out, text, len);
			out_put(&c->out, "\n", 1);
		}
	}
	const text_slot *t = ok ? cache_get(c, addr) : NULL;
	if (t) {
		out_put(&c->out, c->text.data + t->off, t->len);
	} else {
		sp_frame one;
		char *name = NULL;
		if (ok)
			lookup(c, addr, vaddr, &fr, &n, &one, &name);
		size_t off = c->text.len;
		format_frames(c, fr, n, &c->text);
		free(name);
		size_t tl = c->text.len - off;
		out_put(&c->out, c->text.data + off, tl);
		if (ok && c->text.len < TEXT_CACHE_MAX && tl < 0xffffff)
			cache_put(c, addr, (uint32_t)off, (uint32_t)tl);
		else
			c->text.len = off;
	}
	if (c->json)
		out_put(&c->out, "}\n", 2);
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
		out_flush(&c->out);
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
			if (c->out.len >= OUT_FLUSH_AT)
				out_flush(&c->out);
		}
		memmove(buf, buf + start, len - start);
		len -= start;
	}
	if (len)
		print_one(c, buf, len);
	free(buf);
	return 0;
}

/* Opens -e FILE: as given, or located like a mapping's file when a search
 * option is given.  Prints the error; returns false on failure. */
static bool open_exe(sym_ctx *c, const sp_symbolize_options *o, const char *exe)
{
	char *found = NULL;
	sp_find_log log = {0};
	sp_error *err = NULL;

	if (o->sysroot || o->n_path_maps || o->n_binary_paths) {
		err = sp_find_binary(o, exe, NULL, &found, &log);
		for (size_t i = 0; err && i < log.n; i++)
			fprintf(stderr, "symprof symbolize: tried %s: %s\n", log.v[i].path,
				sp_try_status_str(log.v[i].status));
		sp_find_log_clear(&log);
	}
	if (!err)
		err = sp_symbolizer_object(c->s, found ? found : exe, NULL, &c->obj);
	free(found);
	if (!err)
		return true;
	char *msg = sp_error_string(err);
	fprintf(stderr, "symprof symbolize: %s\n", msg);
	free(msg);
	sp_error_free(err);
	return false;
}

int cmd_symbolize(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_RELATIVE };
	static const struct option longopts[] = {
		{"exe", required_argument, NULL, 'e'},
		{"addresses", no_argument, NULL, 'a'},
		{"functions", no_argument, NULL, 'f'},
		{"inlines", no_argument, NULL, 'i'},
		{"demangle", optional_argument, NULL, 'C'},
		{"json", no_argument, NULL, OPT_JSON},
		{"relative", no_argument, NULL, OPT_RELATIVE},
		{"help", no_argument, NULL, 'h'},
		SP_CLI_FIND_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	const char *exe = NULL;
	sym_ctx c = {.out = {.fd = STDOUT_FILENO}};
	sp_cli_sym cli;
	int opt, rc = 0;

	sp_cli_sym_init(&cli);
	cli.sym.demangle = SP_DEMANGLE_NONE;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "e:afiCh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e': exe = optarg; break;
		case 'a': c.print_addr = true; break;
		case 'f':
		case 'i': break;
		case 'C':
			if (!optarg || !strcmp(optarg, "full"))
				cli.sym.demangle = SP_DEMANGLE_FULL;
			else if (!strcmp(optarg, "templates"))
				cli.sym.demangle = SP_DEMANGLE_TEMPLATES;
			else if (!strcmp(optarg, "none"))
				cli.sym.demangle = SP_DEMANGLE_NONE;
			else {
				fprintf(stderr,
					"symprof symbolize: --demangle=%s: expected full, "
					"templates or none\n",
					optarg);
				rc = 2;
			}
			break;
		case OPT_JSON: c.json = true; break;
		case OPT_RELATIVE: c.relative = true; break;
		case 'h':
			usage(stdout);
			sp_cli_sym_clear(&cli);
			return 0;
		default:
			if (opt < 1000 || sp_cli_sym_option(&cli, opt, optarg) != 0) {
				if (opt < 1000)
					usage(stderr);
				rc = 2;
			}
			break;
		}
		if (rc) {
			sp_cli_sym_clear(&cli);
			return rc;
		}
	}
	sp_cli_sym_finish(&cli);
	c.demangle = cli.sym.demangle;
	c.s = sp_symbolizer_new(&cli.sym);
	sp_error *err = sp_symbolizer_sources(c.s, &c.jit, &c.perf, &c.ksyms);
	if (err) {
		char *msg = sp_error_string(err);
		fprintf(stderr, "symprof symbolize: %s\n", msg);
		free(msg);
		sp_error_free(err);
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 1;
	}
	if (!exe && !c.jit && !c.perf && !c.ksyms)
		exe = "a.out";
	if (exe && !open_exe(&c, &cli.sym, exe)) {
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 1;
	}
	if (c.relative && !c.obj) {
		fprintf(stderr, "symprof symbolize: --relative needs -e FILE\n");
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 2;
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

	fflush(stdout);
	c.out.cap = OUT_FLUSH_AT + (OUT_FLUSH_AT >> 2);
	c.out.buf = sp_xmalloc(c.out.cap);
	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			print_one(&c, argv[i], strlen(argv[i]));
	} else {
		rc = run_stdin(&c);
	}
	out_flush(&c.out);
	if (c.out.err) {
		fprintf(stderr, "symprof symbolize: writing output: %s\n", strerror(c.out.err));
		rc = 1;
	}
	free(c.out.buf);
	free(c.slots);
	sp_buf_free(&c.text);
	sp_symbolizer_free(c.s);
	sp_cli_sym_clear(&cli);
	return rc;
}
