/* Faults of the MSCs themselves, injected into the simulator's register model (backends/sim/
 * msc_model.c) under the real MMIO driver, one row of a table at a time: monitors that stay not
 * ready (NRDY) for many ticks, counts that jump forward or back, an error the MSC raises (ESR).
 *
 * The engine runs on the simulated clock with two MSCs and two partitions; the fault hits MSC 0.
 * On every tick each partition's sample is either invalid with a reason (never shown as a number)
 * or close to the simulator's ground truth: a fault never turns into a wrong measurement. While
 * the fault lasts the samples say why they are invalid, the log says what the MSC did (once), and
 * afterwards measuring resumes by itself. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "backends/mpam/mpam_regs.h"
#include "backends/sim/sim_host.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "core/engine/registry.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/record_reader.h"

#define FAULT_TICK 5
#define MAX_TICKS  200
#define HOLD_TICKS 30 /* "many ticks" of NRDY: three seconds of 100 ms ticks */

#define note(run, ...) note_first((run)->failure, sizeof((run)->failure), __VA_ARGS__)

enum fault {
	HOLD_NRDY, /* every monitor of MSC 0 not ready for HOLD_TICKS ticks */
	JUMP,	   /* every count of MSC 0 jumps by `amount` bytes */
	RAISE_ESR, /* MSC 0 raises error `amount` */
};

struct row {
	const char *name;
	const char *nrdy; /* [sim] nrdy: who clears NRDY */
	enum fault fault;
	int64_t amount;
	const char *says; /* in the samples' reason while the fault shows */
	const char *logs; /* in the log, once per partition or MSC (NULL: nothing to log) */
	unsigned log_lines;
};

static const struct row rows[] = {
	{ "NRDY held 30 ticks, hardware-managed NRDY", "hardware", HOLD_NRDY, 0, "not ready (NRDY)", NULL, 0 },
	{ "NRDY held 30 ticks, software-managed NRDY", "software", HOLD_NRDY, 0, "not ready (NRDY)", NULL, 0 },
	{ "counts jump forward by 1 TB", "hardware", JUMP, INT64_C(1) << 40, "more than the domain can carry",
	  "more than the domain can carry", 2 },
	/* More than one interval's traffic (a smaller jump back reads as less traffic: no one can tell). */
	{ "counts jump back by 300 MB", "hardware", JUMP, -300000000, "backwards", NULL, 0 },
	/* Back below 0: a 44-bit counter then reads almost 2^44, which looks like a wrap. */
	{ "counts jump back by 1 TB", "hardware", JUMP, -(INT64_C(1) << 40), "more than the domain can carry",
	  "more than the domain can carry", 2 },
	{ "ESR: request PARTID out of range", "hardware", RAISE_ESR, MPAM_ERR_REQ_PARTID_RANGE,
	  "MSC reported an error (ESR)", "reports an error: ERRCODE 2 (request PARTID out of range)", 1 },
	{ "ESR: monitor out of range", "hardware", RAISE_ESR, MPAM_ERR_MONITOR_RANGE, "MSC reported an error (ESR)",
	  "reports an error: ERRCODE 5 (monitor selector out of range)", 1 },
};

struct run {
	const struct row *row;
	struct engine *engine;
	struct log_capture log;
	uint64_t fault_ticks;  /* ticks on which both partitions showed the fault */
	uint64_t healed_ticks; /* ticks in a row both were measured again, after the fault */
	uint64_t healed_at;    /* the first of them */
	uint64_t fault_end;    /* the last tick the fault can show on */
	char failure[1024];
};

static struct run *current;
static struct sim_host *host; /* the simulated host of the running engine (sim_spy_registry) */
static const struct engine_registry *spy_registry;

/* ---- checks ---- */

/* Each sample is invalid with a reason and shown as null, or within 5% (and 50 MB/s) of the truth. */
static void check_truthful(struct run *run, struct engine *e, uint64_t t)
{
	json_t *list = engine_snapshot_list(e), *row;
	size_t i;

	json_array_foreach(json_object_get(list, "partitions"), i, row) {
		const char *name = json_string_value(json_object_get(row, "name"));
		const struct partition_status *st = engine_find(e, name, NULL);
		if (!st->valid && (!json_is_null(json_object_get(row, "mbps")) || !st->reason))
			note(run, "tick %llu: %s's invalid sample is shown as a number or without a reason",
			     (unsigned long long)t, name);
		if (st->valid && t > 2 && fabs(st->mbps - st->truth_mbps) > 0.05 * st->truth_mbps + 50)
			note(run, "tick %llu: %s measured %.0f MB/s, the simulator served %.0f", (unsigned long long)t,
			     name, st->mbps, st->truth_mbps);
	}
	json_decref(list);
}

