/* batch.c — the order in which a batch of addresses is resolved.
 *
 * Resolving N addresses against one object is cheapest in address order:
 * neighbouring addresses share compile units, line tables and function
 * trees, so the resolver's caches stay warm, and equal addresses end up
 * next to each other, to be resolved once.  `convert` sorts each
 * mapping's addresses this way (symbolize.c), `symbolize` each block of input
 * addresses its text cache lacks (cmd_symbolize.c).
 */
#include "symbolize/symbolize.h"

#include <string.h>

void sp_addr_items_sort(sp_addr_item *items, sp_addr_item *tmp, size_t n)
{
	size_t count[256];
	uint64_t diff = 0;
	sp_addr_item *src = items, *dst = tmp;
	for (size_t i = 1; i < n; i++)
		diff |= items[i].addr ^ items[0].addr;
	/* LSD radix sort, stable; only the bytes in which addresses differ
	 * get a pass */
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((diff >> shift) & 255))
			continue;
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i].addr >> shift) & 255]++;
		for (size_t i = 0, sum = 0; i < 256; i++) {
			size_t k = count[i];
			count[i] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].addr >> shift) & 255]++] = src[i];
		sp_addr_item *t = src;
		src = dst;
		dst = t;
	}
	if (src != items)
		memcpy(items, src, n * sizeof(*items));
}
