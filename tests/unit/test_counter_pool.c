/* The counter pool with fake counters: assignment, rotation, estimates, failures. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/shared/counter_pool.h"
#include "tests/util/test_main.h"

#define TICK_NS 100000000ull

/* Fake hardware: each counter counts bytes for whichever partition it is programmed to. */
struct fake {
	long target[8];	   /* partition per counter */
	uint64_t value[8]; /* counter units */
	bool not_ready[8];
	bool broken[8];
	bool restarted[8]; /* the next read reports a restart (and clears this) */
	unsigned programs, releases;
	uint64_t rate[32]; /* bytes per tick per partition */
};

static int fake_program(void *ctx, unsigned slot, size_t partition)
{
	struct fake *f = ctx;

	f->target[slot] = (long)partition;
	f->value[slot] = 0;
	f->programs++;
	return 0;
}

/* What counter `slot` reads now: broken, not ready or restarted as the test set it. */
static struct counter_reading fake_reading(struct fake *f, unsigned slot)
{
	struct counter_reading rd = { .held = true, .value = f->value[slot], .not_ready = f->not_ready[slot] };

	if (f->broken[slot])
		return (struct counter_reading){ .held = true, .error = -EIO, .reason = "fake counter broken" };
	if (f->restarted[slot]) {
		rd.restarted = true;
		rd.reason = "fake counter restarted";
		f->restarted[slot] = false;
	}
	return rd;
}

static void fake_read(void *ctx, unsigned first, unsigned count, struct counter_reading *ret)
{
	for (unsigned k = 0; k < count; k++)
		if (ret[k].held)
			ret[k] = fake_reading(ctx, first + k);
}

static void fake_release(void *ctx, unsigned slot, size_t partition)
{
	struct fake *f = ctx;

	/* The counter is taken from the partition that holds it. */
	assert_int_equal(f->target[slot], (long)partition);
	f->target[slot] = -1;
	f->releases++;
}

static const struct counter_pool_ops fake_ops = { fake_program, fake_read, fake_release };

static void advance(struct fake *f, unsigned counters)
{
	for (unsigned i = 0; i < counters; i++)
		if (f->target[i] >= 0)
			f->value[i] += f->rate[f->target[i]];
}

static struct counter_pool *make_pool(struct fake *f, unsigned counters, size_t partitions)
{
	struct counter_pool_params p = { .counters = counters, .partitions = partitions, .bits = 64 };
	struct counter_pool *pool = NULL;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 8; i++)
		f->target[i] = -1;
	assert_int_equal(counter_pool_new(&p, &fake_ops, f, &pool), 0);
	return pool;
}

/* Partitions 0..n-1 added, partition i moving 1000 * (i + 1) bytes a tick. */
static void add_partitions(struct fake *f, struct counter_pool *pool, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		f->rate[i] = 1000 * (i + 1);
		assert_int_equal(counter_pool_add(pool, i), 0);
	}
}

static void test_enough_counters_never_rotate(void **state)
{
	struct fake f;
	struct counter_pool *pool = make_pool(&f, 8, 3);
	struct sample s[3];
	uint64_t now = TICK_NS;

	(void)state;
	add_partitions(&f, pool, 3);
	assert_false(counter_pool_rotating(pool));
	counter_pool_read(pool, now, s, 1); /* assigns; baseline at once (no settling) */
	for (int t = 0; t < 10; t++) {
		advance(&f, 8);
		now += TICK_NS;
		counter_pool_read(pool, now, s, 1);
		for (size_t i = 0; i < 3; i++) {
			assert_int_equal(s[i].state, SAMPLE_MEASURED);
			assert_int_equal(s[i].bytes, 1000 * (i + 1));
			assert_int_equal(s[i].elapsed_ns, TICK_NS);
		}
	}
	assert_int_equal(f.programs, 3);
	assert_int_equal(f.releases, 0);
	counter_pool_free(pool);
}

/* With a counter each, every partition's sample comes from its counter; one removed then (it holds
 * none, the others still do) is said not to be measured on every read after, never left with its
 * last sample, and the others are measured on. */
