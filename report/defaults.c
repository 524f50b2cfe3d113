/* defaults.c — report options: their defaults, and the sample filter their
 * focus, ignore, tagfocus and tagignore make (profile/filter.c), which the
 * graph, the top table and the flame graph apply as they draw.
 */
#include "report/reportp.h"

void sp_report_options_init(sp_report_options *o)
{
	*o = (sp_report_options){.nodefraction = -1, .edgefraction = -1};
}

sp_error *sp_report_filter_new(const sp_profile *p, const sp_report_options *o,
			       sp_sample_filter **out)
{
	sp_sample_filter *f;
	sp_error *err = sp_sample_filter_new(p, o->focus, o->ignore, &f);
	if (err)
		return err;
	if ((err = sp_sample_filter_tags(f, o->tagfocus, o->tagignore))) {
		sp_sample_filter_free(f);
		return err;
	}
	*out = f;
	return NULL;
}
