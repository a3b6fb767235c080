/* The published snapshot taken again in its place (engine_snapshot_retake): only when its caller's is
 * the one reference and its rows' block fits the partitions; a snapshot someone else holds stays as
 * it was, whole, and one taken again says exactly what a new one would (status, list, metrics). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "tests/util/engine_util.h"
#include "tests/util/test_main.h"

static const char *const head = "[global]\nbackend = sim\ninterval_ms = 20\n[sim]\ncapacity_mbps = 20000\n"
				"[partition \"web\"]\nclass = latency-critical\nsim_demand = 4000\n"
				"[partition \"batch\"]\nclass = best-effort\nsim_demand = 15000\n";

/* What the replies would say of `s`: status, list and metrics, as one string (the caller frees it). */
static char *replies_of(const struct engine_snapshot *s)
{
	json_t *all = json_pack("[ooo]", snapshot_status_json(s), snapshot_list_json(s), engine_metrics_reply(s));
	assert_non_null(all);
	char *text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(all);
	assert_non_null(text);
	return text;
}

static void assert_as_new(const struct engine *e, const struct engine_snapshot *s)
{
	struct engine_snapshot *fresh = engine_snapshot_take(e);
	assert_non_null(fresh);
	char *want = replies_of(fresh), *got = replies_of(s);
	assert_string_equal(got, want);
	free(want);
	free(got);
	engine_snapshot_unref(fresh);
}

static void set_target(struct engine *e, const char *setting)
{
	const char *settings[] = { setting };
	struct err err = { "" };

	if (engine_set(e, "web", settings, 1, "uid 0", NULL, &err) < 0)
		fail_msg("set: %s", err.text);
}

static void test_held_stays_unheld_is_taken_again(void **state)
{
	(void)state;
	char path[] = "/tmp/mpamd-retake-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	dprintf(fd, "%s", head);
	close(fd);
	struct engine_options opts = { .ticks = 2, .sim_clock = true, .config_path = path };
	struct engine *e = engine_new_or_fail(load_config_file(path), &opts);
	engine_run_clean(e, 2);

	struct engine_snapshot *s = engine_snapshot_take(e);
	assert_non_null(s);
	char *before = replies_of(s);
	set_target(e, "target_mbps=2500"); /* a goal, and an event: both in the replies */

	/* Held by a reply: unchanged, and still what it said. */
	engine_snapshot_ref(s);
	assert_int_equal(engine_snapshot_retake(e, s), -EBUSY);
	char *held = replies_of(s);
	assert_string_equal(held, before);
	free(held);
	engine_snapshot_unref(s);

	/* Held by its caller only: taken again in its place, what a new one says. */
	struct snapshot_row *rows = s->rows;
	assert_int_equal(engine_snapshot_retake(e, s), 0);
	assert_ptr_equal(s->rows, rows);
	char *after = replies_of(s);
	assert_string_not_equal(after, before);
	free(after);
	assert_as_new(e, s);

	/* Twice as many partitions: its block does not fit, it stays as it was. */
	char *now = replies_of(s);
	assert_int_equal(write_text_file(path,
					 "%s[partition \"a\"]\nsim_demand = 100\n[partition \"b\"]\nsim_demand = 100\n"
					 "[partition \"c\"]\nsim_demand = 100\n",
					 head),
			 0);
	struct err err = { "" };
	if (engine_reload(e, &err) < 0)
		fail_msg("reload: %s", err.text);
	assert_int_equal(engine_snapshot_retake(e, s), -EBUSY);
	char *unfit = replies_of(s);
	assert_string_equal(unfit, now);
	free(unfit);
	free(now);

	free(before);
	engine_snapshot_unref(s);
	engine_free(e);
	unlink(path);
}

TEST_MAIN({
	cmocka_unit_test(test_held_stays_unheld_is_taken_again),
})
