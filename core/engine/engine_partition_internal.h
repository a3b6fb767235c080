/* One partition as the engine keeps it in its slot, and its life in the hardware (engine_partition.c):
 * opened, closed, failed and tried again. Each group of fields names the file that changes it. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_PARTITION_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_PARTITION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/actuator.h"
#include "backends/contracts/control.h"
#include "backends/contracts/pmu.h"
#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/config/model.h"
#include "core/engine/slot_limits.h"
#include "core/report/partition_status.h"

struct engine;
struct engine_gen;

/* A failed partition is tried again after one tick, then twice as long each time, up to this. */
#define ENGINE_RETRY_MAX_NS (60ull * 1000000000ull)

/* Per slot: what the engine knows beyond the public status. A slot keeps its number while its
 * partition lives; a removed partition's slot is free for the next one added. */
struct engine_partition {
	/* What the slot holds: engine_slots.c (engine_desired.c changes origin and file_goals, and with
	 * engine_set.c config's goals, in place; engine_set.c keeps file_goals before it changes them). */
	struct partition_config *config; /* in gen->config: what it runs with (set changes its goals) */
	struct engine_gen *gen;
	/* Its goals as the file said, kept only once `set` changed config's (NULL: config's goals are the
	 * file's): a copy few partitions need (engine_slot_forget_file_goals frees it). */
	struct partition_goals *file_goals;
	char *origin; /* NULL: the file; else what made it (a template's name; engine_slot_set_origin) */
	bool used;    /* the slot holds a partition */
	/* Its life in the hardware: engine_partition.c (engine_desired.c brings retry_ns forward at a
	 * reload, engine_apply.c's recreate opens ref again). Its flags and count side by side with
	 * `used`: no padding between, in every slot. */
	bool hw_open; /* the composition holds it (close or remove it once) */
	/* Could not be opened or its limits applied: tried again at retry_ns (engine clock). */
	bool failed;
	bool no_room;	   /* it failed for want of room (ENOSPC): waits for room freed (engine_pool.c) */
	unsigned attempts; /* failed attempts in a row */
	char *error; /* why it failed, or (open) why its limits could not be applied; NULL: nothing (engine_text_set) */
	uint64_t retry_ns, backoff_ns;
	struct partition_ref ref; /* how the control opened it */
	/* What the control and the actuators took: engine_apply.c (a close clears applied_once). */
	struct slot_limits applied;   /* what the last successful apply asked for */
	struct slot_limits effective; /* what it put in force, per domain */
	double *limits_room;	      /* applied's and effective's per-domain values (engine_slot_limits_room) */
	unsigned limits_domains;      /* the domains it has room for */
	struct actuation actuated;    /* what the actuators last carried out */
	bool applied_once;
	/* Its samples: engine.c (jumped beside applied_once: no padding between), and the PMU's:
	 * engine_pmu.c. */
	bool jumped;		  /* its last sample was refused as more than a domain can carry */
	uint64_t invalid_samples; /* ticks at which it was open and its sample invalid */
	char *pmu_reason;	  /* why the sampler could not count it at all; NULL: it could (engine_text_set) */
	/* The text of this tick's events, which status.event points to once it has one: engine_apply.c
	 * (EVENT_TEXT_MAX bytes, allocated for the first event; engine.c clears status.event each tick). */
	char *event_text;
	/* What it looked like at the last tick: its rate (engine.c's summarise), open and failed
	 * (engine_partition.c), limits in force (engine_apply.c), IPC (engine_pmu.c). */
	struct partition_status status;
};

/* A slot's texts (error, pmu_reason) are its own copies, made when there is something to say, not
 * ERR_TEXT_MAX bytes in every slot: *where becomes a copy of `text` (the old one freed), or, out of
 * memory, a static text saying so, never NULL; engine_text_free frees it and leaves NULL. */
void engine_text_set(char **where, const char *text);
void engine_text_free(char **where);

/* Room in the slot for limits of the control's domains (once; again where their number changed): 0 or
 * -ENOMEM and why. */
int engine_slot_limits_room(struct engine *e, size_t slot, struct err *err);
/* Keeps what an apply asked for and what it put in force (either may be NULL: kept as it was). */
void engine_slot_keep_limits(struct engine *e, size_t slot, const struct partition_limits *applied,
			     const struct partition_limits *effective);

/* Opens slot `slot` in the composition and applies its configured limits; a failure marks it failed
 * (retried by engine_heal) and is logged: 0 or the negative errno. */
int engine_slot_open(struct engine *e, size_t slot, uint64_t now_ns);
/* Closes it in every backend (PMU, monitors, actuators, control). With `remove`, the control removes
 * what it created for it (its resctrl group, when mpamd made it). */
void engine_slot_close(struct engine *e, size_t slot, bool remove);
/* Its status says what failed and retry_ns hold (summarised each tick; at once where they change). */
void engine_slot_show_failure(struct engine *e, size_t slot);
/* It failed: closed in the backends, its error kept, tried again after the backoff. */
void engine_slot_failed(struct engine *e, size_t slot, uint64_t now_ns, const char *error);
/* Its limits could not be applied while it stays open (the limits in force stay, and status shows
 * them): the error is kept for status and logged once while it stays the same; the next tick that
 * applies tries again. */
void engine_slot_apply_failed(struct engine *e, size_t slot, const char *error);
/* Its limits were applied: an apply error it had is cleared, saying so. */
void engine_slot_applied(struct engine *e, size_t slot);
/* Asks the control whether its hardware is still there (recover): when it went, closes every open
 * partition; then tries again each failed partition whose time has come. Failed partitions heal
 * without a reload. */
void engine_heal(struct engine *e, uint64_t now_ns);

#endif
