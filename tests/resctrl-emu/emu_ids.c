/* See emu_ids.h. */
#include "emu_ids.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "emu_counters.h"
#include "emu_state.h"

#define RESERVED_RMID_IDX 0 /* the default group's (CLOSID 0, RMID 0): never freed */
#define NS_PER_MS	  1000000ull

static unsigned pmgs(const struct emu *e)
{
	return e->prof.pmg_max + 1;
}

static bool limbo_used(const struct emu *e)
{
	return emu_profile_has_event(&e->prof, EMU_EVT_LLC); /* free_rmid(): llc_occupancy enabled */
}

static unsigned closid_of(const struct emu *e, unsigned idx)
{
	return e->prof.rmid_depends_on_closid ? idx / pmgs(e) : 0;
}

void emu_ids_init(struct emu *e)
{
	struct emu_ids *ids = &e->ids;
	unsigned n = emu_closids(e);

	memset(ids, 0, sizeof(*ids));
	ids->closid_free = (n >= 32 ? UINT32_MAX : (UINT32_C(1) << n) - 1) & ~UINT32_C(1);
	for (unsigned idx = 0; idx < e->prof.num_rmids && idx < EMU_MAX_RMIDS; idx++)
		if (idx != RESERVED_RMID_IDX)
			ids->rmid_free[ids->rmid_free_count++] = idx;
	for (unsigned d = 0; d < EMU_MAX_DOMAINS; d++)
		ids->limbo_next_ns[d] = UINT64_MAX;
}

/* resctrl_find_cleanest_closid(): the first free CLOSID without dirty RMIDs, else the one with fewest. */
static int cleanest_closid(const struct emu *e)
{
	int best = -1;

	for (unsigned c = 0; c < emu_closids(e); c++) {
		if (!((e->ids.closid_free >> c) & 1))
			continue;
		if (e->ids.dirty[c] == 0)
			return (int)c;
		if (best < 0 || e->ids.dirty[c] < e->ids.dirty[best])
			best = (int)c;
	}
	return best < 0 ? -ENOSPC : best;
}

int emu_closid_alloc(struct emu *e)
{
	int closid;

	if (e->prof.rmid_depends_on_closid && limbo_used(e))
		closid = cleanest_closid(e);
	else
		closid = e->ids.closid_free ? __builtin_ctz(e->ids.closid_free) : -ENOSPC;
	if (closid >= 0)
		e->ids.closid_free &= ~(UINT32_C(1) << closid);
	return closid;
}

void emu_closid_free(struct emu *e, unsigned closid)
{
	e->ids.closid_free |= UINT32_C(1) << closid;
}

bool emu_closid_take(struct emu *e, unsigned closid)
{
	uint32_t bit = UINT32_C(1) << closid;
	bool was_free = e->ids.closid_free & bit;

	e->ids.closid_free &= ~bit;
	return was_free;
}

/* resctrl_find_free_rmid() and alloc_rmid(). */
int emu_rmid_alloc(struct emu *e, struct emu_group *g)
{
	struct emu_ids *ids = &e->ids;

	if (!ids->rmid_free_count)
		return ids->limbo_count ? -EBUSY : -ENOSPC;
	for (unsigned i = 0; i < ids->rmid_free_count; i++) {
		unsigned idx = ids->rmid_free[i];
		if (e->prof.rmid_depends_on_closid && closid_of(e, idx) != g->closid)
			continue;
		memmove(&ids->rmid_free[i], &ids->rmid_free[i + 1], (ids->rmid_free_count - i - 1) * sizeof(unsigned));
		ids->rmid_free_count--;
		g->rmid_idx = idx;
		g->rmid = e->prof.rmid_depends_on_closid ? idx % pmgs(e) : idx;
		return 0;
	}
	return -ENOSPC;
}

static uint64_t all_domains(const struct emu *e)
{
	return e->prof.domains >= 64 ? UINT64_MAX : (UINT64_C(1) << e->prof.domains) - 1;
}

