/* store.c — writing an index into its directory.
 *
 * The bytes go through common's file sink: a temporary file beside the
 * target (PATH.tmp.XXXXXX, removed when the write fails or a signal ends
 * the process), renamed over the target once complete.  A reader opens
 * either the old file or the new one, never half of one; writers racing on
 * one index each rename a whole file, and since the same binary and debug
 * files give the same bytes, which one stays does not matter.  There is no
 * fsync (as for every output of symprof): after a crash the file may be
 * empty or cut short, which its size field and checksums refuse, and the
 * next run with --index-dir writes it again.
 */
#include "symbolize/index/indexp.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Makes the directory of PATH when it is missing (the last level only). */
static sp_error *make_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return NULL;
	char *dir = sp_xstrndup(path, (size_t)(slash - path));
	sp_error *e = NULL;
	struct stat st;
	if (stat(dir, &st) != 0 && (errno != ENOENT || mkdir(dir, 0777) != 0) && errno != EEXIST)
		e = sp_error_new(SP_E_IO, "%s: cannot make the directory: %s", dir, strerror(errno));
	free(dir);
	return e;
}

sp_error *sp_index_store(const char *path, const void *data, size_t n)
{
	sp_error *e = make_dir_of(path);
	sp_sink *out = NULL;
	if (!e)
		e = sp_sink_file_new(path, &out);
	if (e)
		return e;
	sp_sink_write(out, data, n);
	e = sp_sink_finish(out);
	sp_sink_free(out);
	return e;
}
