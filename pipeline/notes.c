/* notes.c — the notes a run gives back besides profiles and reports
 * (pipeline.h): a list of topics with a line each and lines under it. */
#include "pipeline/pipeline.h"

#include <stdlib.h>

sp_note *sp_notes_add(sp_notes *ns, sp_note_level level, const char *topic, char *text)
{
	sp_note n = {.level = level, .topic = topic, .text = text};
	SP_PUSH(ns->v, ns->n, ns->cap, n);
	return &ns->v[ns->n - 1];
}

void sp_note_add_detail(sp_note *n, char *line)
{
	SP_PUSH(n->details, n->n_details, n->cap_details, line);
}

void sp_notes_move(sp_notes *to, sp_notes *from)
{
	for (size_t i = 0; i < from->n; i++)
		SP_PUSH(to->v, to->n, to->cap, from->v[i]);
	free(from->v);
	*from = (sp_notes){0};
}

void sp_notes_clear(sp_notes *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		sp_note *n = &ns->v[i];
		free(n->text);
		for (size_t k = 0; k < n->n_details; k++)
			free(n->details[k]);
		free(n->details);
	}
	free(ns->v);
	*ns = (sp_notes){0};
}
