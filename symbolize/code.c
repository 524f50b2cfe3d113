/* code.c — the session's side of a function's machine code: the file a
 * mapping's code is in, found and based as symbolizing finds and bases it
 * (apply's rules for user-space files), and the code file of an object
 * (elf/code.c) with the separate debug file the resolver found. */
#include "symbolize/internal.h"

#include <elf.h>

sp_error *sp_symbolizer_mapping_object(sp_symbolizer *s, const sp_profile *p,
				       const sp_mapping *m, uint64_t addr, sp_object **obj,
				       uint64_t *base)
{
	const char *fname = sp_profile_str(p, m->filename);
	const char *bid = sp_profile_str(p, m->build_id);
	*obj = NULL;
	*base = 0;
	if (!*fname)
		return sp_error_new(SP_E_NOT_FOUND, "a mapping without a file");
	if (sp_code_kind_of(p, m, addr) != SP_CODE_FILE)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: not the code of a file", fname);
	const char *found;
	const sp_find_log *log;
	sp_error *err = sp_symbolizer_locate(s, fname, *bid ? bid : NULL, &found, &log);
	if (err && sp_error_root_code(err) == SP_E_UNSUPPORTED) {
		sp_error_free(err);
		err = NULL;
		found = fname;
	}
	if (err)
		return err;
	sp_object *o;
	if ((err = sp_symbolizer_object(s, found, *bid ? bid : NULL, &o)))
		return err;
	const sp_elf_info *info = sp_object_info(o);
	if (!(info->elf_type == ET_REL && info->has_text && info->text_addr) &&
	    (err = sp_mapping_base(info, m->memory_start, m->memory_limit, m->file_offset, addr,
				   base)))
		return err;
	*obj = o;
	return NULL;
}

sp_error *sp_object_code_file(sp_object *o, sp_code_file **out)
{
	/* a stripped file's symbols are in its debug file, which the
	 * resolver looks for when it opens */
	sp_error_free(sp_object_open(o));
	return sp_code_file_open(sp_object_path(o), sp_object_debug_path(o), out);
}
