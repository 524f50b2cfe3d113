/* stub */
#include "formats/formats.h"
sp_error *sp_speedscope_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out)
{ (void)p; (void)o; (void)out; return sp_error_new(SP_E_UNSUPPORTED, "todo"); }
sp_error *sp_firefox_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out)
{ (void)p; (void)o; (void)out; return sp_error_new(SP_E_UNSUPPORTED, "todo"); }
