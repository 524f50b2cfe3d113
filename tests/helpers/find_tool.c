/* find_tool.c — a small driver of the file finder for tests/unit/symbolize/test_find.sh.
 *
 *   find_tool [OPTIONS] binary RECORDED BUILD_ID|-
 *   find_tool [OPTIONS] debuginfo BINARY
 *   find_tool buildid FILE        build id as sp_elf_info_read sees it
 *   find_tool sink                listen on 127.0.0.1, print the port, never answer
 *
 * OPTIONS: -b DIR (binary path), -d DIR (debug dir), -s SYSROOT,
 * -m OLD=NEW (path map), -n (no debuginfod), -r N (do the lookup N times
 * with one finder).  Prints one "try STATUS PATH" line per candidate, then
 * "found PATH" or "error CODE: MESSAGE".
 */
#include "symbolize/symbolize.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int sink(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 16) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0) {
		perror("sink");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	/* Connections complete in the kernel's backlog; nobody answers. */
	sleep(120);
	return 0;
}

int main(int argc, char **argv)
{
	const char *bpaths[16], *ddirs[16];
	sp_path_map maps[16];
	sp_symbolize_options o = { .binary_paths = bpaths, .debug_dirs = ddirs, .path_maps = maps };
	int opt, repeat = 1, rc = 0;

	while ((opt = getopt(argc, argv, "+b:d:s:m:nr:")) != -1) {
		switch (opt) {
		case 'b':
			if (o.n_binary_paths < 16)
				bpaths[o.n_binary_paths++] = optarg;
			break;
		case 'd':
			if (o.n_debug_dirs < 16)
				ddirs[o.n_debug_dirs++] = optarg;
			break;
		case 's':
			o.sysroot = optarg;
			break;
		case 'm': {
			char *eq = strchr(optarg, '=');
			if (!eq || o.n_path_maps >= 16)
				return 2;
			*eq = '\0';
			maps[o.n_path_maps].from = optarg;
			maps[o.n_path_maps++].to = eq + 1;
			break;
		}
		case 'n':
			o.no_debuginfod = true;
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	const char *cmd = argv[optind];
	if (strcmp(cmd, "sink") == 0)
		return sink();
	if (strcmp(cmd, "buildid") == 0 && optind + 1 < argc) {
		sp_elf_info info;
		sp_error *err = sp_elf_info_read(argv[optind + 1], &info);
		if (err)
			return 1;
		printf("%s\n", info.build_id ? info.build_id : "-");
		sp_elf_info_clear(&info);
		return 0;
	}

	sp_finder *f = sp_finder_new(&o);
	sp_elf_info info = { 0 };
	bool have_info = false;
	for (int r = 0; r < repeat; r++) {
		sp_find_log log = { 0 };
		sp_error *err;
		char *found = NULL;

		if (strcmp(cmd, "binary") == 0 && optind + 2 < argc) {
			const char *id = argv[optind + 2];
			err = sp_finder_binary(f, argv[optind + 1], strcmp(id, "-") ? id : NULL,
					       &found, &log);
		} else if (strcmp(cmd, "debuginfo") == 0 && optind + 1 < argc) {
			if (!have_info) {
				err = sp_elf_info_read(argv[optind + 1], &info);
				if (err) {
					char *m = sp_error_string(err);
					printf("error %s\n", m);
					free(m);
					sp_error_free(err);
					sp_finder_free(f);
					return 1;
				}
				have_info = true;
			}
			err = sp_finder_debuginfo(f, argv[optind + 1], &info, &found, &log);
		} else {
			sp_finder_free(f);
			return 2;
		}
		for (size_t i = 0; i < log.n; i++)
			printf("try %s %s%s%s\n", sp_try_status_str(log.v[i].status), log.v[i].path,
			       log.v[i].detail ? ": " : "", log.v[i].detail ? log.v[i].detail : "");
		if (err) {
			char *m = sp_error_string(err);
			printf("error %s: %s\n", sp_errcode_str(sp_error_root_code(err)), m);
			free(m);
			sp_error_free(err);
			rc = 1;
		} else {
			printf("found %s\n", found);
		}
		free(found);
		sp_find_log_clear(&log);
	}
	sp_elf_info_clear(&info);
	sp_finder_free(f);
	return rc;
}
