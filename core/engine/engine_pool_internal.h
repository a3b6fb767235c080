/* The control's pool (engine_pool.c): what an earlier run or configuration left there is removed, and
 * the partitions that found no room in it wait until room is freed instead of asking every tick. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_POOL_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_POOL_INTERNAL_H

#include <stdint.h>

struct config;
struct engine;

/* Asks the control to remove what no partition in use (nor one of `also`, NULL: none) names: at start
 * before the file's partitions open, and on every change of the partitions. Room freed wakes the
 * partitions waiting for it (engine_pool_room_freed). */
void engine_pool_tidy(struct engine *e, const struct config *also, uint64_t now_ns);
/* A group was removed (a partition went, or the pool was tidied): each partition that failed for want
 * of room is tried again at once, the others keep their pause. */
void engine_pool_room_freed(struct engine *e, uint64_t now_ns);

#endif