/* add_rmid_to_limbo(): dirty everywhere; a domain's worker starts with its first dirty RMID. */
static void limbo_add(struct emu *e, struct emu_group *g)
{
	struct emu_ids *ids = &e->ids;
	struct emu_limbo *l = &ids->limbo[g->rmid_idx];
	uint64_t now = emu_clock_now(&e->clock);

	for (unsigned d = 0; d < e->prof.domains; d++) {
		bool idle = ids->limbo_next_ns[d] == UINT64_MAX;
		if (idle)
			ids->limbo_next_ns[d] = now + EMU_LIMBO_CHECK_MS * NS_PER_MS;
		l->occupancy[d] = emu_rmid_occupancy(e, g, d);
	}
	l->busy = all_domains(e);
	l->freed_ns = now;
	ids->limbo_count++;
	ids->dirty[closid_of(e, g->rmid_idx)]++;
}

/* Whether an index is free or in limbo already: only a MON group moved on MPAM can free such an
 * index (the kernel then adds an entry to its free list twice); the emulator leaves it as it is. */
static bool rmid_idx_unused(const struct emu_ids *ids, unsigned idx)
{
	for (unsigned i = 0; i < ids->rmid_free_count; i++)
		if (ids->rmid_free[i] == idx)
			return true;
	return ids->limbo[idx].busy != 0;
}

void emu_rmid_free(struct emu *e, struct emu_group *g)
{
	if (g->rmid_idx == RESERVED_RMID_IDX || rmid_idx_unused(&e->ids, g->rmid_idx))
		return;
	if (limbo_used(e))
		limbo_add(e, g);
	else
		e->ids.rmid_free[e->ids.rmid_free_count++] = g->rmid_idx;
}

void emu_rmid_reparented(struct emu *e, struct emu_group *g)
{
	if (e->prof.rmid_depends_on_closid)
		g->rmid_idx = g->closid * pmgs(e) + g->rmid; /* resctrl_arch_rmid_idx_encode() */
}

/* What the RMID still holds in domain d at time t: its lines fade as other traffic evicts them. */
static double occupancy_at(const struct emu *e, const struct emu_limbo *l, unsigned d, uint64_t t)
{
	if (!e->opt.llc_half_life_ms)
		return 0;
	double half_lives = (double)(t - l->freed_ns) / ((double)e->opt.llc_half_life_ms * NS_PER_MS);
	return floor(l->occupancy[d] * exp2(-half_lives) / 64) * 64;
}

/* limbo_release_entry(): back to the free list, at its tail. */
static void limbo_release(struct emu *e, unsigned idx)
{
	struct emu_ids *ids = &e->ids;

	ids->limbo_count--;
	ids->dirty[closid_of(e, idx)]--;
	ids->rmid_free[ids->rmid_free_count++] = idx;
}

/* __check_limbo(d) at time t: each RMID dirty there whose occupancy is below the threshold is clean
 * there; one clean everywhere is free. Then cqm_handle_limbo() runs again in 1000 ms if any is left. */
static void check_domain(struct emu *e, unsigned d, uint64_t t)
{
	struct emu_ids *ids = &e->ids;
	bool left = false;

	for (unsigned idx = 1; idx < e->prof.num_rmids && idx < EMU_MAX_RMIDS; idx++) {
		struct emu_limbo *l = &ids->limbo[idx];
		if (!((l->busy >> d) & 1))
			continue;
		if (occupancy_at(e, l, d, t) >= e->max_threshold) {
			left = true;
			continue;
		}
		l->busy &= ~(UINT64_C(1) << d);
		if (!l->busy)
			limbo_release(e, idx);
	}
	ids->limbo_next_ns[d] = left ? t + EMU_LIMBO_CHECK_MS * NS_PER_MS : UINT64_MAX;
}

/* The domains' workers, in the order their checks fall due, up to now. */
void emu_limbo_run(struct emu *e)
{
	uint64_t now = emu_clock_now(&e->clock);

	for (;;) {
		unsigned due = EMU_MAX_DOMAINS;
		for (unsigned d = 0; d < e->prof.domains; d++)
			if (e->ids.limbo_next_ns[d] <= now &&
			    (due == EMU_MAX_DOMAINS || e->ids.limbo_next_ns[d] < e->ids.limbo_next_ns[due]))
				due = d;
		if (due == EMU_MAX_DOMAINS)
			return;
		check_domain(e, due, e->ids.limbo_next_ns[due]);
	}
}

unsigned emu_limbo_count(const struct emu *e)
{
	return e->ids.limbo_count;
}
