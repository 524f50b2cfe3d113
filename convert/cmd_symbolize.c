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
 * ??:0.  --json prints one object per address instead.  -p, -s and
 * --output-style=LLVM|JSON give the forms of addr2line -p -s and of
 * llvm-symbolizer, for scripts that compare with those tools.
 *
 * The name sources of `convert` work here too, on run-time addresses:
 * --jit-dir objects first (an address inside one of their loaded sections
 * resolves in that object), then --jitdump files, then FILE, then
 * --perf-map names, then
 * --kallsyms for kernel addresses.  With a source and no -e, no ELF file is
 * read.  -e FILE is a recorded path: --binary-path, --path-map and
 * --sysroot locate it as they locate a mapping's file.  Output is flushed
 * whenever the next input line is not yet available, so the command works
 * as a co-process in a pipe while bulk input is written in large blocks.
 *
 * Input is answered in batches: the lines of a block of input are parsed
 * in one pass and looked up in a cache of answer texts per address; the
 * addresses it lacks are sorted and resolved once each in address order
 * (neighbours share compile units and line tables), and the answers go
 * out in input order with writev straight from the cache.
 */
#include "convert/convert.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Output is written with writev(2) straight from where its text lives:
 * the per-address text cache, a per-batch prefix buffer, the input line.
 * At a million addresses stdio's per-call locking and copying, and even
 * one memcpy of every answer, cost more than the lookups. */
#define SINK_IOV 1024

typedef struct {
	struct iovec iov[SINK_IOV];
	int n;
	int fd;
	int err; /* errno of the first failed write; output stops there */
} sink;

/* Output text per address, kept in one open-addressing table of slots
 * that each fit in a cache line with their neighbours (len 0: empty). */
typedef struct {
	uint64_t addr;
	uint32_t off, len; /* into sym_ctx.text */
} text_slot;

/* Where an input line's answer text is: TXT_JOB + k is job k's text. */
enum { TXT_CACHE, TXT_TMP, TXT_UNKNOWN, TXT_ERROR, TXT_JOB };

/* -j: most threads */
#define JOBS_MAX 64

/* --output-style: GNU is addr2line's layout (the default), LLVM and JSON
 * are llvm-symbolizer's. */
enum { STYLE_GNU, STYLE_LLVM, STYLE_JSON };

/* One input line of a batch. */
typedef struct {
	uint64_t addr;    /* as given, when ok */
	const char *line; /* the trimmed line, echoed by -a when not ok (else unset) */
	size_t line_len;
	size_t off, len;  /* its answer text in the buffer SRC names */
	uint8_t src;
	bool ok;
} entry;

/* Lines resolved together: bounds the batch's memory whatever the input. */
#define BATCH_LINES ((size_t)1 << 14)
/* Longest prefix of one answer: {"address":"0x<16 digits>","frames": */
#define PREFIX_MAX 48

typedef struct {
	bool print_addr, json;
	bool pretty;         /* -p: a line per frame, callers " (inlined by) " */
	bool basenames;      /* -s: file names without their directories */
	int style;           /* STYLE_* */
	sp_buf module;       /* STYLE_JSON: ,"ModuleName":"FILE" as JSON text */
	sp_buf errors;       /* STYLE_JSON: this batch's answers to lines that are no address */
	bool json_array;     /* STYLE_JSON on arguments: one array of the objects */
	size_t n_objects;    /* objects written into that array */
	bool relative;
	uint64_t rel_adjust; /* added to every address with --relative */
	sp_object *obj;      /* -e FILE, or NULL */
	char *obj_path;      /* where it was found */
	sp_symbolizer *s;
	sink out;
	text_slot *slots;
	size_t n_slots, cap_slots; /* cap: a power of two */
	sp_buf text;
	size_t cache_max;    /* most bytes of text kept */
	size_t n_asked, n_hits; /* addresses looked up in the cache, and found there */
	sp_buf tmp;          /* answers of this batch the cache has no room for */
	sp_buf unknown;      /* the answer for a line that is not an address */
	entry *ents;         /* the batch: BATCH_LINES each */
	size_t n_ents;
	sp_addr_item *misses, *misses_tmp; /* addresses not in the text cache, tag: entry */
	char *prefix;        /* BATCH_LINES * PREFIX_MAX */
	struct job *job;     /* -j N: N of them once opened (open_jobs) */
	int jobs;            /* -j N; 1 once threads are out of the question */
	size_t n_resolved;   /* distinct addresses resolved so far */
	/* the jobs' shared state: what is left of each share, and who works */
	pthread_mutex_t lock;
	pthread_cond_t work; /* a batch was handed out, or the threads are to end */
	pthread_cond_t done; /* the last chunk in hand was finished */
	const sp_addr_item *m; /* the batch's sorted misses, all of them */
	int busy;            /* chunks in hand */
	bool quit;
} sym_ctx;

/* One thread of -j: its share of a batch's sorted misses is resolved
 * in its own session and formatted into its own text.  Job 0 runs on the
 * command's thread with the command's session. */
typedef struct job {
	sym_ctx *c;
	int index;
	sp_symbolizer *s;  /* job 0: c->s; else its own (sp_symbolizer_new_worker) */
	sp_object *obj;    /* -e FILE in that session, or NULL */
	size_t next, end;  /* what is left of its share: c->m[next..end), under c->lock */
	uint8_t src;       /* TXT_JOB + index */
	sp_buf text;       /* this batch's answers */
	pthread_t tid;
	bool started;
} job;

