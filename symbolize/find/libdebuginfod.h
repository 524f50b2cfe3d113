/* libdebuginfod.h — libdebuginfod's client calls under our own names, with
 * the library loaded on demand (see libdebuginfod.c).  Each behaves as the
 * library function of the same name without the sp_ prefix
 * (elfutils/debuginfod.h), on the wrapper handle sp_debuginfod_begin
 * returns; sp_debuginfod_begin returns NULL when the library cannot be
 * loaded or cannot start a client, and sp_debuginfod_end(NULL) is a no-op.
 */
#ifndef SYMPROF_SYMBOLIZE_DEBUGINFOD_DL_H
#define SYMPROF_SYMBOLIZE_DEBUGINFOD_DL_H

#include <elfutils/debuginfod.h>

debuginfod_client *sp_debuginfod_begin(void);
int sp_debuginfod_find_debuginfo(debuginfod_client *c, const unsigned char *build_id,
				 int build_id_len, char **path);
int sp_debuginfod_find_executable(debuginfod_client *c, const unsigned char *build_id,
				  int build_id_len, char **path);
void sp_debuginfod_set_progressfn(debuginfod_client *c, debuginfod_progressfn_t fn);
void sp_debuginfod_set_user_data(debuginfod_client *c, void *value);
void *sp_debuginfod_get_user_data(debuginfod_client *c);
const char *sp_debuginfod_get_url(debuginfod_client *c);
void sp_debuginfod_end(debuginfod_client *c);

#endif