static void test_removed_while_every_other_holds_is_not_measured(void **state)
{
	struct fake f;
	struct counter_pool *pool = make_pool(&f, 3, 3);
	struct sample s[3];
	uint64_t now = TICK_NS;

	(void)state;
	add_partitions(&f, pool, 3);
	counter_pool_read(pool, now, s, 1);
	advance(&f, 3);
	now += TICK_NS;
	counter_pool_read(pool, now, s, 1);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(s[i].state, SAMPLE_MEASURED);
	counter_pool_remove(pool, 1);
	for (int t = 0; t < 3; t++) {
		s[1] = (struct sample){ .state = SAMPLE_MEASURED, .bytes = 1 };
		advance(&f, 3);
		now += TICK_NS;
		counter_pool_read(pool, now, s, 1);
		assert_int_equal(s[1].state, SAMPLE_INVALID);
		assert_string_equal(s[1].reason, "not measured here");
		assert_int_equal(s[0].state, SAMPLE_MEASURED);
		assert_int_equal(s[0].bytes, 1000);
		assert_int_equal(s[2].state, SAMPLE_MEASURED);
		assert_int_equal(s[2].bytes, 3000);
	}
	counter_pool_free(pool);
}

/* A slot added after the start (a reload) grows the pool and gets a counter of its own while the
 * hardware has one; the partitions already measured keep their baselines (never an invalid sample),
 * and a slot removed and added again starts from no baseline. */
static void test_pool_grows_with_slots(void **state)
{
	struct fake f;
	struct counter_pool *pool = make_pool(&f, 4, 1);
	struct sample s[3];
	uint64_t now = TICK_NS;

	(void)state;
	f.rate[0] = 1000;
	f.rate[2] = 3000;
	assert_int_equal(counter_pool_add(pool, 0), 0);
	counter_pool_read(pool, now, s, 1); /* 0: assigned, baseline */
	advance(&f, 4);
	now += TICK_NS;
	counter_pool_read(pool, now, s, 1);
	assert_int_equal(s[0].state, SAMPLE_MEASURED);
	assert_int_equal(counter_pool_add(pool, 2), 0); /* beyond the one partition it was made for */
	for (int t = 0; t < 3; t++) {
		advance(&f, 4);
		now += TICK_NS;
		counter_pool_read(pool, now, s, 1);
		assert_int_equal(s[0].state, SAMPLE_MEASURED);
		assert_int_equal(s[0].bytes, 1000);
		assert_int_equal(s[1].state, SAMPLE_INVALID); /* slot 1 was never added */
		if (t > 0) {
			assert_int_equal(s[2].state, SAMPLE_MEASURED);
			assert_int_equal(s[2].bytes, 3000);
		}
	}
	assert_false(counter_pool_rotating(pool));
	counter_pool_remove(pool, 2);
	assert_int_equal(counter_pool_add(pool, 2), 0); /* the slot given again: no old baseline */
	advance(&f, 4);
	now += TICK_NS;
	counter_pool_read(pool, now, s, 1);
	assert_int_equal(s[0].state, SAMPLE_MEASURED);
	assert_int_equal(s[2].state, SAMPLE_INVALID);
	counter_pool_free(pool);
}

/* Partitions 0..6 on `counters` fake counters, partition i moving 500 x (i + 1) bytes a tick. */
static struct counter_pool *seven_partitions(struct fake *f, unsigned counters)
{
	struct counter_pool *pool = make_pool(f, counters, 7);

	for (size_t i = 0; i < 7; i++) {
		f->rate[i] = 500 * (i + 1);
		assert_int_equal(counter_pool_add(pool, i), 0);
	}
	return pool;
}