/* Writes every pending piece of output (when no error was seen). */
static void sink_flush(sink *o)
{
	struct iovec *v = o->iov;
	int n = o->n;
	while (n > 0 && !o->err) {
		ssize_t w = writev(o->fd, v, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			break;
		}
		size_t done = (size_t)w;
		while (n > 0 && done >= v->iov_len) {
			done -= v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + done;
			v->iov_len -= done;
		}
	}
	o->n = 0;
}

/* Queues N bytes at P, which must stay put until the next sink_flush;
 * a piece right after the previous one extends it. */
static inline __attribute__((always_inline)) void sink_put(sink *o, const char *p, size_t n)
{
	if (!n)
		return;
	if (o->n) {
		struct iovec *last = &o->iov[o->n - 1];
		if ((const char *)last->iov_base + last->iov_len == p) {
			last->iov_len += n;
			return;
		}
		if (o->n == SINK_IOV)
			sink_flush(o);
	}
	o->iov[o->n++] = (struct iovec){(void *)(uintptr_t)p, n};
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

/* "0x", 16 hex digits and a newline, as addr2line -a prints an address,
 * at B (19 bytes). */
static void put_addr16(char *b, uint64_t a)
{
	b[0] = '0';
	b[1] = 'x';
	for (int i = 17; i >= 2; i--, a >>= 4)
		b[i] = "0123456789abcdef"[a & 15];
	b[18] = '\n';
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
		"usage: symprof symbolize [-e FILE|--obj FILE] [-a] [-f] [-i] [-p] [-s]\n"
		"                         [-C|--demangle[=STYLE]] [--json|--output-style=STYLE]\n"
		"                         [--relative] [OPTIONS] [ADDR...]\n"
		"\n"
		"Prints the function, file and line of each address of FILE (default a.out),\n"
		"with every inline frame, innermost first.  Addresses come from the arguments\n"
		"or one per line from stdin.  Addresses inside a --jit-dir object's loaded\n"
		"section resolve in that object, then --jitdump code; --perf-map and\n"
		"--kallsyms name addresses FILE does not know.  Without -e, FILE is a.out unless a name source is given.\n"
		"\n"
		"  -e, --exe FILE       the ELF file\n"
		"      --obj FILE       the same (llvm-symbolizer's name)\n"
		"  -a, --addresses      print each address before its frames\n"
		"  -f, --functions      print function names (always on)\n"
		"  -i, --inlines        print inline frames (always on)\n"
		"  -p, --pretty-print   a frame per line, FUNC at FILE:LINE, and each one the\n"
		"                       frame before was inlined into as \" (inlined by) ...\"\n"
		"  -s, --basenames      file names without their directories\n"
		"  -C, --demangle[=STYLE]  demangle names: full (default for -C), templates\n"
		"                       (no parameter lists), none (default without -C)\n"
		"      --json           one JSON object per address\n"
		"      --output-style=STYLE  GNU (addr2line's layout, the default), LLVM\n"
		"                       (llvm-symbolizer's: FILE:LINE:COLUMN, a blank line\n"
		"                       after each address) or JSON (llvm-symbolizer's JSON:\n"
		"                       an object per input line, an array for arguments)\n"
		"      --relative       addresses are offsets from the object's load address:\n"
		"                       ADDR + p_vaddr - p_offset of the lowest PT_LOAD\n"
		"      --cache-max=BYTES  keep at most BYTES of answers for repeated addresses\n"
		"                       (default 64 MiB)\n"
		"  -j, --jobs N         resolve large batches of addresses on N threads\n"
		"                       (default 1); the same output as -j 1\n"
		"\n"
		"finding files and names:\n" SP_CLI_FIND_HELP);
}

/* Length of the UTF-8 sequence at S, of N > 0 bytes (1 to 4), or 0 when
 * S does not start a well-formed one (overlong forms, surrogates and code
 * points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c < 0xc2 || c > 0xf4 || n < len)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Appends the N bytes at S escaped for a JSON string (no quotes).  With
 * UTF8 (llvm-symbolizer's form), a byte that is not part of well-formed
 * UTF-8 becomes U+FFFD (in UTF-8), so the output is valid JSON whatever the
 * names hold, and tab, newline and return get their short escapes; without
 * (the --json form), bytes from 0x80 up are copied as they are. */
static void json_chars(sp_buf *b, const char *s, size_t n, bool utf8)
{
	const char *run = s, *end = s + n;
	while (s < end) {
		unsigned char ch = (unsigned char)*s;
		size_t ulen = 1;
		if (ch >= 0x80 && utf8) {
			ulen = utf8_len((const unsigned char *)s, (size_t)(end - s));
			if (ulen) {
				s += ulen;
				continue;
			}
		} else if (ch != '"' && ch != '\\' && ch >= 0x20) {
			s++;
			continue;
		}
		sp_buf_append(b, run, (size_t)(s - run));
		if (!ulen)
			sp_buf_puts(b, "\xef\xbf\xbd"); /* U+FFFD, as llvm-symbolizer */
		else if (ch == '"' || ch == '\\')
			sp_buf_printf(b, "\\%c", ch);
		else if (utf8 && (ch == '\t' || ch == '\n' || ch == '\r')) /* as llvm-symbolizer */
			sp_buf_printf(b, "\\%c", ch == '\t' ? 't' : ch == '\n' ? 'n' : 'r');
		else
			sp_buf_printf(b, "\\u%04x", ch);
		run = ++s;
	}
	sp_buf_append(b, run, (size_t)(s - run));
}

