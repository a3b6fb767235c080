/* Limits as a slot keeps them (what it last asked a control for, what was put in force): the scalars
 * of struct partition_limits, and a ceiling and a minimum for each of the host's domains in room the
 * slot allocates once for them, not CONTROL_MAX_DOMAINS of each inline (a kilobyte a copy, two copies
 * a slot, where hosts have a few domains). */
#ifndef MPAMD_CORE_ENGINE_SLOT_LIMITS_H
#define MPAMD_CORE_ENGINE_SLOT_LIMITS_H

#include <stdint.h>

#include "backends/contracts/control.h"

struct slot_limits {
	double mb_max, mb_min; /* as partition_limits: the summary, or the one limit without domains */
	uint64_t l3_cbm;
	unsigned mb_mbps;
	unsigned domain_count;	       /* domains kept (0: mb_max and mb_min on every domain) */
	double *mb_max_at, *mb_min_at; /* domain_count of each, in the room (slot_limits_room) */
};

/* Room for two slot_limits (`a` and `b`) of `domains` domains each, in one allocation at *room
 * (*room_domains: the domains it has room for). Kept once sized: 0 when it has that room already; 1
 * when it was made anew (what a and b held per domain is gone); -ENOMEM (a and b keep no domains). */
int slot_limits_room(double **room, unsigned *room_domains, unsigned domains, struct slot_limits *a,
		     struct slot_limits *b);
/* *kept becomes `l`; its per-domain values as far as the room goes (a control's limits have as many
 * domains as its caps, what the room is sized to). */
void slot_limits_keep(struct slot_limits *kept, unsigned room_domains, const struct partition_limits *l);
/* *ret becomes what *kept holds (changed_outside false); returns ret. */
const struct partition_limits *slot_limits_load(const struct slot_limits *kept, struct partition_limits *ret);

/* The limits of domain d (the scalars past the domains kept), as limits_max_at. */
static inline double slot_limits_max_at(const struct slot_limits *l, unsigned d)
{
	return d < l->domain_count ? l->mb_max_at[d] : l->mb_max;
}

static inline double slot_limits_min_at(const struct slot_limits *l, unsigned d)
{
	return d < l->domain_count ? l->mb_min_at[d] : l->mb_min;
}

#endif
