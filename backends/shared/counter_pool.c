#include "backends/shared/counter_pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/counter.h"
#include "core/base/grow.h"

/* A counter held this many ticks without producing a measurement is handed on (a counter that
 * never settles, or keeps failing to read). */
#define MAX_DWELL_TICKS 16

enum slot_result {
	SLOT_IDLE,
	SLOT_NOT_READY,
	SLOT_BASELINE,
	SLOT_MEASURED,
	SLOT_FAILED,
};

struct slot {
	long owner; /* partition index, -1 when free */
	bool has_baseline;
	uint64_t baseline; /* counter units */
	uint64_t baseline_ns;
	unsigned ticks_held;
	unsigned measurements;
	/* this tick */
	enum slot_result result;
	uint64_t bytes, elapsed_ns;
	const char *reason;
};

struct member {
	bool active;
	long slot; /* -1 when it holds no counter */
	bool has_rate;
	double bytes_per_ns;
	uint64_t last_ns; /* end of the last sample produced */
};

struct counter_pool {
	struct counter_pool_params p; /* p.counters: in use (at most the hardware's, at most partitions) */
	unsigned hw_counters;	      /* what the hardware has */
	const struct counter_pool_ops *ops;
	void *ctx;
	struct slot *slots;
	size_t slot_cap;
	struct member *members;
	size_t member_cap;
	size_t active;
	size_t cursor; /* next partition to consider for a free counter */
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
	if (array_grow((void **)&pool->slots, &pool->slot_cap, counters ? counters : 1, sizeof(*pool->slots), &first) <
	    0)
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

int counter_pool_add(struct counter_pool *pool, size_t index)
{
	if (index == SIZE_MAX || (index >= pool->p.partitions && grow(pool, index + 1) < 0))
		return -ENOMEM;
	if (!pool->members[index].active)
		pool->active++;
	pool->members[index] = (struct member){ .active = true, .slot = -1 };
	return 0;
}

static inline void slot_release(struct counter_pool *pool, unsigned index);

void counter_pool_remove(struct counter_pool *pool, size_t index)
{
	struct member *m = index < pool->p.partitions ? &pool->members[index] : NULL;

	if (!m || !m->active)
		return;
	if (m->slot >= 0)
		slot_release(pool, (unsigned)m->slot);
	*m = (struct member){ .slot = -1 };
	pool->active--;
}

static void slot_fail(struct slot *s, const char *reason)
{
	s->result = SLOT_FAILED;
	s->reason = reason;
	s->has_baseline = false;
}

static void slot_read(struct counter_pool *pool, unsigned index, uint64_t now_ns)
{
	struct slot *s = &pool->slots[index];
	struct counter_reading rd = { 0 };
	const char *reason = NULL;

	s->ticks_held++;
	if (pool->ops->read(pool->ctx, index, &rd, &reason) < 0)
		return slot_fail(s, reason ? reason : "counter could not be read");
	if (rd.restarted) {
		slot_fail(s, reason ? reason : "counter was reset; restarted");
		/* What the counter reads now is where it starts again: the next tick is measured. */
		if (!rd.not_ready) {
			s->has_baseline = true;
			s->baseline = rd.value;
			s->baseline_ns = now_ns;
		}
		return;
	}
	if (rd.not_ready) {
		s->result = SLOT_NOT_READY;
		s->reason = "counter not ready (NRDY)";
		s->has_baseline = false; /* the count around a not-ready period cannot be trusted */
		return;
	}
	if (!s->has_baseline) {
		s->result = SLOT_BASELINE;
		s->reason = "first reading of a newly assigned counter";
	} else {
		uint64_t units = counter_delta(s->baseline, rd.value, pool->p.bits, rd.overflowed);
		s->result = SLOT_MEASURED;
		s->bytes = units << pool->p.unit_shift;
		s->elapsed_ns = now_ns - s->baseline_ns;
		s->measurements++;
	}
	s->has_baseline = true;
	s->baseline = rd.value;
	s->baseline_ns = now_ns;
}

static void slot_assign(struct counter_pool *pool, unsigned index, size_t partition, uint64_t now_ns)
{
	struct slot *s = &pool->slots[index];

	memset(s, 0, sizeof(*s));
	s->owner = (long)partition;
	pool->members[partition].slot = index;
	if (pool->ops->program(pool->ctx, index, partition) < 0) {
		slot_fail(s, "counter could not be assigned");
		return;
	}
	/* Hardware without a settling time is ready at once: take the baseline now. */
	slot_read(pool, index, now_ns);
	s->ticks_held = 0;
	if (s->result == SLOT_BASELINE)
		s->result = SLOT_IDLE;
}

/* inline: rotation releases every counter every tick, and a call here (it has two callers) costs 21
 * instructions per monitor read in bench/run-driver-bench. */
static inline void slot_release(struct counter_pool *pool, unsigned index)
{
	struct slot *s = &pool->slots[index];

	if (s->owner < 0)
		return;
	if (pool->ops->release)
		pool->ops->release(pool->ctx, index, (size_t)s->owner);
	pool->members[s->owner].slot = -1;
	s->owner = -1;
}

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

/* Hands free counters to partitions that wait. While rotating, a counter whose partition has been
 * measured (or that has been held too long) is freed first. */
static void rotate(struct counter_pool *pool, uint64_t now_ns)
{
	bool rotating = counter_pool_rotating(pool);

	for (unsigned i = 0; i < pool->p.counters; i++) {
		struct slot *s = &pool->slots[i];
		if (s->owner >= 0 && rotating && (s->measurements > 0 || s->ticks_held >= MAX_DWELL_TICKS))
			slot_release(pool, i);
		if (s->owner < 0) {
			long next = next_waiting(pool);
			if (next < 0)
				break;
			slot_assign(pool, i, (size_t)next, now_ns);
		}
	}
}

static void fill_sample(struct counter_pool *pool, size_t index, uint64_t now_ns, struct sample *out)
{
	struct member *m = &pool->members[index];
	const struct slot *s = m->slot >= 0 ? &pool->slots[m->slot] : NULL;

	if (!m->active) {
		*out = (struct sample){ .state = SAMPLE_INVALID, .reason = "not measured here" };
		return;
	}
	if (s && s->result == SLOT_MEASURED && s->elapsed_ns > 0) {
		*out = (struct sample){ .state = SAMPLE_MEASURED, .bytes = s->bytes, .elapsed_ns = s->elapsed_ns };
		m->has_rate = true;
		m->bytes_per_ns = (double)s->bytes / (double)s->elapsed_ns;
	} else if (counter_pool_rotating(pool) && m->has_rate && now_ns > m->last_ns) {
		uint64_t elapsed = now_ns - m->last_ns;
		*out = (struct sample){ .state = SAMPLE_ESTIMATED,
					.bytes = (uint64_t)(m->bytes_per_ns * (double)elapsed + 0.5),
					.elapsed_ns = elapsed };
	} else {
		const char *why = s ? s->reason : "waiting for a free counter";
		*out = (struct sample){ .state = SAMPLE_INVALID, .reason = why ? why : "no reading yet" };
	}
	m->last_ns = now_ns;
}

void counter_pool_read(struct counter_pool *pool, uint64_t now_ns, struct sample *out, size_t stride)
{
	for (unsigned i = 0; i < pool->p.counters; i++) {
		pool->slots[i].result = SLOT_IDLE;
		pool->slots[i].reason = NULL;
		if (pool->slots[i].owner >= 0)
			slot_read(pool, i, now_ns);
	}
	for (size_t i = 0; i < pool->p.partitions; i++)
		fill_sample(pool, i, now_ns, &out[i * stride]);
	rotate(pool, now_ns);
}