/* Appends S as a JSON string: NULL as null, or with EMPTY_NULL as "". */
static void json_put(sp_buf *b, const char *s, bool empty_null, bool utf8)
{
	if (!s) {
		sp_buf_puts(b, empty_null ? "\"\"" : "null");
		return;
	}
	sp_buf_append(b, "\"", 1);
	json_chars(b, s, strlen(s), utf8);
	sp_buf_append(b, "\"", 1);
}

static void json_str(sp_buf *b, const char *s)
{
	json_put(b, s, false, false);
}

/* A string of llvm-symbolizer's JSON: unknown is "". */
static void json_text(sp_buf *b, const char *s)
{
	json_put(b, s, true, true);
}

/* FILE as printed: without its directories with -s. */
static const char *file_name(const sym_ctx *c, const char *file)
{
	const char *slash = c->basenames && file ? strrchr(file, '/') : NULL;
	return slash ? slash + 1 : file;
}

/* llvm-symbolizer's "Symbol" array: every frame innermost first, or one
 * frame of unknowns when nothing is known.  The function's start address
 * and the file of its declaration are not looked up: they print as
 * llvm-symbolizer prints them when unknown. */
static void format_llvm_json(const sym_ctx *c, const sp_frame *fr, size_t n, sp_buf *b)
{
	static const sp_frame none = {0};
	sp_buf_puts(b, "[");
	for (size_t i = 0; i < (n ? n : 1); i++) {
		const sp_frame *f = n ? &fr[i] : &none;
		sp_buf_printf(b, "%s{\"Column\":%" PRId64 ",\"Discriminator\":%" PRIu32 ",\"FileName\":",
			      i ? "," : "", f->column, f->discriminator);
		json_text(b, file_name(c, f->file));
		sp_buf_puts(b, ",\"FunctionName\":");
		json_text(b, f->name);
		sp_buf_printf(b,
			      ",\"Line\":%" PRId64 ",\"StartAddress\":\"\",\"StartFileName\":\"\""
			      ",\"StartLine\":%" PRId64 "}",
			      f->line, f->start_line);
	}
	sp_buf_puts(b, "]");
}

/* The text forms other than the default: -p (FUNC at FILE:LINE, then
 * " (inlined by) " frames), -s, and the LLVM style (FILE:LINE:COLUMN, a
 * blank line after each address). */
static void format_text(const sym_ctx *c, const sp_frame *fr, size_t n, sp_buf *b)
{
	bool llvm = c->style == STYLE_LLVM;
	if (n == 0)
		sp_buf_puts(b, llvm ? (c->pretty ? "?? at ??:0:0\n" : "??\n??:0:0\n")
				    : (c->pretty ? "?? ??:0\n" : "??\n??:0\n"));
	for (size_t i = 0; i < n; i++) {
		const char *file = file_name(c, fr[i].file);
		if (c->pretty && i)
			sp_buf_puts(b, " (inlined by) ");
		sp_buf_puts(b, fr[i].name ? fr[i].name : "??");
		sp_buf_puts(b, c->pretty ? " at " : "\n");
		sp_buf_printf(b, "%s:%" PRId64, file ? file : "??", fr[i].line > 0 ? fr[i].line : 0);
		if (llvm)
			sp_buf_printf(b, ":%" PRId64, fr[i].column > 0 ? fr[i].column : 0);
		sp_buf_puts(b, "\n");
	}
	if (llvm)
		sp_buf_puts(b, "\n");
}

/* Appends the frames of one address to B: the JSON "frames" array, or
 * function and file:line lines. */
static void format_frames(const sym_ctx *c, const sp_frame *fr, size_t n, sp_buf *b)
{
	if (c->style == STYLE_JSON) {
		format_llvm_json(c, fr, n, b);
		return;
	}
	if (c->json) {
		sp_buf_puts(b, "[");
		for (size_t i = 0; i < n; i++) {
			sp_buf_puts(b, i ? ",{\"function\":" : "{\"function\":");
			json_str(b, fr[i].name);
			sp_buf_puts(b, ",\"raw\":");
			json_str(b, fr[i].system_name);
			sp_buf_puts(b, ",\"file\":");
			json_str(b, file_name(c, fr[i].file));
			sp_buf_printf(b,
				      ",\"line\":%" PRId64 ",\"column\":%" PRId64
				      ",\"start_line\":%" PRId64 ",\"inlined\":%s}",
				      fr[i].line, fr[i].column, fr[i].start_line,
				      fr[i].inlined ? "true" : "false");
		}
		sp_buf_puts(b, "]");
		return;
	}
	if (c->pretty || c->basenames || c->style == STYLE_LLVM) {
		format_text(c, fr, n, b);
		return;
	}
	if (n == 0) {
		sp_buf_puts(b, "??\n??:0\n");
		return;
	}
	/* the lengths first, then one growth and straight copies */
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t line = fr[i].line > 0 ? (uint64_t)fr[i].line : 0;
		size_t digits = 1;
		while (line >= 10) {
			line /= 10;
			digits++;
		}
		total += strlen(fr[i].name ? fr[i].name : "??") +
			 strlen(fr[i].file ? fr[i].file : "??") + digits + 3;
	}
	sp_grow(&b->data, &b->cap, b->len + total + 1, 1);
	char *o = b->data + b->len;
	for (size_t i = 0; i < n; i++) {
		const char *name = fr[i].name ? fr[i].name : "??";
		const char *file = fr[i].file ? fr[i].file : "??";
		size_t nl = strlen(name), fl = strlen(file);
		memcpy(o, name, nl);
		o += nl;
		*o++ = '\n';
		memcpy(o, file, fl);
		o += fl;
		*o++ = ':';
		char num[24], *e = num + sizeof(num), *q = e;
		uint64_t line = fr[i].line > 0 ? (uint64_t)fr[i].line : 0;
		do
			*--q = (char)('0' + line % 10);
		while (line /= 10);
		memcpy(o, q, (size_t)(e - q));
		o += e - q;
		*o++ = '\n';
	}
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
}

