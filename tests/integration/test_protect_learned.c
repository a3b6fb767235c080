/* Protection on by default: the shipped resctrl-emu example (etc/resctrl-emu-intel.ini), which sets no
 * capacity_mbps, protects its guaranteed partition from a noisy best-effort neighbour on the same
 * domain within 2 s (20 ticks at its 100 ms) of the neighbour starting, mpamd learning the domain's
 * capacity from the saturation it sees (core/engine/capacity_learner.c). The emulator's [sim]
 * capacity_mbps is the plant's truth: mpamd's copy of the file has no [sim] section at all. The
 * neighbour wants three times what the domain carries; it starts with mpamd (nothing shifts, the
 * guarantee is short from the first tick) or once mpamd runs (the guaranteed partition loses what the
 * neighbour takes). Started again with the record of such a run, mpamd takes the most the domain
 * carried there as its capacity (core/engine/engine_capacity_record.c): the guarantee is enforced
 * from the first tick and web is back sooner than learning alone gets it back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "tests/util/emu_in_step.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"

#define SHIPPED	      MPAMD_SOURCE_DIR "/etc/resctrl-emu-intel.ini"
#define TICKS	      80
#define INTERVAL_MS   100 /* the shipped interval_ms */
#define WITHIN_TICKS  20  /* 2 s at the shipped interval_ms */
#define GUARANTEE     6000.0
#define SHORT_OF      0.98 /* as the guard judges "at its guarantee" */
#define NOISY_STARTED 1000.0

struct run {
	struct emu *emu;
	char dir[64], emu_config[96], config[96];
	double web[TICKS + 1], batch[TICKS + 1];
	bool pending_at_start, pending_at_end;
};

static struct run *current;

static int teardown(void **state)
{
	(void)state;
	if (current) {
		emu_stop(current->emu);
		remove_tree(current->dir);
		free(current);
		current = NULL;
	}
	return 0;
}

