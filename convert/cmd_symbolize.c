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
 * out in input order with writev straight from the cache.  With -j N a
 * large block is parsed, looked up, sorted, resolved and formatted on N
 * threads (run_block), and only written on the command's.
 */
#include "convert/convert.h"

#include <elf.h>
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
 * one memcpy of every answer, cost more than the lookups.  A sink with
 * GROW keeps every piece (a part of a parallel batch, written later in
 * input order); the command's own sink writes when SINK_IOV are queued. */
#define SINK_IOV 1024

typedef struct {
	struct iovec *iov;
	size_t n, cap;
	int fd;
	int err; /* errno of the first failed write; output stops there */
	bool grow;
} sink;

/* Output text per address, kept in open-addressing tables of slots that
 * each fit in a cache line with their neighbours (len 0: empty); SRC
 * names the buffer that holds the text (TXT_CACHE or a job's kept text).
 * With -j N there are N tables, an address's table chosen by its hash,
 * so that N threads fill them at once. */
typedef struct {
	uint64_t addr;
	uint32_t off;      /* into the buffer SRC names */
	uint32_t len : 24; /* < TEXT_LEN_MAX */
	uint32_t src : 8;
} text_slot;

typedef struct {
	text_slot *slots;
	size_t n_slots, cap_slots; /* cap: a power of two */
} text_table;

/* Longest answer kept for a repeated address */
#define TEXT_LEN_MAX 0xffffff

/* Where an input line's answer text is: TXT_CACHE is the command's kept
 * text, TXT_TMP this batch's answers it has no room for; TXT_JOB + 2(k-1)
 * and the next are job k's (k >= 1) kept and batch texts. */
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

/* A part of a batch: the lines of a piece of the input block, parsed,
 * looked up and written out by one thread of -j N (run_block); the batch
 * of the serial path is part 0.  An entry's tag (sp_addr_item) is its
 * part << PART_SHIFT | its index there. */
typedef struct {
	const char *buf; /* its lines: buf[0..len), all complete unless EOF */
	size_t len;
	bool eof;
	entry *ents;
	size_t n_ents, cap_ents;
	sp_addr_item *m, *m_tmp; /* its misses, sorted */
	size_t n_m, cap_m;
	size_t asked, hits;      /* text-cache look-ups and hits */
	sp_buf errors;           /* STYLE_JSON: its answers to lines that are no address */
	size_t n_sym;            /* lines that may be symbols' names */
	char *prefix;            /* PREFIX_MAX per entry */
	size_t cap_prefix;
	sink out;                /* its output, in order (grow) */
} part;

#define PART_SHIFT 20

/* A task of a phase of the jobs (run_phase): number TASK, run by job J. */
struct sym_ctx;
struct job;
typedef void task_fn(struct sym_ctx *c, struct job *j, size_t task);

typedef struct sym_ctx {
	bool print_addr, json;
	bool pretty;         /* -p: a line per frame, callers " (inlined by) " */
	bool basenames;      /* -s: file names without their directories */
	sp_text_form form;   /* the GNU and LLVM text forms */
	int addr_digits;     /* -a in the GNU style: as many as the ELF class has */
	const char *section; /* --section: addresses are offsets in it */
	uint64_t section_base; /* ... which starts there */
	size_t names_missing; /* names in the input that are no symbol's */
	int style;           /* STYLE_* */
	sp_buf module;       /* STYLE_JSON: ,"ModuleName":"FILE" as JSON text */
	bool json_array;     /* STYLE_JSON on arguments: one array of the objects */
	size_t n_objects;    /* objects written into that array */
	bool relative;
	uint64_t rel_adjust; /* added to every address with --relative */
	sp_object *obj;      /* -e FILE, or NULL */
	char *obj_path;      /* where it was found */
	sp_symbolizer *s;
	sink out;
	text_table *tables;  /* the text cache: n_tables of them */
	unsigned n_tables;   /* -j N: N */
	sp_buf text;         /* job 0's kept answers (TXT_CACHE) */
	size_t cache_max;    /* most bytes of text kept, all jobs' */
	size_t kept_others;  /* bytes kept by jobs 1..N-1 */
	size_t n_asked, n_hits; /* addresses looked up in the cache, and found there */
	sp_buf tmp;          /* answers of this batch job 0 keeps no room for */
	sp_buf unknown;      /* the answer for a line that is not an address */
	part *part;          /* part 0: the serial batch (BATCH_LINES) */
	size_t n_parts, cap_parts;
	sp_addr_item *misses, *misses_tmp; /* a batch's misses, sorted; tag: entry */
	size_t n_misses, cap_misses;
	struct job *job;     /* -j N: N of them, job 0 the command's own */
	int jobs;            /* -j N; 1 once threads are out of the question */
	bool threads;        /* jobs 1..N-1 have been started */
	bool sessions;       /* ... and have sessions of their own */
	bool no_sessions;    /* a session could not open FILE: resolution stays here */
	pthread_mutex_t open_lock; /* held by a job opening FILE in its session */
	size_t *returned;    /* resolution chunks a job could not run (open_job failed) */
	size_t n_returned, cap_returned;
	size_t n_resolved;   /* distinct addresses resolved so far */
	/* run_block's sort ranges: bounds[r * n_parts + p] is where range r
	 * starts in part p's misses; range r goes to misses + range_off[r] */
	size_t *bounds, *range_off, *range_distinct;
	size_t n_ranges;
	size_t *chunks;      /* resolution chunks: misses[chunks[t]..chunks[t+1]) */
	size_t n_chunks, cap_chunks;
	/* the jobs' shared state: what is left of each share, and who works */
	pthread_mutex_t lock;
	pthread_cond_t work; /* a phase was handed out, or the threads are to end */
	pthread_cond_t done; /* the last task in hand was finished */
	task_fn *fn;         /* the phase's task */
	int busy;            /* tasks in hand */
	bool quit;
} sym_ctx;

/* One thread of -j: job 0 runs on the command's thread with the command's
 * session; the others run tasks of every phase (parts of the input, sort
 * ranges, text tables) and, once they have sessions of their own, chunks
 * of a batch's sorted misses, whose answers go into their own texts. */
typedef struct job {
	sym_ctx *c;
	int index;
	sp_symbolizer *s;  /* job 0: c->s; else its own (sp_symbolizer_new_worker) */
	sp_object *obj;    /* -e FILE in that session, or NULL */
	size_t next, end;  /* what is left of its share of tasks, under c->lock */
	sp_buf *keep;      /* answers kept for the text cache: job 0 c->text */
	sp_buf *tmp;       /* this batch's others: job 0 c->tmp */
	uint8_t keep_src, tmp_src;
	size_t keep_limit; /* keep->len stays at most this */
	sp_buf keep_buf, tmp_buf; /* jobs 1..N-1 */
	sp_named named;
	pthread_t tid;
	bool started;
	bool opened, failed; /* jobs 1..N-1: open_job was run, and failed */
} job;