/* Frames for ADDR (as given) and VADDR (ADDR in FILE's address space)
 * from the name sources, FILE right after the JIT objects (sources.c).
 * The frames last until the next lookup: each address is looked up once,
 * its text kept in the text cache. */
static void lookup(sp_symbolizer *s, sp_object *obj, uint64_t addr, uint64_t vaddr,
		   sp_named *out)
{
	sp_name_query q = {
		.addr = addr,
		.kind = sp_code_kind_of(NULL, NULL, addr),
		.file = obj,
		.file_addr = vaddr,
		.once = true,
	};
	sp_name_address(s, &q, out);
}

/* Output text per address is kept (up to this much in all by default,
 * --cache-max), so the hot addresses of a profile-like list cost one
 * lookup and one copy. */
#define TEXT_CACHE_MAX ((size_t)64 << 20)

/* Answers every address of the batch that the text cache lacks, sorted
 * (batch.c), in address order, once per distinct address. */
static void resolve_misses(sym_ctx *c, sp_addr_item *m, size_t n)
{
	sp_named named = {0};
	for (size_t i = 0, end; i < n; i = end) {
		end = sp_addr_items_run(m, n, i);
		uint64_t addr = m[i].addr;
		uint64_t vaddr = c->relative ? addr + c->rel_adjust : addr;
		lookup(c->s, c->obj, addr, vaddr, &named);
		size_t off = c->text.len;
		format_frames(c, named.frames, named.n_frames, &c->text);
		size_t tl = c->text.len - off;
		uint8_t src = TXT_CACHE;
		if (c->cache_max && c->text.len <= c->cache_max && tl < 0xffffff) {
			cache_put(c, addr, (uint32_t)off, (uint32_t)tl);
		} else {
			src = TXT_TMP;
			sp_buf_append(&c->tmp, c->text.data + off, tl);
			c->text.len = off;
			off = c->tmp.len - tl;
		}
		for (size_t k = i; k < end; k++) {
			entry *e = &c->ents[m[k].tag];
			e->src = src;
			e->off = off;
			e->len = tl;
		}
	}
	sp_named_clear(&named);
}

/* Parallel resolution (-j N).  A batch's misses, sorted, are cut into N
 * runs of about equal length at address boundaries, one per thread: each
 * thread's session reads mostly the compile units (line tables, function
 * trees) of its own address range.  Each thread resolves its run in
 * address order, JOB_CHUNK misses at a time, in a session of its own (no
 * libdw handle is shared between threads), formats the answers into its
 * own text, and writes the answers' places into the entries of its
 * addresses, which no other thread touches; a thread done with its run
 * takes chunks from the end of another's (take_chunk).  The threads are
 * started once and wait between batches.  When no chunk is left or in
 * hand, the command's thread copies the answers into the text cache as
 * the serial path would, and writes the batch in input order: the bytes
 * are those of -j 1 whatever the thread count.
 *
 * Opening the other sessions costs about what resolving some thousands
 * of addresses does (the debug file found and indexed again, per
 * thread), and handing a batch out costs a wake-up per thread: threads are
 * used only for a batch of at least JOBS_MIN_BATCH distinct misses, and
 * only once the run has resolved at least JOBS_MIN_RUN distinct
 * addresses, this batch's included (at about 1 us an address, the
 * session opened for a second thread costs 1.5 ms for a stripped Go
 * binary's table, 7 ms for 6.5 MiB of DWARF).  Below that, -j N runs
 * exactly as -j 1. */
#define JOBS_MIN_BATCH 2048
#define JOBS_MIN_RUN 16384

/* Misses a job takes at a time. */
#define JOB_CHUNK 256

/* Takes (under c->lock) the next chunk of J's own share, else the last
 * chunk of another's, as m[*a..*b) (cut at address boundaries); false
 * when nothing is left.  So a thread that is not running (the machine is
 * shared) holds no batch up: the others take its share, the command's
 * thread waits only for chunks in hand, never for a thread to wake. */
static bool take_chunk(job *j, size_t *a, size_t *b)
{
	sym_ctx *c = j->c;
	const sp_addr_item *m = c->m;
	if (j->next < j->end) {
		size_t e = j->end - j->next > JOB_CHUNK ? j->next + JOB_CHUNK : j->end;
		while (e < j->end && m[e].addr == m[e - 1].addr)
			e++;
		*a = j->next;
		*b = j->next = e;
		c->busy++;
		return true;
	}
	for (int k = 1; k < c->jobs; k++) {
		job *v = &c->job[(j->index + k) % c->jobs];
		if (v->next == v->end)
			continue;
		size_t s = v->end - v->next > JOB_CHUNK ? v->end - JOB_CHUNK : v->next;
		while (s > v->next && m[s].addr == m[s - 1].addr)
			s--;
		*a = s;
		*b = v->end;
		v->end = s;
		c->busy++;
		return true;
	}
	return false;
}

