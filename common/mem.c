/* mem.c — allocation with a memory budget, and growable buffers.
 *
 * Exhaustion is not an error path that callers handle: when malloc fails,
 * or when the heap would grow past the budget, symprof says which input it
 * was working on and what the limit is, removes its temporary outputs and
 * exits with status 1 (never an abort).  The budget is checked against the
 * heap in use as malloc reports it (mallinfo2), which counts libraries'
 * allocations too, before any request of a step (BUDGET_STEP) or more on
 * its own, and otherwise once the bytes requested since the last check
 * reach a quarter of the room the heap had left at that check, or one
 * step when that is more.  mallinfo2 walks malloc's free lists: checking
 * at every step cost a quarter of a conversion that frees much.  Far below
 * the limit checks are rare; near it they come every step, and between
 * checks the heap can pass the limit by at most about one step.  (Under
 * AddressSanitizer and ThreadSanitizer, whose allocators mallinfo2 does not
 * see, the sanitizer's own count is used.)  Memory that is not on the heap
 * (memory files, anonymous mappings of decompressed data) is charged to the
 * budget by its owner while it lives (sp_mem_charge) and counts as heap in
 * use; before such memory is taken, sp_mem_make_room (budget.c) lets the
 * caches give back what they hold.  Threads allocate too
 * (symbolize -j, the gzip sink): the count of bytes since the last check
 * and the distance to the next are atomic; the limit is set before any
 * thread starts.
 */
#include "common/common.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SP_SANITIZER_HEAP 1
/* the sanitizers' (sanitizer/allocator_interface.h, which gcc does not install) */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

/* The process's budget: like the signal handlers of fatal.c, it belongs to
 * the process, not to a session. */
static struct {
	size_t limit;        /* bytes; 0 = none */
	size_t step;         /* bytes requested between two checks, at least */
	_Atomic size_t next; /* ... and until the next one */
	_Atomic size_t since_check;
	_Atomic size_t charged; /* besides the heap: sp_mem_charge */
} budget;

/* Code, stacks and the libraries' static data are not on the heap but are
 * part of the process's size: the heap gets the limit minus this. */
#define BUDGET_RESERVE ((size_t)16 << 20)

static __attribute__((noreturn)) void give_up(const char *why)
{
	char lim[64] = "";
	if (budget.limit)
		sp_format_size(lim, sizeof(lim), budget.limit);
	const char *input = sp_mem_input();
	/* no allocation from here on */
	fprintf(stderr, "symprof: %s%s%s%s%s\n", input ? input : "", input ? ": " : "", why,
		budget.limit ? lim : "", budget.limit ? " (--max-memory)" : "");
	sp_sink_remove_pending();
	exit(1);
}

__attribute__((noreturn)) void sp_oom(void)
{
	give_up(budget.limit ? "out of memory below the memory limit of " : "out of memory");
}

static void over_budget(void)
{
	give_up("needs more memory than the limit of ");
}

static size_t heap_in_use(void)
{
#ifdef SP_SANITIZER_HEAP
	/* the sanitizer's allocator replaces malloc's arenas */
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
#endif
}

size_t sp_mem_in_use(void)
{
	return heap_in_use() + atomic_load_explicit(&budget.charged, memory_order_relaxed);
}

size_t sp_mem_room(void)
{
	if (!budget.limit)
		return SIZE_MAX;
	size_t heap_limit = budget.limit - BUDGET_RESERVE, used = sp_mem_in_use();
	return used < heap_limit ? heap_limit - used : 0;
}

/* Called before a request of N bytes. */
static void account(size_t n)
{
	if (!budget.limit)
		return;
	size_t since = atomic_fetch_add_explicit(&budget.since_check, n, memory_order_relaxed) + n;
	if (since < atomic_load_explicit(&budget.next, memory_order_relaxed) && n < budget.step)
		return;
	atomic_store_explicit(&budget.since_check, 0, memory_order_relaxed);
	size_t heap_limit = budget.limit - BUDGET_RESERVE;
	size_t used = sp_mem_in_use();
	if (used > heap_limit || n > heap_limit - used)
		over_budget();
	size_t room = (heap_limit - used - n) / 4;
	atomic_store_explicit(&budget.next, room > budget.step ? room : budget.step,
			      memory_order_relaxed);
}

