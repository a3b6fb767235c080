/* A pool of hardware counters shared by partitions: MPAM MBWU monitors, or resctrl's assignable
 * MBM counters (mbm_event mode). Hardware specifics come through ops; the pool decides who holds
 * which counter, keeps each counter's baseline, and turns readings into samples.
 *
 * With at least as many counters as partitions every partition keeps one. With fewer, counters
 * rotate: a partition holds one until it has produced a measurement (after the counter settles and
 * a baseline is read) and then passes it on; between its turns its bandwidth is extrapolated from its
 * last measured rate, like perf multiplexing, and those samples are SAMPLE_ESTIMATED. A partition the
 * caller marks (counter_pool_keep) keeps its counter once it has one. */
#ifndef MPAMD_BACKENDS_SHARED_COUNTER_POOL_H
#define MPAMD_BACKENDS_SHARED_COUNTER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/monitor.h"

/* What reading a counter gave. The pool sets `held`; the backend fills in the rest for every counter
 * held. */
struct counter_reading {
	uint64_t value;	 /* in counter units */
	bool held;	 /* a partition holds the counter: only those are read */
	bool not_ready;	 /* the value means nothing yet (MPAM NRDY) */
	bool overflowed; /* the hardware saw a wrap since the last reading */
	/* The counter was reset or reprogrammed behind our back: this interval is lost, and `value`
	 * (unless not_ready) is where it counts from again. */
	bool restarted;
	int error;	    /* negative errno: nothing could be read, the sample is invalid */
	const char *reason; /* static text, with error or restarted */
	/* When the value was read, on the engine's clock; 0: at the tick's time. A backend whose reads
	 * can wait (a resctrl file: the kernel reads the counter on a CPU of its domain; a busy host
	 * preempts the daemon between two reads) says when each was taken, so that a read late by a
	 * few milliseconds is not taken for a burst of bandwidth. */
	uint64_t at_ns;
};

struct counter_pool_ops {
	/* Points counter `slot` at `partition` and resets it. */
	int (*program)(void *ctx, unsigned slot, size_t partition);
	/* Reads the counters held among slots first..first+count-1 into ret[0..count-1] (ret[k] is slot
	 * first + k). A tick reads every slot in one call, so the backend's loop over its counters has no
	 * call through a pointer per counter; a counter just programmed is read alone. */
	void (*read)(void *ctx, unsigned first, unsigned count, struct counter_reading *ret);
	/* Takes counter `slot` away from `partition` (optional): it is about to be given to another. */
	void (*release)(void *ctx, unsigned slot, size_t partition);
};

struct counter_pool_params {
	unsigned counters;   /* hardware counters available (COUNTER_POOL_ONE_EACH: one per partition) */
	size_t partitions;   /* partition indices 0..partitions-1 to begin with; add grows it */
	unsigned bits;	     /* counter width, 1..64 */
	unsigned unit_shift; /* a counter unit is 2^unit_shift bytes */
};

struct counter_pool;

int counter_pool_new(const struct counter_pool_params *params, const struct counter_pool_ops *ops, void *ctx,
		     struct counter_pool **ret);
void counter_pool_free(struct counter_pool *pool);

/* counters of a pool in which every partition has a counter of its own (resctrl groups outside
 * counter-assignment mode). */
#define COUNTER_POOL_ONE_EACH UINT32_MAX

/* Starts measuring partition `index` (beyond the partitions given at the start: the pool grows, and
 * so do the counters it may use, up to the hardware's). -ENOMEM. A slot removed and added again
 * starts from no baseline. */
int counter_pool_add(struct counter_pool *pool, size_t index);

/* While counters rotate, partition `index` keeps the counter it gets at its next turn, and is measured
 * every tick from then on (keep), or goes round with the others again (!keep). A kept counter that
 * gives no measurement for 16 ticks (broken, never ready) goes on all the same, and the partition keeps
 * the next it gets. At most one counter fewer than the hardware has can be kept, so that the rest are
 * still measured in turn: -ENOSPC past that. -ENOENT: it was not added. Adding it again forgets it. */
int counter_pool_keep(struct counter_pool *pool, size_t index, bool keep);

/* Stops measuring partition `index`: its counter (if it holds one) goes back to the pool. */
void counter_pool_remove(struct counter_pool *pool, size_t index);

/* Reads every held counter at `now_ns`, writes one sample per partition to out[index * stride]
 * (indices never added get SAMPLE_INVALID), then rotates counters if needed. */
void counter_pool_read(struct counter_pool *pool, uint64_t now_ns, struct sample *out, size_t stride);

bool counter_pool_rotating(const struct counter_pool *pool);
/* The partition holding `slot`, or -1. */
long counter_pool_owner(const struct counter_pool *pool, unsigned slot);

#endif
