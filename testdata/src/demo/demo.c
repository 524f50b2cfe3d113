/* demo.c — the program ./scripts/demo profiles: counts the words of a generated text.
 *
 * Each step allocates in its own function, and everything stays allocated until the heap
 * profile is written, so the heaviest stacks read like the program's outline:
 *   generate_text   one 1 MiB buffer
 *   intern_word     one small copy per distinct word   (via count_words -> table_insert)
 *   new_node        one hash node per distinct word     (via count_words -> table_insert)
 *   grow_table      the bucket array, doubled as the table fills
 * Run with HEAPPROFILE=PREFIX and the program writes PREFIX.0001.heap through
 * Debian's libtcmalloc (link with -ltcmalloc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gperftools/heap-profiler.h>

#define NOINLINE __attribute__((noinline))

struct node {
	struct node *next;
	char *word;
	unsigned long count;
};

struct table {
	struct node **buckets;
	size_t nbuckets, n;
};

static const char *const syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo"};

NOINLINE static char *generate_text(size_t size)
{
	char *text = malloc(size + 1);
	unsigned seed = 12345;
	size_t pos = 0;
	while (pos + 8 < size) {
		int len = 1 + (seed >> 16) % 3;
		for (int i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			memcpy(text + pos, syllables[(seed >> 16) % 8], 2);
			pos += 2;
		}
		text[pos++] = ' ';
	}
	text[pos] = '\0';
	return text;
}

static unsigned long hash(const char *s, size_t len)
{
	unsigned long h = 5381;
	while (len--)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

NOINLINE static char *intern_word(const char *s, size_t len)
{
	char *w = malloc(len + 1);
	memcpy(w, s, len);
	w[len] = '\0';
	return w;
}

NOINLINE static struct node *new_node(char *word)
{
	struct node *n = calloc(1, sizeof(*n));
	n->word = word;
	return n;
}

NOINLINE static void grow_table(struct table *t)
{
	size_t nb = t->nbuckets ? 2 * t->nbuckets : 16;
	struct node **b = calloc(nb, sizeof(*b));
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct node *n = t->buckets[i], *next;
		for (; n; n = next) {
			next = n->next;
			size_t h = hash(n->word, strlen(n->word)) % nb;
			n->next = b[h];
			b[h] = n;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = nb;
}

NOINLINE static void table_insert(struct table *t, const char *s, size_t len)
{
	if (t->n >= t->nbuckets)
		grow_table(t);
	size_t h = hash(s, len) % t->nbuckets;
	for (struct node *n = t->buckets[h]; n; n = n->next)
		if (strlen(n->word) == len && !memcmp(n->word, s, len)) {
			n->count++;
			return;
		}
	struct node *n = new_node(intern_word(s, len));
	n->count = 1;
	n->next = t->buckets[h];
	t->buckets[h] = n;
	t->n++;
}

NOINLINE static void count_words(struct table *t, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, " ");
		if (len)
			table_insert(t, text, len);
		text += len + (text[len] == ' ');
	}
}

int main(void)
{
	struct table t = {0};
	char *text = generate_text(1 << 20);
	count_words(&t, text);
	printf("demo: %zu distinct words\n", t.n);
	if (IsHeapProfilerRunning()) {
		HeapProfilerDump("demo");
		HeapProfilerStop();
	}
	return 0;
}
