/* The generations of configuration: each one is freed when its last user drops it. */
#include <stdlib.h>

#include "core/config/model.h"
#include "core/engine/engine_gens_internal.h"

struct engine_gen *engine_gen_new(struct engine_gens *gens, struct config *config)
{
	struct engine_gen *g = calloc(1, sizeof(*g));

	if (!g) {
		config_free(config);
		return NULL;
	}
	g->config = config;
	g->next = gens->held;
	gens->held = g;
	return g;
}

void engine_gen_hold(struct engine_gen *g)
{
	g->users++;
}

void engine_gen_drop(struct engine_gens *gens, struct engine_gen *g)
{
	if (!g || --g->users > 0)
		return;
	for (struct engine_gen **p = &gens->held; *p; p = &(*p)->next) {
		if (*p == g) {
			*p = g->next;
			break;
		}
	}
	config_free(g->config);
	free(g);
}
