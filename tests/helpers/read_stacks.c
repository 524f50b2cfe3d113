/* read_stacks.c — test tool: reads FILE with one named reader and prints
 * its samples one per line, "V1 V2 @ 0xADDR ...", leaf first (see
 * tests/helpers/stacks_util.h).  Shell tests compare this with an independent
 * reader (go tool pprof -raw) and check the malformed-input corpus.
 *
 *   read_stacks cpu|contention|thread|gocount|raw|folded FILE
 *   read_stacks detect FILE     (prints the detected format's name)
 *
 * Exit status 0 on success, 1 with the error on stderr, 2 on misuse. */
#include "formats/formats.h"
#include "tests/helpers/stacks_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	sp_reader_fn fn;
} readers[] = {
	{"cpu", sp_cpu_read},         {"contention", sp_contention_read},
	{"thread", sp_thread_read},   {"gocount", sp_gocount_read},
	{"raw", sp_addrstacks_read},         {"folded", sp_folded_read},
};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: read_stacks READER FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "detect")) {
		sp_profile *p = NULL;
		sp_input_format f;
		sp_error *err = sp_read_profile_file(argv[2], &p, &f);
		sp_profile_free(p);
		if (err) {
			char *s = sp_error_string(err);
			fprintf(stderr, "read_stacks: %s\n", s);
			free(s);
			sp_error_free(err);
			return 1;
		}
		printf("%s\n", sp_input_format_name(f));
		return 0;
	}
	sp_reader_fn fn = NULL;
	for (size_t i = 0; i < SP_ARRAY_LEN(readers); i++)
		if (!strcmp(argv[1], readers[i].name))
			fn = readers[i].fn;
	if (!fn) {
		fprintf(stderr, "read_stacks: unknown reader \"%s\"\n", argv[1]);
		return 2;
	}
	uint8_t *data;
	size_t len;
	sp_profile *p = NULL;
	sp_error *err = sp_read_file(argv[2], &data, &len);
	if (!err) {
		err = fn(argv[2], data, len, &p);
		free(data);
	}
	if (!err)
		err = sp_profile_check(p, argv[2]);
	if (err) {
		char *s = sp_error_string(err);
		fprintf(stderr, "read_stacks: %s\n", s);
		free(s);
		sp_error_free(err);
		sp_profile_free(p);
		return 1;
	}
	char *s = stacks_string(p);
	fputs(s, stdout);
	free(s);
	sp_profile_free(p);
	return 0;
}
