/* index_content.c — the size of an ELF file's symbol index with and
 * without what LLVM's GSYM does not hold (columns, discriminators,
 * declaration lines, binutils' names of frames), for bench/index.sh's
 * comparison "for the same content".  Not a test: it prints two numbers.
 *
 *   index_content ELF   ->   "FULL SAME_AS_GSYM" (bytes)
 */
#include "symbolize/internal.h"
#include "tests/helpers/index_util.h"

typedef struct {
	spx_builder *b;
	bool strip;
} walk_ctx;

static sp_error *add(void *ctx, const sp_answer *a)
{
	walk_ctx *w = ctx;
	if (!w->strip || !a->n)
		return spx_builder_add(w->b, a);
	sp_frame f[SPX_MAX_FRAMES];
	sp_answer s = *a;
	for (size_t i = 0; i < a->n && i < SPX_MAX_FRAMES; i++) {
		f[i] = a->frames[i];
		f[i].column = 0;
		f[i].discriminator = 0;
		f[i].start_line = 0;
		f[i].gnu_name = NULL;
	}
	s.frames = f;
	return spx_builder_add(w->b, &s);
}

static sp_error *size_of(const char *path, const sp_elf_info *info, bool strip, size_t *size)
{
	sp_symbolize_options o = {.demangle = SP_DEMANGLE_NONE, .no_debuginfod = true};
	sp_resolver *d = sp_resolver_new(path, &o, info, NULL);
	walk_ctx w = {spx_builder_new(path), strip};
	sp_walk_info wi;
	sp_buf out = {0};
	sp_index_stats st;
	sp_error *e = sp_resolver_walk(d, add, &w, &wi);
	if (!e)
		e = spx_builder_finish(w.b, info->build_id, SPX_FLAG_DWARF, NULL, NULL, &out, &st);
	*size = out.len;
	sp_buf_free(&out);
	spx_builder_free(w.b);
	sp_resolver_free(d);
	return e;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: index_content ELF\n");
		return 2;
	}
	sp_elf_info info;
	size_t full = 0, same = 0;
	sp_error *e = sp_elf_info_read(argv[1], &info);
	if (!e)
		e = size_of(argv[1], &info, false, &full);
	if (!e)
		e = size_of(argv[1], &info, true, &same);
	if (e) {
		fprintf(stderr, "index_content: %s\n", e->msg);
		sp_error_free(e);
		return 1;
	}
	printf("%zu %zu\n", full, same);
	sp_elf_info_clear(&info);
	return 0;
}