void sp_mem_charge(size_t n)
{
	atomic_fetch_add_explicit(&budget.charged, n, memory_order_relaxed);
}

void sp_mem_uncharge(size_t n)
{
	atomic_fetch_sub_explicit(&budget.charged, n, memory_order_relaxed);
}

void sp_mem_set_limit(size_t bytes)
{
	if (bytes && bytes < SP_MEM_MIN_LIMIT)
		bytes = SP_MEM_MIN_LIMIT;
	budget.limit = bytes;
	budget.step = bytes / 64 < ((size_t)1 << 20) ? bytes / 64 : (size_t)1 << 20;
	atomic_store_explicit(&budget.since_check, 0, memory_order_relaxed);
	atomic_store_explicit(&budget.next, budget.step, memory_order_relaxed);
}

size_t sp_mem_limit(void)
{
	return budget.limit;
}

size_t sp_mem_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t half = pages > 0 && page > 0 ? (size_t)pages / 2 * (size_t)page : 0;
	size_t cap = (size_t)SP_MEM_DEFAULT_MAX_GIB << 30;
	if (!half || half > cap)
		return cap;
	return half < SP_MEM_MIN_LIMIT ? SP_MEM_MIN_LIMIT : half;
}

void *sp_xmalloc(size_t n)
{
	account(n);
	void *p = malloc(n ? n : 1);
	if (!p)
		sp_oom();
	return p;
}

/* N * SIZE bytes; out of memory when that is more than there are */
static size_t array_bytes(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		sp_oom();
	return n * size;
}

void *sp_xcalloc(size_t n, size_t size)
{
	account(array_bytes(n, size));
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		sp_oom();
	return p;
}

void *sp_xcalloc_written(size_t n, size_t size)
{
	size_t bytes = array_bytes(n, size);
	void *p = sp_xmalloc(bytes);
	memset(p, 0, bytes);
	return p;
}

void *sp_xcalloc_lines(size_t n, size_t size)
{
	size_t bytes = array_bytes(n, size);
	account(bytes);
	void *p;
	if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0)
		sp_oom();
	memset(p, 0, bytes);
	return p;
}

void *sp_xrealloc(void *p, size_t n)
{
	account(n);
	p = realloc(p, n ? n : 1);
	if (!p)
		sp_oom();
	return p;
}

void *sp_xreallocarray(void *p, size_t n, size_t size)
{
	return sp_xrealloc(p, array_bytes(n, size));
}

char *sp_xstrdup(const char *s)
{
	return sp_xstrndup(s, strlen(s));
}

char *sp_xstrndup(const char *s, size_t n)
{
	char *p = sp_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *sp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		sp_oom();
	return s;
}

char *sp_hex_string(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = sp_xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

void sp_grow(void *arrp, size_t *cap, size_t need, size_t elsz)
{
	void **arr = arrp;
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			sp_oom();
		ncap *= 2;
	}
	*arr = sp_xreallocarray(*arr, ncap, elsz);
	*cap = ncap;
}

void sp_buf_append(sp_buf *b, const void *data, size_t n)
{
	sp_grow(&b->data, &b->cap, b->len + n + 1, 1);
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sp_buf_puts(sp_buf *b, const char *s)
{
	sp_buf_append(b, s, strlen(s));
}

void sp_buf_printf(sp_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char tmp[256];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		sp_oom();
	if ((size_t)n < sizeof(tmp)) {
		sp_buf_append(b, tmp, (size_t)n);
	} else {
		sp_grow(&b->data, &b->cap, b->len + (size_t)n + 1, 1);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

const char *sp_buf_str(sp_buf *b)
{
	if (!b->data)
		sp_buf_append(b, "", 0);
	return b->data;
}

char *sp_buf_take(sp_buf *b)
{
	sp_buf_str(b);
	char *s = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

void sp_buf_reset(sp_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void sp_buf_free(sp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