static void test_rotation_is_fair_and_estimates(void **state)
{
	struct fake f;
	struct counter_pool *pool = seven_partitions(&f, 2);
	struct sample s[7];
	unsigned measured[7] = { 0 };
	uint64_t now = TICK_NS;

	(void)state;
	assert_true(counter_pool_rotating(pool));
	counter_pool_read(pool, now, s, 1);
	for (int t = 0; t < 70; t++) {
		advance(&f, 2);
		now += TICK_NS;
		counter_pool_read(pool, now, s, 1);
		for (size_t i = 0; i < 7; i++) {
			if (s[i].state == SAMPLE_INVALID)
				continue;
			/* Measured or extrapolated, the rate is the partition's own. */
			assert_int_equal(s[i].bytes * TICK_NS / s[i].elapsed_ns, 500 * (i + 1));
			measured[i] += s[i].state == SAMPLE_MEASURED;
		}
	}
	for (size_t i = 0; i < 7; i++)
		assert_in_range(measured[i], 18, 22); /* 2 measurements per 7 ticks, shared evenly */
	assert_true(f.releases > 0);
	counter_pool_free(pool);
}

static void test_not_ready_then_baseline(void **state)
{
	struct fake f;
	struct counter_pool *pool = make_pool(&f, 1, 1);
	struct sample s[1];

	(void)state;
	f.rate[0] = 77;
	counter_pool_add(pool, 0);
	f.not_ready[0] = true;
	counter_pool_read(pool, TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_INVALID);
	advance(&f, 1);
	counter_pool_read(pool, 2 * TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_INVALID);
	assert_string_equal(s[0].reason, "counter not ready (NRDY)");
	f.not_ready[0] = false;
	advance(&f, 1);
	counter_pool_read(pool, 3 * TICK_NS, s, 1); /* baseline only */
	assert_int_equal(s[0].state, SAMPLE_INVALID);
	advance(&f, 1);
	counter_pool_read(pool, 4 * TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_MEASURED);
	assert_int_equal(s[0].bytes, 77);
	counter_pool_free(pool);
}

/* A counter reset under us loses that interval, and what it reads then is where it counts from: the
 * very next tick is measured. */
static void test_restart_is_a_new_baseline(void **state)
{
	struct fake f;
	struct counter_pool *pool = make_pool(&f, 1, 1);
	struct sample s[1];

	(void)state;
	f.rate[0] = 500;
	counter_pool_add(pool, 0);
	counter_pool_read(pool, TICK_NS, s, 1); /* assigned, baseline */
	advance(&f, 1);
	counter_pool_read(pool, 2 * TICK_NS, s, 1);
	assert_int_equal(s[0].bytes, 500);
	f.value[0] = 40; /* zeroed, and 40 counted since */
	f.restarted[0] = true;
	counter_pool_read(pool, 3 * TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_INVALID);
	assert_string_equal(s[0].reason, "fake counter restarted");
	advance(&f, 1);
	counter_pool_read(pool, 4 * TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_MEASURED);
	assert_int_equal(s[0].bytes, 500);
	assert_int_equal(s[0].elapsed_ns, TICK_NS);
	/* Restarted while not ready: no baseline yet. */
	f.restarted[0] = true;
	f.not_ready[0] = true;
	counter_pool_read(pool, 5 * TICK_NS, s, 1);
	f.not_ready[0] = false;
	advance(&f, 1);
	counter_pool_read(pool, 6 * TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_INVALID); /* the baseline */
	advance(&f, 1);
	counter_pool_read(pool, 7 * TICK_NS, s, 1);
	assert_int_equal(s[0].state, SAMPLE_MEASURED);
	counter_pool_free(pool);
}

static void test_broken_counter_is_handed_on(void **state)
{
	struct fake f;
	struct counter_pool *pool = make_pool(&f, 1, 2);
	struct sample s[2];
	uint64_t now = TICK_NS;
	bool second_measured = false;

	(void)state;
	counter_pool_add(pool, 0);
	counter_pool_add(pool, 1);
	f.rate[1] = 9;
	counter_pool_read(pool, now, s, 1); /* partition 0 gets the counter */
	for (int t = 0; t < 40; t++) {
		now += TICK_NS;
		advance(&f, 1);
		/* The counter fails whenever partition 0 holds it (a fault tied to its PARTID). */
		f.broken[0] = counter_pool_owner(pool, 0) == 0;
		counter_pool_read(pool, now, s, 1);
		assert_int_equal(s[0].state, SAMPLE_INVALID);
		assert_non_null(s[0].reason);
		second_measured |= s[1].state == SAMPLE_MEASURED;
	}
	/* Partition 0 never had a measurement: invalid with the reason, never a zero. */
	assert_true(second_measured);
	counter_pool_free(pool);
}

