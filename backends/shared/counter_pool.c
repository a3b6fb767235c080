#include "backends/shared/counter_pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/counter.h"
#include "core/base/grow.h"

/* A counter held this many ticks without producing a measurement is handed on (a counter that
 * never settles, or keeps failing to read). */
#define MAX_DWELL_TICKS 16

struct slot {
	long owner; /* partition index, -1 when free */
	bool has_baseline;
	uint64_t baseline; /* counter units */
	uint64_t baseline_ns;
	unsigned ticks_held; /* since it was assigned, or since its last measurement */
	unsigned measurements;
	const char *reason; /* why its holder has no measurement this tick */
};

struct member {
	bool active;
	long slot; /* -1 when it holds no counter */
	/* Its last measurement, from which it is extrapolated while it waits for a counter (rate_ns 0:
	 * none yet). The rate is worked out when an estimate first needs it (rate_stale), not on every
	 * measurement: with a counter each, no partition is ever estimated. */
	uint64_t rate_bytes, rate_ns;
	bool rate_stale;
	double bytes_per_ns;
	uint64_t last_ns; /* end of the last sample produced */
	uint64_t sampled; /* the pass that wrote its sample last */
	bool keep;	  /* counter_pool_keep: it holds on to a counter once it has one */
};

struct counter_pool {
	struct counter_pool_params p; /* p.counters: in use (at most the hardware's, at most partitions) */
	uint64_t mask;		      /* counter_mask(p.bits) */
	unsigned hw_counters;	      /* what the hardware has */
	const struct counter_pool_ops *ops;
	void *ctx;
	struct slot *slots;
	struct counter_reading *readings; /* per slot, what the backend read this tick */
	size_t slot_cap, readings_cap;
	struct member *members;
	size_t member_cap;
	size_t active;
	size_t held;   /* slots with an owner: active - held partitions wait for one */
	size_t cursor; /* next partition to consider for a free counter */
	unsigned kept; /* active members with keep set */
	uint64_t pass; /* counter_pool_read calls */
};

/* Room for partition indices 0..partitions-1, and for as many counters as they can use: more
 * counters than partitions would only be scanned for nothing each tick. */
static int grow(struct counter_pool *pool, size_t partitions)
{
	size_t first;

	if (array_grow((void **)&pool->members, &pool->member_cap, partitions ? partitions : 1, sizeof(*pool->members),
		       &first) < 0)
		return -ENOMEM;
	for (size_t i = first; i < pool->member_cap; i++)
		pool->members[i].slot = -1;
	unsigned counters = pool->hw_counters < partitions ? pool->hw_counters : (unsigned)partitions;
	size_t want = counters ? counters : 1;
	if (array_grow((void **)&pool->slots, &pool->slot_cap, want, sizeof(*pool->slots), &first) < 0 ||
	    array_grow((void **)&pool->readings, &pool->readings_cap, want, sizeof(*pool->readings), NULL) < 0)
		return -ENOMEM;
	for (size_t i = first; i < pool->slot_cap; i++)
		pool->slots[i].owner = -1;
	if (partitions > pool->p.partitions)
		pool->p.partitions = partitions;
	if (counters > pool->p.counters)
		pool->p.counters = counters;
	return 0;
}

int counter_pool_new(const struct counter_pool_params *params, const struct counter_pool_ops *ops, void *ctx,
		     struct counter_pool **ret)
{
	struct counter_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return -ENOMEM;
	pool->hw_counters = params->counters;
	pool->p = *params;
	pool->p.counters = 0;
	pool->p.partitions = 0;
	pool->mask = counter_mask(params->bits);
	pool->ops = ops;
	pool->ctx = ctx;
	if (grow(pool, params->partitions) < 0) {
		counter_pool_free(pool);
		return -ENOMEM;
	}
	*ret = pool;
	return 0;
}

void counter_pool_free(struct counter_pool *pool)
{
	if (!pool)
		return;
	free(pool->slots);
	free(pool->readings);
	free(pool->members);
	free(pool);
}

bool counter_pool_rotating(const struct counter_pool *pool)
{
	return pool->active > pool->p.counters;
}

long counter_pool_owner(const struct counter_pool *pool, unsigned slot)
{
	return slot < pool->p.counters ? pool->slots[slot].owner : -1;
}

/* inline: rotation releases every counter every tick. */
static inline void slot_release(struct counter_pool *pool, unsigned index)
{
	struct slot *s = &pool->slots[index];

	if (s->owner < 0)
		return;
	if (pool->ops->release)
		pool->ops->release(pool->ctx, index, (size_t)s->owner);
	pool->members[s->owner].slot = -1;
	s->owner = -1;
	pool->readings[index].held = false;
	pool->held--;
}