static bool shows_fault(const struct run *run, struct engine *e)
{
	const struct partition_status *a = engine_find(e, "a", NULL), *b = engine_find(e, "b", NULL);

	return !a->valid && !b->valid && a->reason && strstr(a->reason, run->row->says) && b->reason &&
	       strstr(b->reason, run->row->says);
}

static void inject(const struct row *row)
{
	struct msc_model *msc = sim_host_msc(host, 0);

	switch (row->fault) {
	case HOLD_NRDY:
		msc_model_hold_nrdy(msc, HOLD_TICKS);
		break;
	case JUMP:
		msc_model_jump(msc, row->amount);
		break;
	case RAISE_ESR:
		msc_model_raise_error(msc, (unsigned)row->amount, 7, 0, 0);
		break;
	}
}

static void on_tick(void *ctx, struct engine *e)
{
	struct run *run = ctx;
	uint64_t t = engine_ticks_done(e);

	check_truthful(run, e, t);
	if (t == FAULT_TICK)
		inject(run->row);
	if (t > FAULT_TICK && t <= run->fault_end) {
		bool shown = shows_fault(run, e);
		run->fault_ticks += shown;
		/* NRDY held shows on every tick it is held, after the tick that reads it first */
		if (!shown && run->row->fault == HOLD_NRDY && t > FAULT_TICK + 1 && t < run->fault_end - 1)
			note(run, "tick %llu: NRDY is held, but a sample is not invalid for it (a: %s)",
			     (unsigned long long)t,
			     engine_find(e, "a", NULL)->reason ? engine_find(e, "a", NULL)->reason : "valid");
	}
	if (t > run->fault_end) {
		run->healed_ticks = engine_find(e, "a", NULL)->valid && engine_find(e, "b", NULL)->valid
					    ? run->healed_ticks + 1
					    : 0;
		if (run->healed_ticks == 1)
			run->healed_at = t;
	}
	if (run->failure[0] || run->healed_ticks >= 5)
		engine_stop(e);
}

/* ---- one row ---- */

static int teardown(void **state)
{
	(void)state;
	if (current) {
		log_capture_free(&current->log);
		engine_free(current->engine);
		free(current);
		current = NULL;
	}
	host = NULL;
	return 0;
}

static void run_row(const struct row *row)
{
	struct run *run = calloc(1, sizeof(*run));
	struct err err = { "" };
	char text[1024];

	assert_non_null(run);
	current = run;
	run->row = row;
	run->log.saved_stderr = -1;
	run->fault_end = FAULT_TICK + (row->fault == HOLD_NRDY ? HOLD_TICKS + 1 : 2);
	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = 100\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 10000\nmonitors = 16\ncounter_bits = 44\nnrdy = %s\nseed = 3\n"
		 "[partition \"a\"]\nmb_max = 60\nsim_demand = 3000\n"
		 "[partition \"b\"]\nmb_max = 40\nsim_demand = 2000\n",
		 row->nrdy);
	struct engine_options opts = {
		.ticks = MAX_TICKS, .sim_clock = true, .registry = spy_registry, .on_tick = on_tick, .on_tick_ctx = run
	};
	log_capture_begin(&run->log);
	int r = engine_new(load_config_text(text), &opts, &run->engine, &err);
	if (r == 0)
		r = engine_run(run->engine, &err);
	log_capture_end(&run->log);
	expect_engine_ran(row->name, r, &err, run->failure);
	if (!run->fault_ticks)
		fail_msg("%s: no sample said '%s'", row->name, row->says);
	if (run->healed_ticks < 5)
		fail_msg("%s: not measured again by tick %d", row->name, MAX_TICKS);
	if (row->logs) {
		const char *const parts[] = { row->logs, NULL };
		unsigned lines = log_capture_count(&run->log, parts);
		if (lines != row->log_lines)
			fail_msg("%s: the log says '%s' %u times, not %u", row->name, row->logs, lines, row->log_lines);
	}
	printf("  %-45s fault shown on %2llu ticks, measured again %llu tick(s) after it\n", row->name,
	       (unsigned long long)run->fault_ticks, (unsigned long long)(run->healed_at - run->fault_end));
	teardown(NULL);
}

static void test_row(void **state)
{
	run_row(*state);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(rows) / sizeof(rows[0])];

	spy_registry = sim_spy_registry(&host);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		tests[i] = (struct CMUnitTest){ rows[i].name, test_row, NULL, teardown, (void *)&rows[i] };
	return _cmocka_run_group_tests("msc_faults", tests, sizeof(rows) / sizeof(rows[0]), NULL, NULL);
}