/* A kept partition (a guarantee holder) holds its counter and is measured every tick once its turn
 * came; the others share what is left in turn. At most all counters but one are kept; removing a
 * kept partition, or adding it again, frees its place. */
static void test_kept_counter_every_tick(void **state)
{
	struct fake f;
	struct counter_pool *pool = seven_partitions(&f, 3);
	struct sample s[7];
	unsigned measured[7] = { 0 };
	uint64_t now = TICK_NS;

	(void)state;
	assert_int_equal(counter_pool_keep(pool, 5, true), 0);
	assert_int_equal(counter_pool_keep(pool, 6, true), 0);
	assert_int_equal(counter_pool_keep(pool, 0, true), -ENOSPC); /* one counter must go round */
	assert_int_equal(counter_pool_keep(pool, 9, true), -ENOENT);
	counter_pool_read(pool, now, s, 1);
	for (int t = 0; t < 60; t++) {
		advance(&f, 3);
		now += TICK_NS;
		counter_pool_read(pool, now, s, 1);
		for (size_t i = 0; t >= 10 && i < 7; i++) /* after every turn came once */
			measured[i] += s[i].state == SAMPLE_MEASURED;
	}
	assert_int_equal(measured[5], 50);
	assert_int_equal(measured[6], 50);
	for (size_t i = 0; i < 5; i++)
		assert_in_range(measured[i], 9, 11); /* one counter among five: every fifth tick */
	counter_pool_remove(pool, 6);
	assert_int_equal(counter_pool_keep(pool, 0, true), 0); /* 6's place is free */
	assert_int_equal(counter_pool_add(pool, 6), 0);
	assert_int_equal(counter_pool_keep(pool, 6, true), -ENOSPC);
	counter_pool_add(pool, 0); /* added again: kept no longer */
	assert_int_equal(counter_pool_keep(pool, 6, true), 0);
	counter_pool_free(pool);
}

/* A kept partition whose counter keeps failing (a fault tied to its PARTID) does not hold it for
 * ever: after MAX_DWELL_TICKS (16) without a measurement it goes on, and the partition keeps the next
 * it gets. */
static void test_kept_broken_counter_is_handed_on(void **state)
{
	struct fake f;
	struct counter_pool *pool = seven_partitions(&f, 2);
	struct sample s[7];
	uint64_t now = TICK_NS;
	unsigned held = 0, longest = 0;

	(void)state;
	assert_int_equal(counter_pool_keep(pool, 0, true), 0);
	counter_pool_read(pool, now, s, 1);
	for (int t = 0; t < 80; t++) {
		now += TICK_NS;
		advance(&f, 2);
		for (unsigned c = 0; c < 2; c++)
			f.broken[c] = counter_pool_owner(pool, c) == 0;
		counter_pool_read(pool, now, s, 1);
		bool holds = counter_pool_owner(pool, 0) == 0 || counter_pool_owner(pool, 1) == 0;
		held = holds ? held + 1 : 0;
		longest = held > longest ? held : longest;
	}
	if (longest > 17)
		fail_msg("partition 0 held a failing counter %u ticks in a row", longest);
	assert_true(longest > 0);
	counter_pool_free(pool);
}

TEST_MAIN({
	cmocka_unit_test(test_enough_counters_never_rotate),
	cmocka_unit_test(test_removed_while_every_other_holds_is_not_measured),
	cmocka_unit_test(test_pool_grows_with_slots),
	cmocka_unit_test(test_rotation_is_fair_and_estimates),
	cmocka_unit_test(test_kept_counter_every_tick),
	cmocka_unit_test(test_not_ready_then_baseline),
	cmocka_unit_test(test_restart_is_a_new_baseline),
	cmocka_unit_test(test_broken_counter_is_handed_on),
	cmocka_unit_test(test_kept_broken_counter_is_handed_on),
})