int counter_pool_add(struct counter_pool *pool, size_t index)
{
	if (index == SIZE_MAX || (index >= pool->p.partitions && grow(pool, index + 1) < 0))
		return -ENOMEM;
	struct member *m = &pool->members[index];
	if (!m->active)
		pool->active++;
	else if (m->slot >= 0)
		slot_release(pool, (unsigned)m->slot); /* added again: it starts from no baseline */
	pool->kept -= m->active && m->keep;
	*m = (struct member){ .active = true, .slot = -1 };
	return 0;
}

int counter_pool_keep(struct counter_pool *pool, size_t index, bool keep)
{
	struct member *m = index < pool->p.partitions ? &pool->members[index] : NULL;

	if (!m || !m->active)
		return -ENOENT;
	if (m->keep == keep)
		return 0;
	if (keep && pool->kept + 1 >= pool->hw_counters)
		return -ENOSPC; /* one counter at least goes round the others */
	m->keep = keep;
	pool->kept += keep ? 1 : -1u;
	return 0;
}

void counter_pool_remove(struct counter_pool *pool, size_t index)
{
	struct member *m = index < pool->p.partitions ? &pool->members[index] : NULL;

	if (!m || !m->active)
		return;
	if (m->slot >= 0)
		slot_release(pool, (unsigned)m->slot);
	pool->kept -= m->keep;
	*m = (struct member){ .slot = -1 };
	pool->active--;
}

static void slot_fail(struct slot *s, const char *reason)
{
	s->reason = reason;
	s->has_baseline = false;
}

/* What counter `s` read this tick makes of it when it did not measure: a failure, a restart, not
 * ready, or the first reading (the baseline). */
static void slot_account_other(struct slot *s, const struct counter_reading *rd, uint64_t now_ns)
{
	if (rd->error < 0)
		return slot_fail(s, rd->reason ? rd->reason : "counter could not be read");
	if (rd->restarted) {
		slot_fail(s, rd->reason ? rd->reason : "counter was reset; restarted");
		/* What the counter reads now is where it starts again: the next tick is measured. */
		if (!rd->not_ready) {
			s->has_baseline = true;
			s->baseline = rd->value;
			s->baseline_ns = now_ns;
		}
		return;
	}
	if (rd->not_ready) {
		s->reason = "counter not ready (NRDY)";
		s->has_baseline = false; /* the count around a not-ready period cannot be trusted */
		return;
	}
	s->reason = "first reading of a newly assigned counter";
	s->has_baseline = true;
	s->baseline = rd->value;
	s->baseline_ns = now_ns;
}

/* The sample of active partition `m` without a measurement this tick, while counters rotate: its
 * last measured rate over the time since its last sample. False when there is nothing to go by. */
static inline bool estimate(struct member *m, bool rotating, uint64_t now_ns, struct sample *out)
{
	if (!rotating || !m->rate_ns || now_ns <= m->last_ns)
		return false;
	if (m->rate_stale) {
		m->bytes_per_ns = (double)m->rate_bytes / (double)m->rate_ns;
		m->rate_stale = false;
	}
	uint64_t elapsed = now_ns - m->last_ns;
	/* A span of nanoseconds fits in int64_t, whose conversion is one instruction where the unsigned
	 * one takes a dozen; the value is the same. */
	double span = (double)(int64_t)elapsed;
	*out = (struct sample){ .state = SAMPLE_ESTIMATED,
				.bytes = (uint64_t)(m->bytes_per_ns * span + 0.5),
				.elapsed_ns = elapsed };
	return true;
}

/* No sample, and why (NULL: no reading yet). */
static void invalid_sample(const char *why, struct sample *out)
{
	*out = (struct sample){ .state = SAMPLE_INVALID, .reason = why ? why : "no reading yet" };
}

/* What one pass needs of the pool, in locals: stores to samples and slots could otherwise be taken
 * to change the pool's fields, which would then be loaded again for every counter. */
struct pass {
	uint64_t now_ns, number, mask;
	unsigned unit_shift;
	bool rotating;
};

/* What counter `s` read this tick makes of it, and the sample of its holder `m`: the bytes since its
 * baseline when it measured, otherwise an estimate or the reason it has none. */
static inline void slot_take(const struct pass *pass, struct slot *s, const struct counter_reading *rd,
			     struct member *m, struct sample *out)
{
	uint64_t now_ns = rd->at_ns ? rd->at_ns : pass->now_ns;

	m->sampled = pass->number;
	if (__builtin_expect(rd->error == 0 && !rd->restarted && !rd->not_ready && s->has_baseline, 1)) {
		uint64_t bytes = counter_delta_masked(s->baseline, rd->value, pass->mask, rd->overflowed)
				 << pass->unit_shift;
		uint64_t elapsed = now_ns - s->baseline_ns;
		s->measurements++;
		s->ticks_held = 0; /* ticks since its last measurement (a kept counter measures on) */
		s->baseline = rd->value;
		s->baseline_ns = now_ns;
		m->last_ns = now_ns;
		if (__builtin_expect(elapsed > 0, 1)) {
			*out = (struct sample){ .state = SAMPLE_MEASURED, .bytes = bytes, .elapsed_ns = elapsed };
			m->rate_bytes = bytes;
			m->rate_ns = elapsed;
			m->rate_stale = true;
			return;
		}
		s->reason = "no time passed since the last reading";
	} else {
		s->ticks_held++;
		slot_account_other(s, rd, now_ns);
	}
	if (!estimate(m, pass->rotating, now_ns, out))
		invalid_sample(s->reason, out);
	m->last_ns = now_ns;
}