/* `text` with the line `from` (it must be there) replaced by `to`: a new string. */
static char *replace_line(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t head, tail;
	char *out;

	if (!at)
		fail_msg("the shipped config no longer has the line \"%s\"", from);
	head = (size_t)(at - text);
	tail = strlen(at + strlen(from));
	out = malloc(head + strlen(to) + tail + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcpy(out + head + strlen(to), at + strlen(from));
	return out;
}

/* The shipped file for the emulator: both partitions on domain 0, web wanting more than its guarantee,
 * batch the noisy demand `batch_demand`. */
static void write_emu_config(struct run *run, const char *shipped, const char *batch_demand)
{
	char *a = replace_line(shipped, "sim_demand = 5000", "sim_demand = 8000\nsim_domains = 0");
	char batch[96];

	snprintf(batch, sizeof(batch), "sim_demand = %s\nsim_domains = 0", batch_demand);
	char *b = replace_line(a, "sim_demand = 30000", batch);
	write_file(run->emu_config, "%s", b);
	free(a);
	free(b);
}

/* The shipped file for mpamd: its resctrl_root the emulator's, no [sim] section, and `record` (NULL:
 * none). */
static void write_mpamd_config(struct run *run, const char *shipped, const char *record)
{
	char root[320];

	snprintf(root, sizeof(root), "resctrl_root = %s%s%s", emu_root(run->emu), record ? "\nrecord = " : "",
		 record ? record : "");
	char *text = replace_line(shipped, "resctrl_root = /tmp/resctrl", root);
	const char *sim = strstr(text, "[sim]"), *after = sim ? strstr(sim, "[partition") : NULL;
	assert_non_null(after);
	write_file(run->config, "%.*s%s", (int)(sim - text), text, after);
	free(text);
	char *written = read_text_file(run->config);
	assert_non_null(written);
	assert_null(strstr(written, "\ncapacity_mbps")); /* nothing tells mpamd what the domain carries */
	free(written);
}

static void on_tick(void *ctx, struct engine *e)
{
	struct run *run = ctx;
	uint64_t t = engine_ticks_done(e);
	const struct partition_status *web = engine_find(e, "web", NULL), *batch = engine_find(e, "batch", NULL);

	if (t > TICKS || !web || !batch)
		return;
	run->web[t] = web->valid ? web->mbps : 0;
	run->batch[t] = batch->valid ? batch->mbps : 0;
	if (t == 1)
		run->pending_at_start = engine_guarantees_pending(e) != NULL;
	run->pending_at_end = engine_guarantees_pending(e) != NULL;
	/* the emulator's time moves with the engine's simulated time: the plant, not the machine's load */
	assert_int_equal(emu_advance(run->emu, INTERVAL_MS), 0);
}

static struct run *run_scenario(const char *batch_demand, const char *record)
{
	struct run *run = calloc(1, sizeof(*run));
	char *shipped = read_text_file(SHIPPED);

	assert_non_null(run);
	assert_non_null(shipped);
	current = run;
	make_test_dir(run->dir, sizeof(run->dir), "protect");
	snprintf(run->emu_config, sizeof(run->emu_config), "%s/emu.ini", run->dir);
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	write_emu_config(run, shipped, batch_demand);
	assert_int_equal(emu_start("intel", run->emu_config, NULL, &run->emu), 0);
	assert_int_equal(emu_ctl(run->emu, "clock manual"), 0);
	char shipped_interval[32];
	snprintf(shipped_interval, sizeof(shipped_interval), "\ninterval_ms = %d\n", INTERVAL_MS);
	assert_non_null(strstr(shipped, shipped_interval));
	write_mpamd_config(run, shipped, record);
	free(shipped);

	struct engine_options opts = in_step_options(run->config, TICKS, on_tick, run);
	struct err err = { "" };
	struct engine *e = engine_new_in_step(&opts, run->emu, INTERVAL_MS);
	int r = engine_run(e, &err);
	engine_free(e);
	if (r < 0)
		fail_msg("engine_run: %s", err.text);
	return run;
}

/* The tick the neighbour started on. */
static unsigned neighbour_start(const struct run *run)
{
	unsigned start = 1;

	while (start <= TICKS && run->batch[start] < NOISY_STARTED)
		start++;
	assert_true(start + 2 * WITHIN_TICKS <= TICKS); /* the neighbour started, early enough to judge */
	return start;
}

/* The first tick from the neighbour's start on which web is at its guarantee (0: none within
 * WITHIN_TICKS). */
static unsigned back_at(const struct run *run)
{
	unsigned start = neighbour_start(run);

	for (unsigned t = start; t <= start + WITHIN_TICKS; t++)
		if (run->web[t] >= SHORT_OF * GUARANTEE)
			return t;
	return 0;
}

/* web is back at its guarantee within WITHIN_TICKS of the neighbour starting, and holds it on average
 * over the rest of the run. */
static void check_protected(const struct run *run)
{
	unsigned start = neighbour_start(run), back = back_at(run);
	double sum = 0;

	if (!back)
		fail_msg("web not back at its guarantee within %u ticks of the neighbour starting at tick %u "
			 "(%.0f MB/s at the end of them)",
			 WITHIN_TICKS, start, run->web[start + WITHIN_TICKS]);
	for (unsigned t = start + WITHIN_TICKS; t <= TICKS; t++)
		sum += run->web[t];
	double mean = sum / (TICKS - start - WITHIN_TICKS + 1);
	if (mean < GUARANTEE)
		fail_msg("web averaged %.0f MB/s after it was protected, under its guarantee", mean);
	assert_false(run->pending_at_end); /* status: the guarantees are enforced now */
}

/* Squeezed from the first tick: no shift ever shows, the contention does. */
static void test_neighbour_from_the_start(void **state)
{
	(void)state;
	struct run *run = run_scenario("60000", NULL);

	assert_true(run->pending_at_start); /* status said the guarantees were not enforced yet */
	check_protected(run);
}

/* The neighbour starts 3 s into the emulator's run, mpamd running by then. */
static void test_neighbour_starts_later(void **state)
{
	(void)state;
	struct run *run = run_scenario("0@0 60000@30", NULL);

	assert_true(run->web[1] >= SHORT_OF * GUARANTEE); /* alone at first */
	check_protected(run);
}

/* What web got over the EARLY_TICKS after the guard's first decision (the neighbour's first tick is
 * before any). */
#define EARLY_TICKS 3
static double early_mbps(const struct run *run)
{
	unsigned start = neighbour_start(run);
	double sum = 0;

	for (unsigned t = start + 1; t <= start + EARLY_TICKS; t++)
		sum += run->web[t];
	return sum;
}

/* The first run learns (and writes its record); the second starts from the record. Learning alone
 * already gets web back within a few ticks here (the guard cuts on its shortfall while it learns), so
 * the difference is in the first ticks: enforced from the first one, web gets more of them. */
static void test_a_record_protects_from_the_first_ticks(void **state)
{
	char dir[64], record[96];

	make_test_dir(dir, sizeof(dir), "protect-record");
	snprintf(record, sizeof(record), "%s/record.csv", dir);
	struct run *run = run_scenario("60000", record);
	assert_true(run->pending_at_start);
	double learning = early_mbps(run);
	teardown(state);

	run = run_scenario("60000", record);
	assert_false(run->pending_at_start); /* status: enforced from the first tick */
	check_protected(run);
	double from_record = early_mbps(run);
	remove_tree(dir);
	if (!(from_record > learning))
		fail_msg("web got %.0f MB/s over its first %u ticks with the record, %.0f without", from_record,
			 EARLY_TICKS, learning);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_neighbour_from_the_start, teardown),
		cmocka_unit_test_teardown(test_neighbour_starts_later, teardown),
		cmocka_unit_test_teardown(test_a_record_protects_from_the_first_ticks, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
