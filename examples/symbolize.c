/* symbolize.c — the frames of addresses of an ELF file, through libsymprof.
 *
 *   cc symbolize.c $(pkg-config --cflags --libs symprof) -o symbolize
 *   ./symbolize ./prog 0x1139 0x1150
 *
 * Each ADDR is an ELF virtual address of the file (hex, "0x" optional), as
 * addr2line takes them.  For each, its frames, innermost first, one
 * "FUNCTION FILE:LINE" line each, names demangled; "??" stands for what is
 * not known ("?? ??:0" for an address nothing is known of): the frames
 * `symprof symbolize --output-style=LLVM -e ELF ADDR...` prints, a frame
 * per line without the column.
 * Built only against the installed symprof.h and pkg-config's flags.
 */
#include <symprof.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ADDR in hex, "0x" optional; 0 when it is none. */
static int parse_address(const char *s, uint64_t *addr)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 16);
	if (errno || end == s || *end || *s == '-' || *s == '+')
		return 0;
	*addr = v;
	return 1;
}

static void print_frames(const symprof_location *l)
{
	if (l->n_frames == 0) {
		puts("?? ??:0");
		return;
	}
	for (size_t i = 0; i < l->n_frames; i++) {
		const symprof_frame *f = &l->frames[i];
		printf("%s %s:%" PRId64 "\n", f->function ? f->function : "??",
		       f->file ? f->file : "??", f->line > 0 ? f->line : 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s ELF ADDR...\n", argv[0]);
		return 2;
	}
	size_t n = (size_t)argc - 2;
	uint64_t *addrs = calloc(n, sizeof(*addrs));
	if (!addrs)
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (!parse_address(argv[i + 2], &addrs[i])) {
			fprintf(stderr, "%s: not an address: %s\n", argv[0], argv[i + 2]);
			free(addrs);
			return 2;
		}
	}

	symprof_options o = {.size = sizeof(o), .demangle = SYMPROF_DEMANGLE_FULL};
	symprof_session *s = NULL;
	symprof_error *err = symprof_session_new(&o, &s);
	symprof_target t = {.size = sizeof(t), .path = argv[1], .kind = SYMPROF_ADDR_VADDR};
	symprof_symbols *r = NULL;
	if (!err)
		err = symprof_symbolize(s, &t, addrs, n, &r);
	int rc = 0;
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[0], symprof_error_message(err));
		rc = 1;
	} else if (!r->report.used_path) {
		/* the file could not be had: say why, as the command does */
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1],
			r->report.detail ? r->report.detail : "cannot be opened");
		rc = 1;
	} else {
		for (size_t i = 0; i < r->n_locations; i++)
			print_frames(&r->locations[i]);
	}
	symprof_symbols_free(r);
	symprof_session_free(s);
	symprof_error_free(err);
	free(addrs);
	return rc;
}