/* Writes the N pieces at V (when no error was seen), SINK_IOV at a time. */
static void sink_write(sink *o, struct iovec *v, size_t n)
{
	while (n > 0 && !o->err) {
		ssize_t w = writev(o->fd, v, n < SINK_IOV ? (int)n : SINK_IOV);
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
}

/* Writes every pending piece of output (when no error was seen). */
static void sink_flush(sink *o)
{
	sink_write(o, o->iov, o->n);
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
	}
	if (o->n == o->cap) {
		if (o->grow)
			sp_grow(&o->iov, &o->cap, o->n + 1, sizeof(*o->iov));
		else
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

/* "0x", DIGITS hex digits (8 or 16: addr2line prints as many as the ELF
 * class of the file has, more when the address needs them) and a newline,
 * as addr2line -a prints an address, at B (at most 19 bytes): returns the
 * length without the newline. */
static size_t put_addr(char *b, uint64_t a, int digits)
{
	int n = 1;
	while (n < 16 && a >> (4 * n))
		n++;
	if (n < digits)
		n = digits;
	b[0] = '0';
	b[1] = 'x';
	for (int i = n + 1; i >= 2; i--, a >>= 4)
		b[i] = "0123456789abcdef"[a & 15];
	b[n + 2] = '\n';
	return (size_t)n + 2;
}

static uint64_t addr_hash(uint64_t addr)
{
	return addr * 0x9e3779b97f4a7c15ULL;
}

/* ADDR's table: from the hash's top bits, apart from the slot's */
static text_table *table_of(const sym_ctx *c, uint64_t addr)
{
	return &c->tables[((addr_hash(addr) >> 58) * c->n_tables) >> 6];
}

static size_t slot_of(const text_table *t, uint64_t addr)
{
	return (size_t)(addr_hash(addr) >> 32) & (t->cap_slots - 1);
}

static const text_slot *cache_get(const sym_ctx *c, uint64_t addr)
{
	const text_table *tb = table_of(c, addr);
	if (!tb->cap_slots)
		return NULL;
	for (size_t i = slot_of(tb, addr);; i = (i + 1) & (tb->cap_slots - 1)) {
		const text_slot *t = &tb->slots[i];
		if (!t->len)
			return NULL;
		if (t->addr == addr)
			return t;
	}
}

static void cache_put(text_table *tb, uint64_t addr, size_t off, size_t len, uint8_t src)
{
	if ((tb->n_slots + 1) * 4 >= tb->cap_slots * 3) {
		size_t old = tb->cap_slots;
		text_slot *os = tb->slots;
		tb->cap_slots = old ? old * 2 : 1024;
		tb->slots = sp_xcalloc_written(tb->cap_slots, sizeof(*tb->slots));
		tb->n_slots = 0;
		for (size_t i = 0; i < old; i++)
			if (os[i].len)
				cache_put(tb, os[i].addr, os[i].off, os[i].len, (uint8_t)os[i].src);
		free(os);
	}
	size_t i = slot_of(tb, addr);
	while (tb->slots[i].len)
		i = (i + 1) & (tb->cap_slots - 1);
	tb->slots[i] = (text_slot){addr, (uint32_t)off, (uint32_t)len, src};
	tb->n_slots++;
}

/* Where the texts of SRC start (ERRORS: the part's error answers); valid
 * until that text grows. */
static const char *text_base(const sym_ctx *c, unsigned src, const char *errors)
{
	switch (src) {
	case TXT_CACHE: return c->text.data;
	case TXT_TMP: return c->tmp.data;
	case TXT_UNKNOWN: return c->unknown.data;
	case TXT_ERROR: return errors;
	default: {
		const job *j = &c->job[1 + (src - TXT_JOB) / 2];
		return (src - TXT_JOB) & 1 ? j->tmp->data : j->keep->data;
	}
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symprof symbolize [-e FILE|--obj FILE] [-a] [-f] [-i] [-p] [-s] [-S|-x]\n"
		"                         [-C|--demangle[=STYLE]] [--json|--output-style=STYLE]\n"
		"                         [--relative|--section=NAME] [OPTIONS] [ADDR...]\n"
		"\n"
		"Prints the file and line (-f: and function) of each address of FILE (default\n"
		"a.out), -i: with every inline frame, innermost first.  Addresses come from the\n"
		"arguments or one per line from stdin; a symbol's name stands for its address\n"
		"(NAME, NAME+OFF, NAME-OFF, (SECTION)+OFF).  Addresses inside a --jit-dir\n"
		"object's loaded section resolve in that object, then --jitdump code; --perf-map and\n"
		"--kallsyms name addresses FILE does not know.  Without -e, FILE is a.out unless a name source is given.\n"
		"\n"
		"  -e, --exe FILE       the ELF file\n"
		"      --obj FILE       the same (llvm-symbolizer's name)\n"
		"  -a, --addresses      print each address before its frames\n"
		"  -f, --functions      print function names (always with the LLVM style)\n"
		"  -i, --inlines        print the frames an address is inlined into (the\n"
		"                       default with the LLVM and JSON styles)\n"
		"      --no-inlines     the innermost frame only\n"
		"  -S, --symbols        the symbol holding the address as SYMBOL+0xOFF\n"
		"  -x, --symbols-sections  -S, and the symbol's section\n"
		"  -p, --pretty-print   a frame per line, FUNC at FILE:LINE, and each one the\n"
		"                       frame before was inlined into as \" (inlined by) ...\"\n"
		"  -s, --basenames      file names without their directories\n"
		"  -C, --demangle[=STYLE]  demangle names: full (default for -C, and for the\n"
		"                       LLVM and JSON styles), templates (no parameter lists),\n"
		"                       none (default without -C in the GNU style)\n"
		"      --no-demangle    names as the files spell them\n"
		"      --json           one JSON object per address\n"
		"      --output-style=STYLE  GNU (addr2line's layout, the default), LLVM\n"
		"                       (llvm-symbolizer's: FILE:LINE:COLUMN, a blank line\n"
		"                       after each address) or JSON (llvm-symbolizer's JSON:\n"
		"                       an object per input line, an array for arguments)\n"
		"      --relative       addresses are offsets from the object's load address:\n"
		"                       ADDR + p_vaddr - p_offset of the lowest PT_LOAD\n"
		"      --section=NAME   addresses are offsets in section NAME\n"
		"      --cache-max=BYTES  keep at most BYTES of answers for repeated addresses\n"
		"                       (default 64 MiB)\n"
		"  -j, --jobs N         parse, resolve and format large inputs on N threads\n"
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
		sp_buf_printf(b, "%s{\"Column\":%" PRId32 ",\"Discriminator\":%" PRIu32 ",\"FileName\":",
			      i ? "," : "", f->column, f->discriminator);
		json_text(b, file_name(c, f->file));
		sp_buf_puts(b, ",\"FunctionName\":");
		json_text(b, f->name);
		sp_buf_printf(b,
			      ",\"Line\":%" PRId64 ",\"StartAddress\":\"\",\"StartFileName\":\"\""
			      ",\"StartLine\":%" PRId32 "}",
			      f->line, f->start_line);
	}
	sp_buf_puts(b, "]");
}

/* Appends the frames of one address, VADDR in FILE's space, to B: the
 * JSON "frames" array, or the text forms of symbolize_text.c; SYM is the
 * symbol holding VADDR (-S), or NULL. */
static void format_frames(const sym_ctx *c, const sp_frame *fr, size_t n, const sp_symbol *sym,
			  uint64_t vaddr, sp_buf *b)
{
	if (c->style == STYLE_JSON) {
		sp_frame one;
		if (!c->form.inlines && n > 1) {
			/* --no-inlines: the function the code is in, the line there */
			one = fr[0];
			one.name = fr[n - 1].name;
			fr = &one;
			n = 1;
		}
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
				      ",\"line\":%" PRId64 ",\"column\":%" PRId32
				      ",\"start_line\":%" PRId32 ",\"inlined\":%s}",
				      fr[i].line, fr[i].column, fr[i].start_line,
				      fr[i].inlined ? "true" : "false");
		}
		sp_buf_puts(b, "]");
		return;
	}
	sp_text_frames(&c->form, fr, n, sym, vaddr, b);
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

/* The entry a miss's tag names */
static entry *entry_at(const sym_ctx *c, size_t tag)
{
	return &c->part[tag >> PART_SHIFT].ents[tag & (((size_t)1 << PART_SHIFT) - 1)];
}

/* True when SRC is text kept for the text cache */
static bool src_kept(unsigned src)
{
	return src == TXT_CACHE || (src >= TXT_JOB && !((src - TXT_JOB) & 1));
}

/* Answers the run M[i..end) of one address in J's session: the text goes
 * into J's kept text while that stays within J's limit, else into its
 * batch text, and the run's entries point at it.  True when kept. */
static inline __attribute__((always_inline)) bool resolve_run(sym_ctx *c, job *j,
							       const sp_addr_item *m,
							       size_t i, size_t end)
{
	uint64_t addr = m[i].addr;
	uint64_t vaddr = c->relative ? addr + c->rel_adjust : addr;
	lookup(j->s, j->obj, addr, vaddr, &j->named);
	sp_symbol sym = {0};
	if (c->form.symbols && j->obj)
		sp_error_free(sp_object_symbol_at(j->obj, vaddr, &sym));
	sp_buf *keep = j->keep;
	size_t off = keep->len;
	format_frames(c, j->named.frames, j->named.n_frames, &sym, vaddr, keep);
	size_t tl = keep->len - off;
	uint8_t src = j->keep_src;
	if (!c->cache_max || keep->len > j->keep_limit || tl >= TEXT_LEN_MAX) {
		src = j->tmp_src;
		sp_buf_append(j->tmp, keep->data + off, tl);
		keep->len = off;
		off = j->tmp->len - tl;
	}
	for (size_t k = i; k < end; k++) {
		entry *e = entry_at(c, m[k].tag);
		e->src = src;
		e->off = off;
		e->len = tl;
	}
	return src == j->keep_src;
}

/* Answers every address of the batch that the text cache lacks, sorted
 * (batch.c), in address order, once per distinct address, on the
 * command's thread, and keeps the answers in the text cache. */
static void resolve_misses(sym_ctx *c, sp_addr_item *m, size_t n)
{
	job *j = &c->job[0];
	for (size_t i = 0, end; i < n; i = end) {
		end = sp_addr_items_run(m, n, i);
		if (resolve_run(c, j, m, i, end)) {
			const entry *e = entry_at(c, m[i].tag);
			cache_put(table_of(c, m[i].addr), m[i].addr, e->off, e->len, TXT_CACHE);
		}
	}
}

/* -j N.  The command's thread and N-1 others run phases of tasks: each
 * job has a share of a phase's tasks (a contiguous run of them), takes
 * them in order, then takes tasks from the end of another's share
 * (take_task).  So a thread that is not running (the machine is shared)
 * holds no phase up: the others take its share, and the command's thread
 * waits only for tasks in hand, never for a thread to wake.  The threads
 * start once and wait between phases.
 *
 * A large block of input (run_block) is a batch of its own, cut into
 * line-aligned parts: each part's lines are parsed, looked up in the
 * text cache and their misses sorted (task_part); the misses are cut
 * into sort ranges at sampled addresses, each gathered from every part
 * and sorted (task_range); the sorted misses are resolved in chunks at
 * address boundaries (task_resolve), job k's share being the k-th range
 * of addresses, so its session reads mostly the compile units (line
 * tables, function trees) of those; then each text table takes its
 * addresses' answers and each part writes its output's pieces
 * (task_finish); the command's thread writes the parts in input order.
 * A job resolves in a session of its own (no libdw handle is shared
 * between threads) and keeps its answers in texts of its own; it writes
 * the entries of its addresses only.  The bytes are those of -j 1
 * whatever the thread count.
 *
 * Opening the other sessions costs about what resolving some thousands
 * of addresses does (the debug file found and indexed again, per
 * thread), so misses are resolved on N threads only in a batch of at
 * least JOBS_MIN_BATCH distinct misses, and only once the run has
 * resolved at least JOBS_MIN_RUN distinct addresses, this batch's
 * included (at about 1 us an address, the session opened for a second
 * thread costs 1.5 ms for a stripped Go binary's table, 7 ms for 6.5 MiB
 * of DWARF, spent on that thread while the command's resolves: open_job);
 * before that they are resolved on the command's thread, the
 * other phases of a large block still on N.  A block is read in one
 * piece only when it is at least PAR_MIN_BYTES and was ready at once, so
 * a co-process's lines never wait for one: it takes the serial path,
 * which resolves a batch's misses on N threads under the same rules. */
#define JOBS_MIN_BATCH 2048
/* (-j 2 against -j 1, wall time: 1M lines of 42k distinct addresses
 * 1.03x with 16384, 0.95x with 65536, 1.04x with 4096; 30k lines of
 * 29k distinct addresses 0.95x, 0.76x, 0.97x) */
#define JOBS_MIN_RUN 16384

/* Misses a job resolves at a time. */
#define JOB_CHUNK 256

/* A block of input run by run_block: at least this much, at most the
 * other; parts of PART_MIN to PART_MAX bytes, eight per job. */
#define PAR_MIN_BYTES ((size_t)128 << 10)
#define PAR_MAX_BYTES ((size_t)16 << 20)
#define PART_MIN ((size_t)16 << 10)
#define PART_MAX ((size_t)64 << 10)
/* Sort ranges per job */
#define RANGES_PER_JOB 4

/* Takes (under c->lock) J's next task, else the last of another's
 * share; false when none is left. */
static bool take_task(job *j, size_t *t)
{
	sym_ctx *c = j->c;
	if (j->next < j->end) {
		*t = j->next++;
		c->busy++;
		return true;
	}
	for (int k = 1; k < c->jobs; k++) {
		job *v = &c->job[(j->index + k) % c->jobs];
		if (v->next == v->end)
			continue;
		*t = --v->end;
		c->busy++;
		return true;
	}
	return false;
}

/* Runs FN on tasks 0..n-1, on every job, and returns when all are done. */
static void run_phase(sym_ctx *c, task_fn *fn, size_t n)
{
	job *j0 = &c->job[0];
	if (!c->threads) {
		for (size_t t = 0; t < n; t++)
			fn(c, j0, t);
		return;
	}
	pthread_mutex_lock(&c->lock);
	c->fn = fn;
	for (int k = 0; k < c->jobs; k++) {
		c->job[k].next = n * (size_t)k / (size_t)c->jobs;
		c->job[k].end = n * (size_t)(k + 1) / (size_t)c->jobs;
	}
	pthread_cond_broadcast(&c->work);
	size_t t;
	while (take_task(j0, &t)) {
		pthread_mutex_unlock(&c->lock);
		fn(c, j0, t);
		pthread_mutex_lock(&c->lock);
		c->busy--;
	}
	while (c->busy)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

/* A thread of jobs 1..N-1: tasks of every phase until told to end. */
static void *job_thread(void *arg)
{
	job *j = arg;
	sym_ctx *c = j->c;
	size_t t;
	pthread_mutex_lock(&c->lock);
	while (!c->quit) {
		if (!take_task(j, &t)) {
			pthread_cond_wait(&c->work, &c->lock);
			continue;
		}
		task_fn *fn = c->fn;
		pthread_mutex_unlock(&c->lock);
		fn(c, j, t);
		pthread_mutex_lock(&c->lock);
		if (--c->busy == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The jobs, job 0 the command's own; threads and sessions come later. */
static void init_jobs(sym_ctx *c)
{
	c->job = sp_xcalloc((size_t)c->jobs, sizeof(*c->job));
	for (int k = 0; k < c->jobs; k++) {
		job *j = &c->job[k];
		j->c = c;
		j->index = k;
		if (k) {
			j->keep = &j->keep_buf;
			j->tmp = &j->tmp_buf;
			j->keep_src = (uint8_t)(TXT_JOB + 2 * (k - 1));
			j->tmp_src = (uint8_t)(j->keep_src + 1);
		} else {
			j->s = c->s;
			j->obj = c->obj;
			j->keep = &c->text;
			j->tmp = &c->tmp;
			j->keep_src = TXT_CACHE;
			j->tmp_src = TXT_TMP;
		}
	}
	c->n_tables = (unsigned)c->jobs;
	c->tables = sp_xcalloc(c->n_tables, sizeof(*c->tables));
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->open_lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
}

/* Starts the threads of jobs 1..N-1; a job without a thread has its
 * share taken by the others. */
static void start_threads(sym_ctx *c)
{
	for (int k = 1; k < c->jobs; k++)
		c->job[k].started =
			pthread_create(&c->job[k].tid, NULL, job_thread, &c->job[k]) == 0;
	c->threads = true;
}

/* Makes the sessions of jobs 1..N-1 and opens -e FILE in the command's
 * own (the first batch can be a parallel one); each job opens FILE in
 * its session at its first chunk (open_job), while the command's thread
 * resolves.  False when misses are to be resolved on this thread only. */
static bool open_sessions(sym_ctx *c)
{
	if (c->no_sessions)
		return false;
	if (!c->threads)
		start_threads(c);
	for (int k = 1; k < c->jobs; k++)
		c->job[k].s = sp_symbolizer_new_worker(c->s);
	sp_error_free(c->obj ? sp_object_open(c->obj) : NULL);
	c->sessions = true;
	return true;
}

/* Opens -e FILE in job J's session, one job at a time: opening may ask
 * debuginfod, whose client library is not to be used from two threads at
 * once (it sets environment variables), and the command's session opened
 * its file before the threads resolve.  False when the session cannot
 * have the file (then J resolves nothing). */
static bool open_job(sym_ctx *c, job *j)
{
	pthread_mutex_lock(&c->open_lock);
	j->opened = true;
	if (c->obj) {
		sp_error *e = sp_symbolizer_object(j->s, c->obj_path, NULL, &j->obj);
		if (!e)
			e = sp_object_open(j->obj);
		/* an error with the object made is cached: its addresses stay
		 * unknown, as in the command's session */
		j->failed = e && !j->obj;
		sp_error_free(e);
	}
	pthread_mutex_unlock(&c->open_lock);
	return !j->failed;
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
		job *j = &c->job[k];
		if (j->started)
			pthread_join(j->tid, NULL);
		sp_named_clear(&j->named);
		if (k)
			sp_symbolizer_free(j->s);
		sp_buf_free(&j->keep_buf);
		sp_buf_free(&j->tmp_buf);
	}
	free(c->job);
	c->job = NULL;
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->open_lock);
}

/* Cuts the sorted misses M[0..n) into chunks of about JOB_CHUNK at
 * address boundaries: c->chunks. */
static void cut_chunks(sym_ctx *c, const sp_addr_item *m, size_t n)
{
	c->n_chunks = 0;
	SP_PUSH(c->chunks, c->n_chunks, c->cap_chunks, 0);
	for (size_t at = 0; at < n;) {
		size_t e = n - at > JOB_CHUNK ? at + JOB_CHUNK : n;
		while (e < n && m[e].addr == m[e - 1].addr)
			e++;
		SP_PUSH(c->chunks, c->n_chunks, c->cap_chunks, e);
		at = e;
	}
	c->n_chunks--;
}

static void task_resolve(sym_ctx *c, job *j, size_t t)
{
	if (j->index && ((!j->opened && !open_job(c, j)) || j->failed)) {
		pthread_mutex_lock(&c->lock); /* for the command's thread, after the phase */
		SP_PUSH(c->returned, c->n_returned, c->cap_returned, t);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	const sp_addr_item *m = c->misses;
	size_t b = c->chunks[t + 1];
	for (size_t i = c->chunks[t], end; i < b; i = end) {
		end = sp_addr_items_run(m, b, i);
		resolve_run(c, j, m, i, end);
	}
}

/* Room for the text cache, shared: each job's keep_limit.  ALL: every
 * job resolves, else only job 0. */
static void share_cache(sym_ctx *c, bool all)
{
	size_t kept = c->text.len + c->kept_others;
	size_t left = c->cache_max > kept ? c->cache_max - kept : 0;
	for (int k = 0; k < (all ? c->jobs : 1); k++)
		c->job[k].keep_limit = c->job[k].keep->len + (all ? left / (size_t)c->jobs : left);
}

/* Resolves the sorted misses M[0..n) (a batch's) on the jobs' threads;
 * false when threads are not to be used (then nothing is done). */
static bool resolve_parallel(sym_ctx *c, sp_addr_item *m, size_t n, size_t distinct)
{
	c->n_resolved += distinct;
	if (distinct < JOBS_MIN_BATCH || c->n_resolved < JOBS_MIN_RUN)
		return false;
	if (c->no_sessions || (!c->sessions && !open_sessions(c)))
		return false;
	share_cache(c, true);
	cut_chunks(c, m, n);
	c->n_returned = 0;
	run_phase(c, task_resolve, c->n_chunks);
	if (c->n_returned) {
		/* a job could not open FILE: its chunks here, and all from now on */
		c->no_sessions = true;
		c->job[0].keep_limit = c->job[0].keep->len; /* the others' room is unknown */
		for (size_t i = 0; i < c->n_returned; i++)
			task_resolve(c, &c->job[0], c->returned[i]);
	}
	return true;
}

static size_t count_distinct(const sp_addr_item *m, size_t n)
{
	size_t distinct = 0;
	for (size_t i = 0; i < n; i = sp_addr_items_run(m, n, i))
		distinct++;
	return distinct;
}

/* Puts the kept answers of this batch's misses (c->misses[0..n_misses))
 * whose addresses belong to text table Q into it. */
static void fill_table(sym_ctx *c, size_t q, size_t n)
{
	const sp_addr_item *m = c->misses;
	text_table *tb = &c->tables[q];
	for (size_t i = 0, end; i < n; i = end) {
		end = sp_addr_items_run(m, n, i);
		if (table_of(c, m[i].addr) != tb)
			continue;
		const entry *e = entry_at(c, m[i].tag);
		if (src_kept(e->src))
			cache_put(tb, m[i].addr, e->off, e->len, e->src);
	}
}

/* A list of distinct addresses (no repeats to save) would only fill the
 * text cache: after this many look-ups with fewer than 1% found there,
 * the cache is dropped and every answer is made for its batch alone. */
#define CACHE_TRIAL 65536

/* What the REPEATS inside a block of input (misses of addresses missed
 * before in it) count as hits for CACHE_TRIAL: a serial batch of -j 1
 * would have found them in the text cache had they come in a later
 * batch.  Counted as they would be in a window of CACHE_TRIAL lines,
 * where the trial is decided: in a list of addresses drawn at random the
 * share of repeats in a window grows with its length. */
static size_t block_repeats(const sym_ctx *c, size_t repeats)
{
	size_t lines = 0;
	for (size_t p = 0; p < c->n_parts; p++)
		lines += c->part[p].n_ents;
	return lines > CACHE_TRIAL ? (size_t)((double)repeats * CACHE_TRIAL / (double)lines) : repeats;
}

/* True when the text cache is kept but not worth its keep: it is dropped
 * before the next batch. */
static bool cache_failed(const sym_ctx *c)
{
	return c->cache_max && c->n_asked >= CACHE_TRIAL && c->n_hits * 100 < c->n_asked;
}

/* Readies a batch: the batch texts emptied, the text cache dropped when
 * it is not worth its keep, job 0's room in it. */
static void start_batch(sym_ctx *c)
{
	sp_buf_reset(&c->tmp);
	for (int k = 1; k < c->jobs; k++)
		sp_buf_reset(c->job[k].tmp);
	if (cache_failed(c)) {
		for (unsigned q = 0; q < c->n_tables; q++) {
			free(c->tables[q].slots);
			c->tables[q] = (text_table){0};
		}
		sp_buf_reset(&c->text);
		for (int k = 1; k < c->jobs; k++)
			sp_buf_reset(c->job[k].keep);
		c->cache_max = 0;
		c->kept_others = 0;
	}
	c->job[0].keep_limit = c->cache_max - c->kept_others;
}

/* Whether E, a line that is no address, may be a symbol's name: it starts
 * as no number does (NAME, or (SECTION)). */
static bool maybe_name(const entry *e)
{
	return e->line_len > 0 && !(*e->line >= '0' && *e->line <= '9');
}

/* The largest part of a name printed in a message. */
#define NAME_SHOWN 200

/* eu-addr2line's symbol expressions: NAME, NAME+OFF, NAME-OFF (OFF in C's
 * notations: 16, 0x10, 020), and (SECTION)+OFF; NAME is everything before
 * the first + or -.  E, a line that is no address, becomes the address
 * it names in FILE (ok); one that names nothing stays unknown, and says
 * why on stderr. */
static void name_address(sym_ctx *c, entry *e)
{
	size_t len = e->line_len, cut = 0;
	const char *t = e->line;
	bool section = len > 2 && t[0] == '(';
	if (section) {
		const char *close = memchr(t, ')', len);
		cut = close ? (size_t)(close - t) + 1 : len;
	} else {
		while (cut < len && t[cut] != '+' && t[cut] != '-')
			cut++;
	}
	char *name = sp_xstrndup(section ? t + 1 : t, section ? (cut > 1 ? cut - 2 : 0) : cut);
	char *rest = sp_xstrndup(t + cut, len - cut), *end;
	errno = 0;
	intmax_t off = *rest ? strtoimax(rest, &end, 0) : 0;
	bool num_ok = !*rest || (end != rest && !*end && errno == 0 && (*rest == '+' || *rest == '-'));
	sp_symbol sym = {0};
	sp_error *err = NULL;
	uint64_t vaddr = 0;
	if (!*name || !num_ok || !c->obj || (section && t[cut - 1] != ')')) {
		/* no expression: an unknown line, as before */
	} else if (section) {
		err = sp_object_section_address(c->obj, name, &vaddr);
		if (!err) {
			vaddr += (uint64_t)off;
			e->ok = true;
		} else {
			fprintf(stderr, "symprof symbolize: no section '%.*s'\n", NAME_SHOWN, name);
			c->names_missing++;
		}
	} else if ((err = sp_object_symbol_named(c->obj, name, &sym)) != NULL) {
		fprintf(stderr, "symprof symbolize: cannot find symbol '%.*s'%s\n", NAME_SHOWN, name,
			strlen(name) > NAME_SHOWN ? "..." : "");
		c->names_missing++;
	} else if (sym.size && (uint64_t)off >= sym.size) {
		fprintf(stderr, "symprof symbolize: offset %#jx lies outside the %" PRIu64
			" bytes of '%.*s'\n", (uintmax_t)off, sym.size, NAME_SHOWN, name);
		c->names_missing++;
	} else {
		vaddr = sym.value + (uint64_t)off;
		e->ok = true;
	}
	if (e->ok)
		e->addr = vaddr - (c->relative ? c->rel_adjust : 0);
	sp_error_free(err);
	free(name);
	free(rest);
}

/* Looks the entries ENTS[0..n) up in the text cache: a hit points at its
 * text, a miss goes to M (tag: TAG0 + its index), a line that is no
 * address at its answer (JSON: appended to ERRORS).  Returns the misses;
 * adds the look-ups and hits to *ASKED and *HITS.  A line that may be a
 * symbol's name is made its address first (name_address), but on the
 * jobs' threads (N_SYM not NULL), where it is only counted in *N_SYM. */
static size_t probe(sym_ctx *c, entry *ents, size_t n, size_t tag0, sp_buf *errors,
		    sp_addr_item *m, size_t *asked, size_t *hits, size_t *n_sym)
{
	size_t n_miss = 0, a = 0, h = 0;
	for (size_t i = 0; i < n; i++) {
		entry *e = &ents[i];
		if (!e->ok && maybe_name(e)) {
			/* only the command's thread reads its object's symbols */
			if (n_sym)
				++*n_sym;
			else
				name_address(c, e);
		}
		const text_slot *t = e->ok && c->cache_max ? cache_get(c, e->addr) : NULL;
		a += e->ok;
		h += t != NULL;
		if (t) {
			e->src = (uint8_t)t->src;
			e->off = t->off;
			e->len = t->len;
		} else if (e->ok) {
			m[n_miss++] = (sp_addr_item){e->addr, tag0 + i};
		} else if (c->style == STYLE_JSON) {
			/* llvm-symbolizer's answer to a line that is no address */
			e->src = TXT_ERROR;
			e->off = errors->len;
			sp_buf_puts(errors, "{\"Error\":{\"Message\":\"unable to parse arguments: ");
			json_chars(errors, e->line, e->line_len, true);
			sp_buf_puts(errors, "\"}");
			sp_buf_append(errors, c->module.data, c->module.len);
			sp_buf_puts(errors, "}");
			e->len = errors->len - e->off;
		} else {
			e->src = TXT_UNKNOWN;
			e->off = 0;
			e->len = c->unknown.len;
		}
	}
	*asked += a;
	*hits += h;
	return n_miss;
}

/* The address -a prints for E (VADDR in FILE's space): addr2line -j prints
 * the offset it was given. */
static uint64_t shown(const sym_ctx *c, const entry *e, uint64_t vaddr)
{
	return c->section && c->style == STYLE_GNU ? e->addr : vaddr;
}

/* Queues the answers of ENTS[0..n) on O in order; PRE has room for
 * PREFIX_MAX bytes an entry, ERRORS is where their TXT_ERROR texts are. */
static void emit(sym_ctx *c, sink *o, const entry *ents, size_t n, char *pre, const char *errors)
{
	for (size_t i = 0; i < n; i++) {
		const entry *e = &ents[i];
		uint64_t vaddr = c->relative ? e->addr + c->rel_adjust : e->addr;
		if (c->json_array)
			sink_put(o, c->n_objects++ ? "," : "[", 1);
		if (e->src == TXT_ERROR) {
			sink_put(o, errors + e->off, e->len);
			if (!c->json_array)
				sink_put(o, "\n", 1);
			continue;
		}
		if (c->style == STYLE_JSON) {
			int k = snprintf(pre, PREFIX_MAX, "{\"Address\":\"0x%" PRIx64 "\"", vaddr);
			sink_put(o, pre, (size_t)k);
			pre += k;
			sink_put(o, c->module.data, c->module.len);
			sink_put(o, ",\"Symbol\":", 10);
		} else if (c->json) {
			int k = e->ok ? snprintf(pre, PREFIX_MAX,
						 "{\"address\":\"0x%" PRIx64 "\",\"frames\":", vaddr)
				      : snprintf(pre, PREFIX_MAX, "{\"address\":\"\",\"frames\":");
			sink_put(o, pre, (size_t)k);
			pre += k;
		} else if (c->style == STYLE_LLVM && !e->ok) {
			/* llvm-symbolizer echoes a line that is no address */
			sink_put(o, e->line, e->line_len);
			sink_put(o, "\n", 1);
			continue;
		} else if (c->style == STYLE_LLVM && c->print_addr) {
			int k = snprintf(pre, PREFIX_MAX, "0x%" PRIx64 "%s", vaddr,
					 c->pretty ? ": " : "\n");
			sink_put(o, pre, (size_t)k);
			pre += k;
		} else if (c->print_addr && c->pretty) {
			if (e->ok) {
				size_t k = put_addr(pre, shown(c, e, vaddr), c->addr_digits);
				memcpy(pre + k, ": ", 2);
				sink_put(o, pre, k + 2);
				pre += k + 2;
			} else {
				sink_put(o, e->line, e->line_len);
				sink_put(o, ": ", 2);
			}
		} else if (c->print_addr) {
			if (e->ok) {
				size_t k = put_addr(pre, shown(c, e, vaddr), c->addr_digits) + 1;
				sink_put(o, pre, k);
				pre += k;
			} else {
				sink_put(o, e->line, e->line_len);
				sink_put(o, "\n", 1);
			}
		}
		sink_put(o, text_base(c, e->src, errors) + e->off, e->len);
		if (c->json_array)
			sink_put(o, "}", 1);
		else if (c->json || c->style == STYLE_JSON)
			sink_put(o, "}\n", 2);
	}
}

static task_fn task_finish;

/* Answers the serial batch's lines (part 0) and writes them, in input
 * order. */
static void run_batch(sym_ctx *c)
{
	part *pt = &c->part[0];
	start_batch(c);
	size_t n_miss = probe(c, pt->ents, pt->n_ents, 0, &pt->errors, c->misses, &c->n_asked,
			      &c->n_hits, NULL);
	if (n_miss > 1)
		sp_addr_items_sort(c->misses, c->misses_tmp, n_miss);
	if (n_miss && c->jobs > 1 &&
	    resolve_parallel(c, c->misses, n_miss, count_distinct(c->misses, n_miss))) {
		c->n_misses = n_miss;
		run_phase(c, task_finish, c->n_tables);
		c->kept_others = 0;
		for (int k = 1; k < c->jobs; k++)
			c->kept_others += c->job[k].keep->len;
	} else if (n_miss) {
		resolve_misses(c, c->misses, n_miss);
	}
	emit(c, &c->out, pt->ents, pt->n_ents, pt->prefix, pt->errors.data);
	sink_flush(&c->out);
	sp_buf_reset(&pt->errors);
	pt->n_ents = 0;
}

/* Trims LINE (LEN bytes, no newline) into E and parses its address. */
static void set_line(entry *e, const char *text, size_t len)
{
	while (len && (text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	e->line = text;
	e->line_len = len;
	e->ok = parse_hex(text, text + len, &e->addr);
}

/* Adds the line TEXT (LEN bytes, no newline) to the batch, running the
 * batch when it is full. */
static void add_line(sym_ctx *c, const char *text, size_t len)
{
	part *pt = &c->part[0];
	set_line(&pt->ents[pt->n_ents++], text, len);
	if (pt->n_ents == BATCH_LINES)
		run_batch(c);
}

/* Parses the lines of BUF (LEN bytes, BUF[LEN] readable and not a hex
 * digit) into ENTS from *N on, until *N is MAX; the last line only at EOF
 * when it has no newline.  Returns the bytes used.  The common line, hex
 * digits and a newline, is parsed in the same pass that finds its end. */
static size_t parse_lines(const char *buf, size_t len, bool eof, entry *ents, size_t *n,
			  size_t max)
{
	const unsigned char *t = hex_digits();
	const char *p = buf, *end = buf + len;
	size_t k = *n;
	while (p < end && k < max) {
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
			entry *e = &ents[k++];
			e->addr = v;
			e->ok = true;
			p = q + 1;
			continue;
		}
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (!nl) {
			if (!eof)
				break;
			nl = end;
		}
		set_line(&ents[k++], p, (size_t)(nl - p));
		p = nl < end ? nl + 1 : end;
	}
	*n = k;
	return (size_t)(p - buf);
}

/* Adds the lines of BUF (LEN bytes, BUF[LEN] readable and not a hex
 * digit) to the batch, running it whenever it is full; the last line only
 * at EOF when it has no newline.  Returns the bytes used. */
static size_t add_lines(sym_ctx *c, const char *buf, size_t len, bool eof)
{
	part *pt = &c->part[0];
	size_t used = 0;
	for (;;) {
		used += parse_lines(buf + used, len - used, eof, pt->ents, &pt->n_ents, BATCH_LINES);
		if (pt->n_ents < BATCH_LINES)
			return used;
		run_batch(c);
	}
}

/* Part P of a block: its lines parsed, looked up, its misses sorted. */
static void task_part(sym_ctx *c, job *j, size_t p)
{
	part *pt = &c->part[p];
	pt->n_ents = 0;
	pt->asked = pt->hits = 0;
	sp_buf_reset(&pt->errors);
	/* a line is one byte at least */
	sp_grow(&pt->ents, &pt->cap_ents, pt->len / 8 + 16, sizeof(*pt->ents));
	size_t used = 0;
	for (;;) {
		used += parse_lines(pt->buf + used, pt->len - used, pt->eof, pt->ents, &pt->n_ents,
				    pt->cap_ents);
		if (used == pt->len || pt->n_ents < pt->cap_ents)
			break;
		sp_grow(&pt->ents, &pt->cap_ents, pt->n_ents + 1, sizeof(*pt->ents));
	}
	if (pt->cap_m < pt->n_ents) {
		free(pt->m);
		free(pt->m_tmp);
		pt->cap_m = pt->cap_ents;
		pt->m = sp_xreallocarray(NULL, pt->cap_m, sizeof(*pt->m));
		pt->m_tmp = sp_xreallocarray(NULL, pt->cap_m, sizeof(*pt->m_tmp));
	}
	pt->n_sym = 0;
	pt->n_m = probe(c, pt->ents, pt->n_ents, p << PART_SHIFT, &pt->errors, pt->m, &pt->asked,
			&pt->hits, &pt->n_sym);
	if (pt->n_m > 1)
		sp_addr_items_sort(pt->m, pt->m_tmp, pt->n_m);
}

/* Sort range R of a block's misses: gathered from every part, sorted. */
static void task_range(sym_ctx *c, job *j, size_t r)
{
	sp_addr_item *dst = c->misses + c->range_off[r];
	size_t n = 0, np = c->n_parts;
	for (size_t p = 0; p < np; p++) {
		size_t a = c->bounds[r * np + p], b = c->bounds[(r + 1) * np + p];
		memcpy(dst + n, c->part[p].m + a, (b - a) * sizeof(*dst));
		n += b - a;
	}
	if (n > 1)
		sp_addr_items_sort(dst, c->misses_tmp + c->range_off[r], n);
	c->range_distinct[r] = count_distinct(dst, n);
}

/* The last phase of a block: task Q < n_tables fills text table Q with
 * the batch's kept answers, the others queue their part's output. */
static void task_finish(sym_ctx *c, job *j, size_t t)
{
	if (t < c->n_tables) {
		/* not for a cache about to be dropped */
		if (c->cache_max && !cache_failed(c))
			fill_table(c, t, c->n_misses);
		return;
	}
	part *pt = &c->part[t - c->n_tables];
	sp_grow(&pt->prefix, &pt->cap_prefix, pt->n_ents * PREFIX_MAX + 1, 1);
	pt->out.n = 0;
	emit(c, &pt->out, pt->ents, pt->n_ents, pt->prefix, pt->errors.data);
}

/* First in sorted M[0..n) at ADDR or after. */
static size_t lower_bound(const sp_addr_item *m, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Cuts a block's TOTAL misses (sorted per part) into sort ranges at
 * addresses sampled from every part: c->bounds, c->range_off. */
static void plan_ranges(sym_ctx *c, size_t total)
{
	size_t np = c->n_parts;
	size_t want = (size_t)c->jobs * RANGES_PER_JOB;
	size_t step = total / (want * 8) ? total / (want * 8) : 1;
	/* the samples, in c->misses (not yet in use) */
	sp_addr_item *s = c->misses;
	size_t ns = 0;
	for (size_t p = 0; p < np; p++)
		for (size_t i = step / 2; i < c->part[p].n_m; i += step)
			s[ns++] = (sp_addr_item){c->part[p].m[i].addr, 0};
	sp_addr_items_sort(s, c->misses_tmp, ns);
	size_t nr = total < 4 * JOB_CHUNK || !ns ? 1 : want;
	c->n_ranges = nr;
	c->bounds = sp_xreallocarray(c->bounds, (nr + 1) * np, sizeof(*c->bounds));
	c->range_off = sp_xreallocarray(c->range_off, nr + 1, sizeof(*c->range_off));
	c->range_distinct = sp_xreallocarray(c->range_distinct, nr, sizeof(*c->range_distinct));
	c->range_off[0] = 0;
	for (size_t r = 0; r <= nr; r++) {
		uint64_t split = r && r < nr ? s[r * ns / nr].addr : 0;
		size_t sum = 0;
		for (size_t p = 0; p < np; p++) {
			const part *pt = &c->part[p];
			size_t b = r == 0 ? 0 : r == nr ? pt->n_m : lower_bound(pt->m, pt->n_m, split);
			c->bounds[r * np + p] = b;
			if (r)
				sum += b - c->bounds[(r - 1) * np + p];
		}
		if (r)
			c->range_off[r] = c->range_off[r - 1] + sum;
	}
}

/* Cuts the block BUF[0..len) (complete lines, but for the last at EOF;
 * BUF[LEN] readable and not a hex digit) into c->part. */
static void cut_parts(sym_ctx *c, const char *buf, size_t len, bool eof)
{
	size_t size = len / (8 * (size_t)c->jobs);
	size = size < PART_MIN ? PART_MIN : size > PART_MAX ? PART_MAX : size;
	c->n_parts = 0;
	for (size_t at = 0; at < len;) {
		size_t e = len - at > size ? at + size : len;
		if (e < len) {
			const char *nl = memchr(buf + e - 1, '\n', len - (e - 1));
			e = nl ? (size_t)(nl - buf) + 1 : len;
		}
		if (c->n_parts == c->cap_parts) {
			size_t old = c->cap_parts;
			sp_grow(&c->part, &c->cap_parts, c->n_parts + 1, sizeof(*c->part));
			memset(c->part + old, 0, (c->cap_parts - old) * sizeof(*c->part));
			for (size_t p = old; p < c->cap_parts; p++)
				c->part[p].out.grow = true;
		}
		part *pt = &c->part[c->n_parts++];
		pt->buf = buf + at;
		pt->len = e - at;
		pt->eof = eof && e == len;
		at = e;
	}
}

/* Answers a large block of input, BUF[0..len) (complete lines, but for
 * the last at EOF; BUF[LEN] readable and not a hex digit), on the jobs'
 * threads, and writes the answers in input order.  False, with nothing
 * written, for a block with lines that may be symbols' names: the serial
 * path answers it (names are looked up on the command's thread). */
static bool run_block(sym_ctx *c, const char *buf, size_t len, bool eof)
{
	if (!c->threads)
		start_threads(c);
	start_batch(c);
	cut_parts(c, buf, len, eof);
	run_phase(c, task_part, c->n_parts);
	for (size_t p = 0; p < c->n_parts; p++)
		if (c->part[p].n_sym) {
			c->part[0].n_ents = 0;
			sp_buf_reset(&c->part[0].errors);
			return false;
		}
	size_t total = 0;
	for (size_t p = 0; p < c->n_parts; p++) {
		c->n_asked += c->part[p].asked;
		c->n_hits += c->part[p].hits;
		total += c->part[p].n_m;
	}
	if (total > c->cap_misses) {
		free(c->misses);
		free(c->misses_tmp);
		c->cap_misses = total;
		c->misses = sp_xreallocarray(NULL, total, sizeof(*c->misses));
		c->misses_tmp = sp_xreallocarray(NULL, total, sizeof(*c->misses_tmp));
	}
	plan_ranges(c, total);
	if (total) {
		run_phase(c, task_range, c->n_ranges);
		size_t distinct = 0;
		for (size_t r = 0; r < c->n_ranges; r++)
			distinct += c->range_distinct[r];
		c->n_hits += block_repeats(c, total - distinct);
		if (!resolve_parallel(c, c->misses, total, distinct)) {
			share_cache(c, false);
			cut_chunks(c, c->misses, total);
			for (size_t t = 0; t < c->n_chunks; t++)
				task_resolve(c, &c->job[0], t);
		}
	}
	c->n_misses = total;
	run_phase(c, task_finish, c->n_tables + c->n_parts);
	c->kept_others = 0;
	for (int k = 1; k < c->jobs; k++)
		c->kept_others += c->job[k].keep->len;
	for (size_t p = 0; p < c->n_parts; p++)
		sink_write(&c->out, c->part[p].out.iov, c->part[p].out.n);
	c->part[0].n_ents = 0;
	sp_buf_reset(&c->part[0].errors);
	return true;
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
		/* complete lines, and the last at EOF */
		const char *nl = eof ? NULL : memrchr(buf, '\n', len);
		size_t whole = eof ? len : nl ? (size_t)(nl - buf) + 1 : 0;
		size_t used;
		if (c->jobs > 1 && whole >= PAR_MIN_BYTES && whole <= PAR_MAX_BYTES &&
		    run_block(c, buf, whole, eof)) {
			used = whole;
		} else {
			used = add_lines(c, buf, len, eof);
			if (c->part[0].n_ents)
				run_batch(c);
		}
		memmove(buf, buf + used, len - used);
		len -= used;
	}
	free(buf);
	return 0;
}

static bool open_exe(sym_ctx *c, const sp_symbolize_options *o, const char *exe);
static int address_base(sym_ctx *c);

/* One input line of llvm-symbolizer's module form, `[CODE|DATA] MODULE ADDR`
 * or `[CODE|DATA] "MODULE" ADDR`: the module (*MOD, *MOD_LEN) and where the
 * address starts (*ADDR); false when LINE has one word only (an address of
 * the current module). */
static bool module_line(const char *line, const char **mod, size_t *mod_len, const char **addr)
{
	const char *p = line + strspn(line, " \t");
	if ((!strncmp(p, "CODE", 4) || !strncmp(p, "DATA", 4)) && (p[4] == ' ' || p[4] == '\t'))
		p += 4 + strspn(p + 4, " \t");
	const char *end;
	if (*p == '"') {
		end = strchr(p + 1, '"');
		if (!end)
			return false;
		*mod = p + 1;
		*mod_len = (size_t)(end - p - 1);
		end++;
	} else {
		end = p + strcspn(p, " \t");
		*mod = p;
		*mod_len = (size_t)(end - p);
	}
	const char *a = end + strspn(end, " \t");
	if (!*a || a == end)
		return false;
	*addr = a;
	return true;
}

/* symbolize without -e, reading lines that may name their module, as
 * llvm-symbolizer reads them: each line is answered on its own (the
 * module may change from one line to the next), through the one session,
 * whose objects stay open; a line of one word is an address of the last
 * module named (a.out before any). */
static int run_module_lines(sym_ctx *c, const sp_symbolize_options *o)
{
	char *line = NULL, *cur = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		const char *mod, *addr = line;
		size_t mod_len;
		bool named = module_line(line, &mod, &mod_len, &addr);
		char *want = named ? sp_xstrndup(mod, mod_len) : sp_xstrdup(cur ? cur : "a.out");
		if (!cur || strcmp(want, cur)) {
			free(cur);
			cur = want;
			want = NULL;
			free(c->obj_path);
			c->obj_path = NULL;
			c->obj = NULL;
			if (open_exe(c, o, cur))
				address_base(c);
			c->job[0].obj = c->obj;
			c->addr_digits = c->obj && sp_object_info(c->obj)->elf_class == ELFCLASS32 ? 8 : 16;
			/* the text cache holds another module's answers */
			for (unsigned q = 0; q < c->n_tables; q++) {
				free(c->tables[q].slots);
				c->tables[q] = (text_table){0};
			}
			sp_buf_reset(&c->text);
			sp_buf_reset(&c->module);
			sp_buf_puts(&c->module, ",\"ModuleName\":");
			json_text(&c->module, cur);
		}
		free(want);
		add_line(c, addr, strlen(addr));
		run_batch(c);
	}
	free(line);
	free(cur);
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

/* What --relative and --section add to every address: 0, or 2 after a
 * usage error or 1 after another (both printed). */
static int address_base(sym_ctx *c)
{
	const char *opt = c->section ? "--section" : "--relative";
	if ((c->relative || c->section) && !c->obj)
		return sp_cli_usage("symbolize", "%s needs -e FILE", opt);
	if (c->relative) {
		const sp_elf_info *info = sp_object_info(c->obj);
		c->rel_adjust = sp_relative_adjust(info->loads, info->n_loads);
	} else if (c->section) {
		/* addresses are offsets in the section: as --relative, from its start */
		sp_error *e = sp_object_section_address(c->obj, c->section, &c->rel_adjust);
		if (e) {
			char *msg = sp_error_string(e);
			fprintf(stderr, "symprof symbolize: %s\n", msg);
			free(msg);
			sp_error_free(e);
			return 1;
		}
		c->relative = true;
	}
	return 0;
}

int cmd_symbolize(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_RELATIVE, OPT_CACHE_MAX, OPT_OBJ, OPT_STYLE, OPT_NO_INLINES,
	       OPT_NO_DEMANGLE, OPT_SECTION };
	static const struct option longopts[] = {
		{"exe", required_argument, NULL, 'e'},
		{"obj", required_argument, NULL, OPT_OBJ},
		{"pretty-print", no_argument, NULL, 'p'},
		{"basenames", no_argument, NULL, 's'},
		{"output-style", required_argument, NULL, OPT_STYLE},
		{"addresses", no_argument, NULL, 'a'},
		{"functions", no_argument, NULL, 'f'},
		{"inlines", no_argument, NULL, 'i'},
		{"no-inlines", no_argument, NULL, OPT_NO_INLINES},
		{"demangle", optional_argument, NULL, 'C'},
		{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
		{"symbols", no_argument, NULL, 'S'},
		{"symbols-sections", no_argument, NULL, 'x'},
		{"section", required_argument, NULL, OPT_SECTION},
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
	bool style_given = false, demangle_given = false;
	int inlines = -1; /* -i 1, --no-inlines 0, else the style's default */
	while ((opt = getopt_long(argc, argv, ":e:afipsCSxj:h", longopts, NULL)) != -1) {
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
		case 'f': c.form.functions = true; break;
		case 'i': inlines = 1; break;
		case OPT_NO_INLINES: inlines = 0; break;
		case 'S': c.form.symbols = true; break;
		case 'x': c.form.symbols = c.form.symbol_sections = true; break;
		case OPT_SECTION: c.section = optarg; break;
		case OPT_NO_DEMANGLE:
			demangle_given = true;
			cli.sym.demangle = SP_DEMANGLE_NONE;
			break;
		case 'C':
			demangle_given = true;
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
	else if (c.section && c.relative)
		rc = sp_cli_usage("symbolize", "--section and --relative both say what addresses are: "
				  "give one");
	else if (c.pretty && (c.json || c.style == STYLE_JSON))
		rc = sp_cli_usage("symbolize", "-p (--pretty-print) is a text form: not with JSON output");
	if (rc) {
		sp_cli_sym_clear(&cli);
		return rc;
	}
	/* llvm-symbolizer demangles and prints inlined frames unless told not
	 * to; addr2line does neither unless told to */
	bool llvm = c.style != STYLE_GNU;
	if (llvm && !demangle_given)
		cli.sym.demangle = SP_DEMANGLE_FULL;
	c.form.inlines = inlines < 0 ? llvm || c.json : inlines == 1;
	c.form.llvm = c.style == STYLE_LLVM;
	c.form.functions |= c.form.llvm;
	c.form.pretty = c.pretty;
	c.form.basenames = c.basenames;
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
	/* without -e, stdin's lines may name their modules (llvm-symbolizer's
	 * MODULE ADDR); a.out is the module of a line that names none */
	bool modules = !exe && !jit && !perf && !ksyms && !sp_symbolizer_jitdump(c.s) &&
		       optind >= argc && !c.relative && !c.section;
	if (modules)
		c.jobs = 1;
	if (!exe && !jit && !perf && !ksyms && !sp_symbolizer_jitdump(c.s) && !modules)
		exe = "a.out";
	if (exe && !open_exe(&c, &cli.sym, exe)) {
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return 1;
	}
	if ((rc = address_base(&c)) != 0) {
		sp_symbolizer_free(c.s);
		sp_cli_sym_clear(&cli);
		return rc;
	}
	c.addr_digits = c.obj && sp_object_info(c.obj)->elf_class == ELFCLASS32 ? 8 : 16;

	fflush(stdout);
	if (c.style != STYLE_LLVM) /* which echoes the line alone */
		format_frames(&c, NULL, 0, NULL, 0, &c.unknown);
	sp_buf_puts(&c.module, ",\"ModuleName\":");
	json_text(&c.module, exe ? exe : "");
	init_jobs(&c);
	c.out.cap = SINK_IOV;
	c.out.iov = sp_xreallocarray(NULL, c.out.cap, sizeof(*c.out.iov));
	c.cap_parts = 1;
	c.part = sp_xcalloc(1, sizeof(*c.part));
	c.part[0].out.grow = true;
	c.part[0].cap_ents = BATCH_LINES;
	c.part[0].ents = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c.part[0].ents));
	c.part[0].cap_prefix = BATCH_LINES * PREFIX_MAX;
	c.part[0].prefix = sp_xmalloc(c.part[0].cap_prefix);
	c.cap_misses = BATCH_LINES;
	c.misses = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c.misses));
	c.misses_tmp = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c.misses_tmp));
	if (optind < argc) {
		/* llvm-symbolizer answers its arguments with one JSON array */
		c.json_array = c.style == STYLE_JSON;
		for (int i = optind; i < argc; i++)
			add_line(&c, argv[i], strlen(argv[i]));
		if (c.part[0].n_ents)
			run_batch(&c);
		if (c.json_array) {
			sink_put(&c.out, "]\n", 2);
			sink_flush(&c.out);
		}
	} else if (modules) {
		rc = run_module_lines(&c, &cli.sym);
	} else {
		rc = run_stdin(&c);
	}
	if (c.out.err) {
		fprintf(stderr, "symprof symbolize: writing output: %s\n", strerror(c.out.err));
		rc = 1;
	}
	free_jobs(&c);
	for (size_t p = 0; p < c.cap_parts; p++) {
		part *pt = &c.part[p];
		free(pt->ents);
		free(pt->m);
		free(pt->m_tmp);
		free(pt->prefix);
		free(pt->out.iov);
		sp_buf_free(&pt->errors);
	}
	free(c.part);
	free(c.misses);
	free(c.misses_tmp);
	free(c.bounds);
	free(c.range_off);
	free(c.range_distinct);
	free(c.chunks);
	free(c.returned);
	for (unsigned q = 0; q < c.n_tables; q++)
		free(c.tables[q].slots);
	free(c.tables);
	free(c.out.iov);
	sp_buf_free(&c.text);
	sp_buf_free(&c.tmp);
	sp_buf_free(&c.unknown);
	sp_buf_free(&c.module);
	free(c.obj_path);
	sp_symbolizer_free(c.s);
	sp_cli_sym_clear(&cli);
	return rc;
}
