/* The configurations the engine holds (engine_gens.c keeps them): the one in force, and every
 * generation a partition, the composition or the VMs' file was made from. Only the files named beside
 * each field change it. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_GENS_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_GENS_INTERNAL_H

#include <stddef.h>

struct config;

/* A configuration partitions were opened from. Backends keep pointers into it (partition_ref.config,
 * their tables), so it lives while any of its partitions does, while it is the engine's
 * configuration, and while the backend opened with it is open. */
struct engine_gen {
	struct config *config;
	size_t users;
	struct engine_gen *next;
};

struct engine_gens {
	/* The configuration in force (the last good file) and its generation: engine.c at the start,
	 * engine_desired.c's take_config after every change. */
	struct config *config;
	struct engine_gen *current;
	struct engine_gen *hw;	 /* the one the composition was opened with (engine.c) */
	struct engine_gen *held; /* every one still held, newest first (engine_gens.c) */
};

/* Holds `config` (taking ownership) as a generation with no users yet; NULL when out of memory (the
 * config is then freed). */
struct engine_gen *engine_gen_new(struct engine_gens *gens, struct config *config);
void engine_gen_hold(struct engine_gen *g);
/* Drops one use; the last frees the configuration. */
void engine_gen_drop(struct engine_gens *gens, struct engine_gen *g);

#endif