/* Resolves m[a..b) in J's session into J's text, and ends the chunk. */
static void run_chunk(job *j, size_t a, size_t b, sp_named *named)
{
	sym_ctx *c = j->c;
	const sp_addr_item *m = c->m;
	for (size_t i = a, end; i < b; i = end) {
		end = sp_addr_items_run(m, b, i);
		uint64_t addr = m[i].addr;
		uint64_t vaddr = c->relative ? addr + c->rel_adjust : addr;
		lookup(j->s, j->obj, addr, vaddr, named);
		size_t off = j->text.len;
		format_frames(c, named->frames, named->n_frames, &j->text);
		for (size_t k = i; k < end; k++) {
			entry *e = &c->ents[m[k].tag];
			e->src = j->src;
			e->off = off;
			e->len = j->text.len - off;
		}
	}
	pthread_mutex_lock(&c->lock);
	if (--c->busy == 0)
		pthread_cond_signal(&c->done);
	pthread_mutex_unlock(&c->lock);
}

/* A thread of jobs 1..N-1: chunks of every batch until told to end. */
static void *job_thread(void *arg)
{
	job *j = arg;
	sym_ctx *c = j->c;
	sp_named named = {0};
	size_t a, b;
	pthread_mutex_lock(&c->lock);
	while (!c->quit) {
		if (!take_chunk(j, &a, &b)) {
			pthread_cond_wait(&c->work, &c->lock);
			continue;
		}
		pthread_mutex_unlock(&c->lock);
		run_chunk(j, a, b, &named);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	sp_named_clear(&named);
	return NULL;
}

/* Makes the sessions of jobs 1..N-1 and opens -e FILE in each, and in
 * the command's session, here, one after the other: opening may ask
 * debuginfod, whose client library is not to be used from two threads at
 * once (it sets environment variables); then starts their threads.
 * False (and threads are not used again) when a session cannot have the
 * file. */
static bool open_jobs(sym_ctx *c)
{
	c->job = sp_xcalloc((size_t)c->jobs, sizeof(*c->job));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
	for (int k = 0; k < c->jobs; k++) {
		job *j = &c->job[k];
		j->c = c;
		j->index = k;
		j->src = (uint8_t)(TXT_JOB + k);
		j->s = k ? sp_symbolizer_new_worker(c->s) : c->s;
		j->obj = k ? NULL : c->obj;
	}
	/* the command's own too: the first batch can be a parallel one */
	sp_error_free(c->obj ? sp_object_open(c->obj) : NULL);
	for (int k = 1; k < c->jobs && c->obj; k++) {
		job *j = &c->job[k];
		sp_error *e = sp_symbolizer_object(j->s, c->obj_path, NULL, &j->obj);
		if (!e)
			e = sp_object_open(j->obj);
		if (e && !j->obj) {
			sp_error_free(e);
			return false;
		}
		sp_error_free(e); /* cached: the object's addresses stay unknown, as in c->s */
	}
	/* a job without a thread: the others take its share */
	for (int k = 1; k < c->jobs; k++)
		c->job[k].started = pthread_create(&c->job[k].tid, NULL, job_thread, &c->job[k]) == 0;
	return true;
}

static void free_jobs(sym_ctx *c)
{
	if (!c->job)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (int k = 0; k < c->jobs; k++) {
		if (c->job[k].started)
			pthread_join(c->job[k].tid, NULL);
		if (k)
			sp_symbolizer_free(c->job[k].s);
		sp_buf_free(&c->job[k].text);
	}
	free(c->job);
	c->job = NULL;
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
}

/* Resolves the sorted misses M[0..n) on the jobs' threads; false when
 * threads are not to be used (then nothing is done). */
static bool resolve_parallel(sym_ctx *c, sp_addr_item *m, size_t n)
{
	size_t distinct = 0;
	for (size_t i = 0; i < n; i = sp_addr_items_run(m, n, i))
		distinct++;
	c->n_resolved += distinct;
	if (c->jobs < 2 || distinct < JOBS_MIN_BATCH || c->n_resolved < JOBS_MIN_RUN)
		return false;
	if (!c->job && !open_jobs(c)) {
		free_jobs(c);
		c->jobs = 1;
		return false;
	}
	/* cut at address boundaries, so each address is one job's */
	pthread_mutex_lock(&c->lock);
	c->m = m;
	size_t at = 0;
	for (int k = 0; k < c->jobs; k++) {
		job *j = &c->job[k];
		size_t end = k == c->jobs - 1 ? n : n / (size_t)c->jobs * (size_t)(k + 1);
		if (end < at)
			end = at;
		while (end > at && end < n && m[end].addr == m[end - 1].addr)
			end++;
		j->next = at;
		j->end = at = end;
		sp_buf_reset(&j->text);
	}
	pthread_cond_broadcast(&c->work);
	job *j0 = &c->job[0];
	sp_named named = {0};
	size_t a, b;
	while (take_chunk(j0, &a, &b)) {
		pthread_mutex_unlock(&c->lock);
		run_chunk(j0, a, b, &named);
		pthread_mutex_lock(&c->lock);
	}
	while (c->busy)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
	sp_named_clear(&named);

	/* into the text cache, as resolve_misses puts them */
	for (size_t i = 0, end; i < n && c->cache_max; i = end) {
		end = sp_addr_items_run(m, n, i);
		const entry *first = &c->ents[m[i].tag];
		size_t tl = first->len;
		if (c->text.len + tl > c->cache_max || tl >= 0xffffff)
			continue;
		size_t off = c->text.len;
		sp_buf_append(&c->text, c->job[first->src - TXT_JOB].text.data + first->off, tl);
		cache_put(c, m[i].addr, (uint32_t)off, (uint32_t)tl);
		for (size_t k = i; k < end; k++) {
			entry *e = &c->ents[m[k].tag];
			e->src = TXT_CACHE;
			e->off = off;
			e->len = tl;
		}
	}
	return true;
}

/* A list of distinct addresses (no repeats to save) would only fill the
 * text cache: after this many look-ups with fewer than 1% found there,
 * the cache is dropped and every answer is made for its batch alone. */
#define CACHE_TRIAL 65536

/* Answers the batch's lines and writes them, in input order. */
static void run_batch(sym_ctx *c)
{
	size_t n_miss = 0;
	sp_buf_reset(&c->tmp);
	if (c->cap_slots && c->n_asked >= CACHE_TRIAL && c->n_hits * 100 < c->n_asked) {
		free(c->slots);
		c->slots = NULL;
		c->n_slots = c->cap_slots = 0;
		sp_buf_reset(&c->text);
		c->cache_max = 0;
	}
	for (size_t i = 0; i < c->n_ents; i++) {
		entry *e = &c->ents[i];
		const text_slot *t = e->ok && c->cache_max ? cache_get(c, e->addr) : NULL;
		c->n_asked += e->ok;
		c->n_hits += t != NULL;
		if (t) {
			e->src = TXT_CACHE;
			e->off = t->off;
			e->len = t->len;
		} else if (e->ok) {
			c->misses[n_miss++] = (sp_addr_item){e->addr, i};
		} else if (c->style == STYLE_JSON) {
			/* llvm-symbolizer's answer to a line that is no address */
			e->src = TXT_ERROR;
			e->off = c->errors.len;
			sp_buf_puts(&c->errors, "{\"Error\":{\"Message\":\"unable to parse arguments: ");
			json_chars(&c->errors, e->line, e->line_len, true);
			sp_buf_puts(&c->errors, "\"}");
			sp_buf_append(&c->errors, c->module.data, c->module.len);
			sp_buf_puts(&c->errors, "}");
			e->len = c->errors.len - e->off;
		} else {
			e->src = TXT_UNKNOWN;
			e->off = 0;
			e->len = c->unknown.len;
		}
	}
	if (n_miss > 1)
		sp_addr_items_sort(c->misses, c->misses_tmp, n_miss);
	if (n_miss && !resolve_parallel(c, c->misses, n_miss))
		resolve_misses(c, c->misses, n_miss);

	char *pre = c->prefix;
	for (size_t i = 0; i < c->n_ents; i++) {
		const entry *e = &c->ents[i];
		uint64_t vaddr = c->relative ? e->addr + c->rel_adjust : e->addr;
		if (c->json_array)
			sink_put(&c->out, c->n_objects++ ? "," : "[", 1);
		if (e->src == TXT_ERROR) {
			sink_put(&c->out, c->errors.data + e->off, e->len);
			if (!c->json_array)
				sink_put(&c->out, "\n", 1);
			continue;
		}
		if (c->style == STYLE_JSON) {
			int k = snprintf(pre, PREFIX_MAX, "{\"Address\":\"0x%" PRIx64 "\"", vaddr);
			sink_put(&c->out, pre, (size_t)k);
			pre += k;
			sink_put(&c->out, c->module.data, c->module.len);
			sink_put(&c->out, ",\"Symbol\":", 10);
		} else if (c->json) {
			int k = e->ok ? snprintf(pre, PREFIX_MAX,
						 "{\"address\":\"0x%" PRIx64 "\",\"frames\":", vaddr)
				      : snprintf(pre, PREFIX_MAX, "{\"address\":\"\",\"frames\":");
			sink_put(&c->out, pre, (size_t)k);
			pre += k;
		} else if (c->style == STYLE_LLVM && !e->ok) {
			/* llvm-symbolizer echoes a line that is no address */
			sink_put(&c->out, e->line, e->line_len);
			sink_put(&c->out, "\n", 1);
			continue;
		} else if (c->style == STYLE_LLVM && c->print_addr) {
			int k = snprintf(pre, PREFIX_MAX, "0x%" PRIx64 "%s", vaddr,
					 c->pretty ? ": " : "\n");
			sink_put(&c->out, pre, (size_t)k);
			pre += k;
		} else if (c->print_addr && c->pretty) {
			if (e->ok) {
				put_addr16(pre, vaddr);
				memcpy(pre + 18, ": ", 2);
				sink_put(&c->out, pre, 20);
				pre += 20;
			} else {
				sink_put(&c->out, e->line, e->line_len);
				sink_put(&c->out, ": ", 2);
			}
		} else if (c->print_addr) {
			if (e->ok) {
				put_addr16(pre, vaddr);
				sink_put(&c->out, pre, 19);
				pre += 19;
			} else {
				sink_put(&c->out, e->line, e->line_len);
				sink_put(&c->out, "\n", 1);
			}
		}
		const char *base = e->src == TXT_CACHE	 ? c->text.data
				   : e->src == TXT_TMP	 ? c->tmp.data
				   : e->src >= TXT_JOB	 ? c->job[e->src - TXT_JOB].text.data
							 : c->unknown.data;
		sink_put(&c->out, base + e->off, e->len);
		if (c->json_array)
			sink_put(&c->out, "}", 1);
		else if (c->json || c->style == STYLE_JSON)
			sink_put(&c->out, "}\n", 2);
	}
	sink_flush(&c->out);
	sp_buf_reset(&c->errors);
	c->n_ents = 0;
}

/* Adds the line TEXT (LEN bytes, no newline) to the batch, running the
 * batch when it is full. */
static void add_line(sym_ctx *c, const char *text, size_t len)
{
	while (len && (text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	entry *e = &c->ents[c->n_ents++];
	e->line = text;
	e->line_len = len;
	e->ok = parse_hex(text, text + len, &e->addr);
	if (c->n_ents == BATCH_LINES)
		run_batch(c);
}

/* Adds the lines of BUF (LEN bytes, BUF[LEN] readable and not a hex
 * digit) to the batch; the last line only at EOF when it has no newline.
 * Returns the bytes used.  The common line, hex digits and a newline, is
 * parsed in the same pass that finds its end. */
static size_t add_lines(sym_ctx *c, const char *buf, size_t len, bool eof)
{
	const unsigned char *t = hex_digits();
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *q = p;
		if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
			q += 2;
		const char *digits = q;
		uint64_t v = 0;
		unsigned d;
		while ((d = t[(unsigned char)*q]) < 16) {
			v = v << 4 | d;
			q++;
		}
		if (q < end && *q == '\n' && q > digits && q - digits <= 16) {
			entry *e = &c->ents[c->n_ents++];
			e->addr = v;
			e->ok = true;
			if (c->n_ents == BATCH_LINES)
				run_batch(c);
			p = q + 1;
			continue;
		}
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (!nl) {
			if (!eof)
				break;
			nl = end;
		}
		add_line(c, p, (size_t)(nl - p));
		p = nl < end ? nl + 1 : end;
	}
	return (size_t)(p - buf);
}

/* True when stdin has input (or EOF) to read without waiting. */
static bool input_ready(void)
{
	struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
	int r;
	while ((r = poll(&pfd, 1, 0)) < 0 && errno == EINTR)
		;
	return r != 0;
}

/* Input is read in blocks of up to READ_BLOCK: as long as more is ready
 * at once and there is room, then the block's lines are answered and
 * written before the next read, which could block.  So a co-process sees
 * its answer as soon as its line is sent, and bulk input is answered in
 * large batches. */
#define READ_BLOCK ((size_t)1 << 20)

static int run_stdin(sym_ctx *c)
{
	size_t cap = READ_BLOCK, len = 0;
	char *buf = sp_xmalloc(cap + 1);
	bool eof = false;
	while (!eof) {
		if (len == cap) { /* one line longer than the block */
			cap *= 2;
			buf = sp_xrealloc(buf, cap + 1);
		}
		for (;;) {
			ssize_t got = read(STDIN_FILENO, buf + len, cap - len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0) {
				fprintf(stderr, "symprof symbolize: stdin: %s\n", strerror(errno));
				free(buf);
				return 1;
			}
			if (got == 0) {
				eof = true;
				break;
			}
			len += (size_t)got;
			if (len == cap || !input_ready())
				break;
		}
		buf[len] = '\0';
		size_t used = add_lines(c, buf, len, eof);
		if (c->n_ents)
			run_batch(c);
		memmove(buf, buf + used, len - used);
		len -= used;
	}
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
	if (!err) {
		c->obj_path = found ? found : sp_xstrdup(exe);
		return true;
	}
	free(found);
	char *msg = sp_error_string(err);
	fprintf(stderr, "symprof symbolize: %s\n", msg);
	free(msg);
	sp_error_free(err);
	return false;
}

int cmd_symbolize(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_RELATIVE, OPT_CACHE_MAX, OPT_OBJ, OPT_STYLE };
	static const struct option longopts[] = {
		{"exe", required_argument, NULL, 'e'},
		{"obj", required_argument, NULL, OPT_OBJ},
		{"pretty-print", no_argument, NULL, 'p'},
		{"basenames", no_argument, NULL, 's'},
		{"output-style", required_argument, NULL, OPT_STYLE},
		{"addresses", no_argument, NULL, 'a'},
		{"functions", no_argument, NULL, 'f'},
		{"inlines", no_argument, NULL, 'i'},
		{"demangle", optional_argument, NULL, 'C'},
		{"json", no_argument, NULL, OPT_JSON},
		{"relative", no_argument, NULL, OPT_RELATIVE},
		{"cache-max", required_argument, NULL, OPT_CACHE_MAX},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		SP_CLI_FIND_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	const char *exe = NULL;
	sym_ctx c = {.out = {.fd = STDOUT_FILENO}, .cache_max = TEXT_CACHE_MAX};
	sp_cli_sym cli;
	int opt, rc = 0;

	sp_cli_sym_init(&cli);
	cli.cmd = "symbolize";
	cli.sym.demangle = SP_DEMANGLE_NONE;
	optind = 1;
	opterr = 0;
	bool style_given = false;
	while ((opt = getopt_long(argc, argv, ":e:afipsCj:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
		case OPT_OBJ:
			if (exe && strcmp(exe, optarg))
				rc = sp_cli_usage("symbolize", "%s %s: the object is already %s",
						  opt == 'e' ? "-e" : "--obj", optarg, exe);
			exe = optarg;
			break;
		case 'a': c.print_addr = true; break;
		case 'p': c.pretty = true; break;
		case 's': c.basenames = true; break;
		case OPT_STYLE:
			style_given = true;
			if (!strcmp(optarg, "GNU"))
				c.style = STYLE_GNU;
			else if (!strcmp(optarg, "LLVM"))
				c.style = STYLE_LLVM;
			else if (!strcmp(optarg, "JSON"))
				c.style = STYLE_JSON;
			else
				rc = sp_cli_usage("symbolize",
						  "--output-style=%s: expected GNU, LLVM or JSON", optarg);
			break;
		case 'f':
		case 'i': break;
		case 'C':
			if (!optarg || !strcmp(optarg, "full"))
				cli.sym.demangle = SP_DEMANGLE_FULL;
			else if (!strcmp(optarg, "simple"))
				cli.sym.demangle = SP_DEMANGLE_SIMPLE;
			else if (!strcmp(optarg, "templates"))
				cli.sym.demangle = SP_DEMANGLE_TEMPLATES;
			else if (!strcmp(optarg, "none"))
				cli.sym.demangle = SP_DEMANGLE_NONE;
			else
				rc = sp_cli_usage("symbolize",
						  "--demangle=%s: expected full, simple, templates or none",
						  optarg);
			break;
		case OPT_JSON: c.json = true; break;
		case OPT_RELATIVE: c.relative = true; break;
		case OPT_CACHE_MAX: {
			uint64_t v;
			if (!sp_parse_u64(optarg, optarg + strlen(optarg), 10, &v) ||
			    v > (uint64_t)UINT32_MAX)
				rc = sp_cli_usage("symbolize",
						  "--cache-max=%s: expected a number of bytes up to %" PRIu32,
						  optarg, UINT32_MAX);
			c.cache_max = (size_t)v;
			break;
		}
		case 'j': {
			uint64_t v;
			if (!sp_parse_u64(optarg, optarg + strlen(optarg), 10, &v) || v < 1 ||
			    v > JOBS_MAX)
				rc = sp_cli_usage("symbolize", "-j expects a number from 1 to %d, got '%s'",
						  JOBS_MAX, optarg);
			c.jobs = (int)v;
			break;
		}
		case 'h':
			usage(stdout);
			sp_cli_sym_clear(&cli);
			return 0;
		default:
			if (opt < 1000)
				rc = sp_cli_bad_option("symbolize", opt, argv);
			else if (sp_cli_sym_option(&cli, opt, optarg) != 0)
				rc = 2;
			break;
		}
		if (rc) {
			sp_cli_sym_clear(&cli);
			return rc;
		}
	}
	if (c.json && style_given)
		rc = sp_cli_usage("symbolize", "--json and --output-style are two output forms: give one");
	else if (c.pretty && (c.json || c.style == STYLE_JSON))
		rc = sp_cli_usage("symbolize", "-p (--pretty-print) is a text form: not with JSON output");
	if (rc) {
		sp_cli_sym_clear(&cli);
		return rc;
	}
	sp_cli_sym_finish(&cli);
	c.s = sp_symbolizer_new(&cli.sym);
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	sp_error *err = sp_symbolizer_sources(c.s, &jit, &perf, &ksyms);
	if (err) {
		char *msg = sp_error_string(err);
		fprintf(stderr, "symprof symbolize: %s\n", msg);
		free(msg);
		sp_error_free(err);
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 1;
	}
	/* a JIT object is opened at its first address, on whichever thread
	 * meets it: with --jit-dir every address is resolved on this one */
	if (jit || c.jobs < 1)
		c.jobs = 1;
	if (!exe && !jit && !perf && !ksyms && !sp_symbolizer_perfjit(c.s))
		exe = "a.out";
	if (exe && !open_exe(&c, &cli.sym, exe)) {
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 1;
	}
	if (c.relative && !c.obj) {
		sp_cli_usage("symbolize", "--relative needs -e FILE");
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 2;
	}
	if (c.relative) {
		const sp_elf_info *info = sp_object_info(c.obj);
		c.rel_adjust = sp_relative_adjust(info->loads, info->n_loads);
	}

	fflush(stdout);
	if (c.style != STYLE_LLVM) /* which echoes the line alone */
		format_frames(&c, NULL, 0, &c.unknown);
	sp_buf_puts(&c.module, ",\"ModuleName\":");
	json_text(&c.module, exe ? exe : "");
	c.ents = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c.ents));
	c.misses = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c.misses));
	c.misses_tmp = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c.misses_tmp));
	c.prefix = sp_xreallocarray(NULL, BATCH_LINES, PREFIX_MAX);
	if (optind < argc) {
		/* llvm-symbolizer answers its arguments with one JSON array */
		c.json_array = c.style == STYLE_JSON;
		for (int i = optind; i < argc; i++)
			add_line(&c, argv[i], strlen(argv[i]));
		if (c.n_ents)
			run_batch(&c);
		if (c.json_array) {
			sink_put(&c.out, "]\n", 2);
			sink_flush(&c.out);
		}
	} else {
		rc = run_stdin(&c);
	}
	if (c.out.err) {
		fprintf(stderr, "symprof symbolize: writing output: %s\n", strerror(c.out.err));
		rc = 1;
	}
	free(c.ents);
	free(c.misses);
	free(c.misses_tmp);
	free(c.prefix);
	free(c.slots);
	sp_buf_free(&c.text);
	sp_buf_free(&c.tmp);
	sp_buf_free(&c.unknown);
	sp_buf_free(&c.module);
	sp_buf_free(&c.errors);
	free_jobs(&c);
	free(c.obj_path);
	sp_symbolizer_free(c.s);
	sp_cli_sym_clear(&cli);
	return rc;
}