static void slot_assign(struct counter_pool *pool, unsigned index, size_t partition, uint64_t now_ns)
{
	struct slot *s = &pool->slots[index];

	memset(s, 0, sizeof(*s));
	s->owner = (long)partition;
	pool->members[partition].slot = index;
	pool->readings[index].held = true;
	pool->held++;
	if (pool->ops->program(pool->ctx, index, partition) < 0) {
		slot_fail(s, "counter could not be assigned");
		return;
	}
	/* Hardware without a settling time is ready at once: take the baseline now. */
	const struct counter_reading *rd = &pool->readings[index];
	pool->ops->read(pool->ctx, index, 1, &pool->readings[index]);
	slot_account_other(s, rd, rd->at_ns ? rd->at_ns : now_ns);
	s->ticks_held = 0;
}

/* The next active partition without a counter, round robin from the cursor; called only when one
 * waits, so the scan ends at the first partition that does. */
static long next_waiting(struct counter_pool *pool)
{
	for (size_t n = 0; n < pool->p.partitions; n++) {
		size_t i = (pool->cursor + n) % pool->p.partitions;
		if (pool->members[i].active && pool->members[i].slot < 0) {
			pool->cursor = (i + 1) % pool->p.partitions;
			return (long)i;
		}
	}
	return -1;
}

/* Every held counter is read (one call), then each one's partition gets its sample; while rotating,
 * a counter whose partition has been measured (or held it too long) passes on right away, and is
 * programmed and read for its new baseline in a row (the MMIO driver selects it once for both). */
static void read_held(struct counter_pool *pool, const struct pass *pass, struct sample *out, size_t stride)
{
	struct slot *slots = pool->slots;
	struct counter_reading *readings = pool->readings;
	struct member *members = pool->members;
	unsigned counters = pool->p.counters;

	if (pool->held)
		pool->ops->read(pool->ctx, 0, counters, readings);
	for (unsigned i = 0; i < counters; i++) {
		struct slot *s = &slots[i];
		if (s->owner >= 0) {
			size_t owner = (size_t)s->owner;
			slot_take(pass, s, &readings[i], &members[owner], &out[owner * stride]);
			/* A kept counter too goes on after MAX_DWELL_TICKS without a measurement: one that broke
			 * is not held for ever (its partition keeps the next it gets). */
			if (pass->rotating &&
			    (s->ticks_held >= MAX_DWELL_TICKS || (!members[owner].keep && s->measurements > 0)))
				slot_release(pool, i);
		}
		long next = s->owner < 0 && pool->held < pool->active ? next_waiting(pool) : -1;
		if (next >= 0)
			slot_assign(pool, i, (size_t)next, pass->now_ns);
	}
}

/* Every partition without a sample yet gets one: the estimate while it waits, or the reason it has
 * none. A partition is visited here, but never scanned for: a free counter goes to the next partition
 * that waits, from a cursor, and only while one does. */
static void sample_the_rest(struct counter_pool *pool, const struct pass *pass, struct sample *out, size_t stride)
{
	struct member *members = pool->members;
	const struct slot *slots = pool->slots;
	size_t partitions = pool->p.partitions;

	for (size_t i = 0; i < partitions; i++) {
		struct member *m = &members[i];
		if (m->sampled == pass->number)
			continue;
		if (!m->active)
			invalid_sample("not measured here", &out[i * stride]);
		else if (!estimate(m, pass->rotating, pass->now_ns, &out[i * stride]))
			invalid_sample(m->slot >= 0 ? slots[m->slot].reason : "waiting for a free counter",
				       &out[i * stride]);
		m->last_ns = pass->now_ns;
	}
}

void counter_pool_read(struct counter_pool *pool, uint64_t now_ns, struct sample *out, size_t stride)
{
	struct pass pass = { .now_ns = now_ns,
			     .number = ++pool->pass,
			     .mask = pool->mask,
			     .unit_shift = pool->p.unit_shift,
			     .rotating = counter_pool_rotating(pool) };

	/* Every partition holding a counter (the usual case, a counter each) gets its sample from it:
	 * nobody is left to visit. */
	bool all_held = pool->held == pool->p.partitions;

	read_held(pool, &pass, out, stride);
	if (!all_held)
		sample_the_rest(pool, &pass, out, stride);
}
