/* Partitions that come and go while mpamd runs: a reload applies only the difference (removed groups
 * go, adopted ones stay, every other partition measures on every tick, interval_ms takes effect, a
 * broken file changes nothing and says where), policy memory survives an unrelated change, and
 * partitions that could not be opened heal by themselves: a mkdir refused once, the whole resctrl
 * mount gone and back. Against the resctrl emulator and the simulator, in process; the reload's
 * reply through mpamctl against a daemon. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "core/engine/registry.h"
#include "policies/policy.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"

#define MAX_TICKS 200
#define WAIT_MS	  5000

#define note_failure(run, ...) note_first((run)->failure, sizeof((run)->failure), __VA_ARGS__)

/* One run: the emulator (or none), the engine, its file and what the hook saw each tick. */
struct run {
	struct emu *emu;
	struct engine *engine;
	char dir[64];
	char config[96], traffic[96];
	char failure[512]; /* the first thing the hook found wrong ("": none) */
	uint64_t tick_ns[MAX_TICKS + 1];
	bool valid[MAX_TICKS + 1][4]; /* per tick, per watched partition */
	const char *watched[4];
	size_t watched_count;
	void (*script)(struct run *run, uint64_t tick);
};

static struct run *current; /* for the teardown after a failed assertion */
static int daemon_pid;

static int teardown(void **state)
{
	(void)state;
	kill_daemon(&daemon_pid);
	if (current) {
		engine_free(current->engine);
		emu_stop(current->emu);
		remove_tree(current->dir); /* its config, traffic, and a failed test's socket, log and record */
		free(current);
		current = NULL;
	}
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_tick(void *ctx, struct engine *e)
{
	struct run *run = ctx;
	uint64_t t = engine_ticks_done(e);

	if (t > MAX_TICKS)
		return;
	run->tick_ns[t] = monotonic_ns();
	for (size_t w = 0; w < run->watched_count; w++) {
		const struct partition_status *st = engine_find(e, run->watched[w], NULL);
		run->valid[t][w] = st && st->valid;
	}
	if (run->script)
		run->script(run, t);
}

static struct config *load(const char *path)
{
	struct config *config = load_config_file(path);

	assert_non_null(config);
	return config;
}

static struct run *run_new(void)
{
	struct run *run = calloc(1, sizeof(*run));

	assert_non_null(run);
	current = run;
	make_test_dir(run->dir, sizeof(run->dir), "dynamics");
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	snprintf(run->traffic, sizeof(run->traffic), "%s/traffic.ini", run->dir);
	return run;
}

/* The emulator (Intel: MB in steps of 10) on the traffic of `partitions`. */
static void start_emu(struct run *run, const char *partitions)
{
	write_file(run->traffic, "[global]\ninterval_ms = 20\n%s", partitions);
	assert_int_equal(emu_start("intel", run->traffic, NULL, &run->emu), 0);
}

static void write_resctrl_config(struct run *run, unsigned interval_ms, const char *partitions)
{
	write_file(run->config, "[global]\nbackend = resctrl\ninterval_ms = %u\nresctrl_root = %s\n%s", interval_ms,
		   emu_root(run->emu), partitions);
}

static void run_engine(struct run *run, uint64_t ticks, bool sim_clock, const struct policy_chain *chain)
{
	struct engine_options opts = { .ticks = ticks,
				       .sim_clock = sim_clock,
				       .config_path = run->config,
				       .policies = chain,
				       .on_tick = on_tick,
				       .on_tick_ctx = run };
	struct err err = { "" };

	if (engine_new(load(run->config), &opts, &run->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);
	if (engine_run(run->engine, &err) < 0)
		fail_msg("engine_run: %s", err.text);
	if (run->failure[0])
		fail_msg("%s", run->failure);
}

/* ---- reload: the difference, and nothing else ---- */

static const char *const three = "[partition \"a\"]\nclass = best-effort\nmb_max = 80\nsim_demand = 3000\n"
				 "[partition \"b\"]\nclass = best-effort\nsim_demand = 2000\n"
				 "[partition \"c\"]\nclass = best-effort\nsim_demand = 1000\n"
				 "[partition \"d\"]\nclass = best-effort\n";

/* a's mb_max changes, b and the adopted d are removed, e is added; c is what it was. */
static const char *const changed = "[partition \"a\"]\nclass = best-effort\nmb_max = 50\nsim_demand = 3000\n"
				   "[partition \"c\"]\nclass = best-effort\nsim_demand = 1000\n"
				   "[partition \"e\"]\nclass = best-effort\nsim_demand = 500\n";

static size_t slot_of_c_at_start;

static void reload_script(struct run *run, uint64_t t)
{
	struct err err = { "" };
	size_t slot = 0;

	if (t == 5) {
		write_resctrl_config(run, 20, changed);
		if (engine_reload(run->engine, &err) < 0)
			return note_failure(run, "tick 5: reload refused: %s", err.text);
		if (emu_group_exists(run->emu, "mpamd-b"))
			note_failure(run, "the removed partition b still has its group");
		if (!emu_group_exists(run->emu, "mpamd-d"))
			note_failure(run, "the adopted group of d was removed");
		if (!emu_group_exists(run->emu, "mpamd-e"))
			note_failure(run, "the added partition e has no group");
		if (!emu_group_file_has(run->emu, "mpamd-a", "schemata", "MB:0=50;1=50"))
			note_failure(run, "a's new mb_max is not in its schemata");
		if (!engine_find(run->engine, "c", &slot) || slot != slot_of_c_at_start)
			note_failure(run, "c moved from slot %zu to %zu", slot_of_c_at_start, slot);
		if (engine_find(run->engine, "b", NULL) || engine_find(run->engine, "d", NULL))
			note_failure(run, "removed partitions are still listed");
	} else if (t == 8) {
		/* Broken: nothing at all changes (c would go, the interval would change). */
		write_file(run->config, "[global]\nbackend = resctrl\ninterval_ms = 5\nresctrl_root = %s\n%s",
			   emu_root(run->emu), "[partition \"a\"]\nmb_max = 20\n");
		if (engine_reload(run->engine, &err) == 0)
			return note_failure(run, "tick 8: a broken file was taken");
		if (!engine_find(run->engine, "c", NULL) || !engine_find(run->engine, "e", NULL) ||
		    engine_find(run->engine, "b", NULL))
			note_failure(run, "a refused reload changed the partition set");
		if (!emu_group_file_has(run->emu, "mpamd-a", "schemata", "MB:0=50;1=50") ||
		    !emu_group_exists(run->emu, "mpamd-c"))
			note_failure(run, "a refused reload changed limits or groups");
	} else if (t == 12) {
		write_resctrl_config(run, 80, changed); /* only interval_ms changes */
		if (engine_reload(run->engine, &err) < 0)
			note_failure(run, "tick 12: reload refused: %s", err.text);
	}
}

static double mean_spacing_ms(const struct run *run, uint64_t from, uint64_t to)
{
	return (double)(run->tick_ns[to] - run->tick_ns[from]) / 1e6 / (double)(to - from);
}

static void test_reload_applies_the_difference(void **state)
{
	struct run *run = run_new();

	(void)state;
	start_emu(run, three);
	char adopted[256];
	snprintf(adopted, sizeof(adopted), "%s/mpamd-d", emu_root(run->emu));
	assert_int_equal(mkdir(adopted, 0755), 0); /* made by someone else: mpamd adopts it */
	write_resctrl_config(run, 20, three);
	run->watched[0] = "c";
	run->watched[1] = "a";
	run->watched_count = 2;
	run->script = reload_script;
	slot_of_c_at_start = 2;
	run_engine(run, 24, false, NULL);

	/* c measured on every tick from its second on, through both reloads and the refused one; a's
	 * change was made in place, so it was never re-baselined either. */
	for (uint64_t t = 2; t <= 24; t++) {
		if (!run->valid[t][0])
			fail_msg("c's sample of tick %llu is invalid", (unsigned long long)t);
		if (!run->valid[t][1])
			fail_msg("a's sample of tick %llu is invalid", (unsigned long long)t);
	}
	/* The new interval holds the ticks apart: ten of them span at least ten deadlines, less how late
	 * the first began. Only this lower bound: on a loaded machine ticks run late, and 20 ms ticks
	 * were seen 120 ms apart, so "closer before" says nothing. */
	double after = mean_spacing_ms(run, 14, 24);
	if (after < 70)
		fail_msg("ticks %.1f ms apart after interval_ms 20 -> 80", after);
	const struct partition_status *e = engine_find(run->engine, "e", NULL);
	assert_non_null(e);
	assert_true(e->open && e->valid);
	teardown(NULL);
}

/* ---- failed partitions heal ---- */

static void heal_script(struct run *run, uint64_t t)
{
	const struct partition_status *x = engine_find(run->engine, "x", NULL);

	if (t == 1 && !(x->failed || x->open))
		note_failure(run, "x is neither failed nor open");
}

static void test_failed_mkdir_heals_without_a_reload(void **state)
{
	struct run *run = run_new();
	struct err err = { "" };
	const char *parts = "[partition \"x\"]\nclass = best-effort\nsim_demand = 1000\n"
			    "[partition \"y\"]\nclass = best-effort\nsim_demand = 2000\n";

	(void)state;
	start_emu(run, parts);
	assert_int_equal(emu_ctl(run->emu, "fail_mkdir ENOSPC"), 0); /* the next mkdir only */
	write_resctrl_config(run, 20, parts);
	struct engine_options opts = { .ticks = 20, .config_path = run->config, .on_tick = on_tick, .on_tick_ctx = run };
	run->script = heal_script;
	if (engine_new(load(run->config), &opts, &run->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);

	/* Meanwhile: failed, with the error and the next retry; no limit (not 0%). */
	const struct partition_status *x = engine_find(run->engine, "x", NULL);
	assert_true(x->failed);
	assert_false(x->open);
	assert_non_null(x->reason);
	assert_non_null(strstr(x->reason, "cannot create resctrl group mpamd-x"));
	assert_true(x->retry_ms > 0);
	json_t *list = engine_snapshot_list(run->engine);
	json_t *row = json_array_get(json_object_get(list, "partitions"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "state")), "failed");
	assert_non_null(strstr(json_string_value(json_object_get(row, "error")), "mpamd-x"));
	assert_true(json_is_real(json_object_get(row, "retry_in_s")));
	assert_true(json_is_null(json_object_get(row, "mb_max")));
	json_decref(list);
	assert_true(engine_find(run->engine, "y", NULL)->open); /* the other one never waited */

	if (engine_run(run->engine, &err) < 0)
		fail_msg("engine_run: %s", err.text);
	x = engine_find(run->engine, "x", NULL);
	assert_true(x->open && x->valid && !x->failed);
	assert_true(emu_group_exists(run->emu, "mpamd-x"));
	json_t *events = event_log_to_json(engine_events(run->engine), "x", 20);
	char *text = json_dumps(events, 0);
	assert_non_null(text);
	assert_non_null(strstr(text, "recovered"));
	free(text);
	json_decref(events);
	teardown(NULL);
}

static bool all_failed_seen, all_back_seen;

static void remount_script(struct run *run, uint64_t t)
{
	const struct partition_status *p = engine_find(run->engine, "p", NULL),
				      *q = engine_find(run->engine, "q", NULL);

	if (t == 3 && emu_ctl(run->emu, "vanish") != 0)
		note_failure(run, "vanish was refused");
	if (p->failed && q->failed && p->reason && q->reason && p->retry_ms && q->retry_ms)
		all_failed_seen = true;
	if (t == 30 && !all_failed_seen)
		note_failure(run, "with resctrl gone, not every partition was failed with a retry");
	if (t == 30 && emu_restart(run->emu) != 0)
		note_failure(run, "the emulator did not come back");
	if (t > 30 && p->open && q->open && p->valid && q->valid)
		all_back_seen = true;
}

/* Partitions p and q through resctrl for 120 ticks of 20 ms, `script` taking resctrl away and giving
 * it back on the way: at the end both are open again (all_back_seen) with their groups and limits. */
static void run_resctrl_away_and_back(void (*script)(struct run *run, uint64_t tick))
{
	struct run *run = run_new();
	const char *parts = "[partition \"p\"]\nclass = best-effort\nmb_max = 60\nsim_demand = 1000\n"
			    "[partition \"q\"]\nclass = best-effort\nsim_demand = 2000\n";

	start_emu(run, parts);
	write_resctrl_config(run, 20, parts);
	run->script = script;
	run_engine(run, 120, false, NULL);
	assert_true(all_back_seen);
	assert_true(emu_group_exists(run->emu, "mpamd-p") && emu_group_exists(run->emu, "mpamd-q"));
	assert_true(emu_group_file_has(run->emu, "mpamd-p", "schemata", "MB:0=60;1=60"));
	teardown(NULL);
}

static void test_resctrl_gone_and_back_heals(void **state)
{
	(void)state;
	all_failed_seen = all_back_seen = false;
	run_resctrl_away_and_back(remount_script);
}

/* An operator's umount: a plain one is refused while mpamd holds files of resctrl (EBUSY, as the
 * kernel's), umount -l detaches the tree, and the old tree lives on (the kernel refuses a new mount
 * meanwhile) until every file of it is closed, when the emulator ends. mpamd must see it gone at a
 * tick, let go of everything there, and open its partitions again on the new mount. */
static bool let_go_seen;

static void lazy_unmount_script(struct run *run, uint64_t t)
{
	const struct partition_status *p = engine_find(run->engine, "p", NULL),
				      *q = engine_find(run->engine, "q", NULL);

	if (t == 3) {
		int r = emu_unmount(run->emu, false);
		if (r == -EBUSY)
			r = emu_unmount(run->emu, true);
		if (r < 0)
			note_failure(run, "umount: %s", strerror(-r));
	}
	if (t > 3 && !let_go_seen && p->failed && q->failed) {
		if (!p->reason || !strstr(p->reason, "waiting for resctrl to be mounted"))
			note_failure(run, "p failed for another reason: %s", p->reason ? p->reason : "(none)");
		/* Every file closed when the partitions failed: the emulator's FUSE connection ends. */
		if (!emu_wait_end(run->emu, WAIT_MS))
			note_failure(run, "the partitions failed, but the unmounted tree is still held open");
		else if (emu_restart(run->emu) != 0)
			note_failure(run, "the emulator did not mount again");
		let_go_seen = true;
	}
	if (t == 40 && !let_go_seen)
		note_failure(run, "resctrl unmounted at tick 3 and still held at tick 40 (p %s, q %s)",
			     p->open ? "open" : "closed", q->open ? "open" : "closed");
	if (t > 40 && p->open && q->open && p->valid && q->valid)
		all_back_seen = true;
}

static void test_resctrl_unmounted_lazily_is_let_go_of(void **state)
{
	(void)state;
	let_go_seen = all_back_seen = false;
	run_resctrl_away_and_back(lazy_unmount_script);
	assert_true(let_go_seen);
}

/* ---- policy memory survives a reload of something else ---- */

struct seen_memory {
	double out_pct;
	uint32_t last_target;
	double mbps_per_pct;
	unsigned count; /* this probe's own memory: ticks seen */
};

static struct seen_memory seen[MAX_TICKS + 1];

/* Runs first: records the target controller's memory of "tenant" as policy tick host->tick begins (the
 * hook's tick host->tick + 1), and counts the ticks in a memory field no policy of this chain uses. */
static void probe(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	(void)decisions;
	for (size_t i = 0; i < count && host->tick <= MAX_TICKS; i++) {
		if (!parts[i].open || strcmp(parts[i].name, "tenant"))
			continue;
		const struct target_memory *m = parts[i].target; /* the engine gives it: tenant has a target */
		assert_non_null(m);
		parts[i].escalate.under_ticks++;
		seen[host->tick] = (struct seen_memory){ m->out_pct, m->last_target, m->mbps_per_pct,
							 parts[i].escalate.under_ticks };
	}
}

static const policy_fn probed_fns[] = { probe, policy_static, policy_target, policy_guard, policy_share };
static const struct policy_chain probed = { "probed", probed_fns, sizeof(probed_fns) / sizeof(probed_fns[0]) };

static const char *sim_file(unsigned batch_weight)
{
	static char text[512];

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = 100\n[sim]\nmscs = 2\ncapacity_mbps = 10000\nseed = 7\n"
		 "[partition \"batch\"]\nclass = best-effort\nweight = %u\nsim_demand = 18000\n"
		 "[partition \"tenant\"]\ntarget_mbps = 2500\nsim_demand = 4000\n",
		 batch_weight);
	return text;
}

static void memory_script(struct run *run, uint64_t t)
{
	struct err err = { "" };

	if (t != 30)
		return;
	write_file(run->config, "%s", sim_file(300)); /* batch's weight only */
	if (engine_reload(run->engine, &err) < 0)
		note_failure(run, "reload refused: %s", err.text);
}

static void test_policy_memory_survives_an_unrelated_reload(void **state)
{
	struct run *run = run_new();

	(void)state;
	memset(seen, 0, sizeof(seen));
	write_file(run->config, "%s", sim_file(100));
	run->script = memory_script;
	run_engine(run, 40, true, &probed);
	/* The target controller had engaged before the reload (policy tick 29, then the hook's tick 30
	 * reloads), and the tick after it begins with the same memory (a reopened engine begins with
	 * none: out_pct 0, no learned gain). */
	assert_int_equal(seen[29].last_target, 2500);
	assert_true(seen[29].out_pct > 0 && seen[29].out_pct < 100);
	assert_int_equal(seen[30].last_target, 2500);
	assert_true(seen[30].out_pct == seen[29].out_pct);
	assert_true(seen[30].mbps_per_pct > 0);
	for (uint64_t t = 2; t < 40; t++)
		if (seen[t].count != seen[t - 1].count + 1)
			fail_msg("the probe's own memory went from %u to %u at tick %llu", seen[t - 1].count,
				 seen[t].count, (unsigned long long)t);
	teardown(NULL);
}

/* ---- the seam a VM watcher uses: a desired set with origins, a removal, a slot reused ---- */

static void test_desired_set_with_origins(void **state)
{
	struct run *run = run_new();
	struct engine_options opts = { .sim_clock = true, .ticks = 6, .config_path = NULL };
	struct err err = { "" };
	size_t slot = 0;

	(void)state;
	write_file(run->config, "%s", sim_file(100));
	if (engine_new(load(run->config), &opts, &run->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);
	write_file(run->config,
		   "%s[partition \"vm-1\"]\nclass = best-effort\nmb_max = 40\n"
		   "[partition \"vm-2\"]\nclass = best-effort\n",
		   sim_file(100));
	const char *const origins[] = { NULL, NULL, "tenants", "tenants" };
	json_t *report = NULL;
	assert_int_equal(engine_apply_desired(run->engine, load(run->config), origins, &report, &err), 0);
	assert_int_equal(json_array_size(json_object_get(report, "added")), 2);
	assert_int_equal(json_integer_value(json_object_get(report, "unchanged")), 2);
	json_decref(report);
	assert_non_null(engine_find(run->engine, "vm-1", &slot));
	assert_int_equal(slot, 2);
	assert_string_equal(engine_partition_origin(run->engine, slot), "tenants");
	assert_null(engine_partition_origin(run->engine, 0));
	assert_true(engine_find(run->engine, "vm-1", NULL)->open);
	assert_true(engine_find(run->engine, "vm-1", NULL)->mb_max == 39.84375); /* 40%: MBW_MAX band 102/256 */
	json_t *list = engine_snapshot_list(run->engine);
	json_t *row = json_array_get(json_object_get(list, "partitions"), 2);
	assert_string_equal(json_string_value(json_object_get(row, "template")), "tenants");
	assert_int_equal(json_integer_value(json_object_get(row, "slot")), 2);
	json_decref(list);

	/* The VM goes: its slot is free, the others keep theirs; the next VM takes the free slot. */
	engine_partition_remove(run->engine, 2);
	assert_null(engine_find(run->engine, "vm-1", NULL));
	assert_non_null(engine_find(run->engine, "vm-2", &slot));
	assert_int_equal(slot, 3);
	write_file(run->config,
		   "%s[partition \"vm-2\"]\nclass = best-effort\n[partition \"vm-3\"]\nclass = best-effort\n"
		   "sim_demand = 1500\n",
		   sim_file(100));
	const char *const again[] = { NULL, NULL, "tenants", "tenants" };
	assert_int_equal(engine_apply_desired(run->engine, load(run->config), again, NULL, &err), 0);
	assert_non_null(engine_find(run->engine, "vm-3", &slot));
	assert_int_equal(slot, 2);
	assert_non_null(engine_find(run->engine, "vm-2", &slot));
	assert_int_equal(slot, 3);
	assert_int_equal(engine_partitions_in_use(run->engine), 4);
	if (engine_run(run->engine, &err) < 0)
		fail_msg("engine_run: %s", err.text);
	/* On the simulator the added partition's traffic is simulated too, and measured. */
	const struct partition_status *vm3 = engine_find(run->engine, "vm-3", NULL);
	assert_true(vm3->open && vm3->valid);
	assert_true(vm3->truth_mbps > 1000 && vm3->mbps > 1000);
	teardown(NULL);
}

/* VMs started one at a time: each desired set is the file plus every VM so far, and only the new one
 * is added. What stays in memory grows with the partitions, not with their square (each added
 * partition kept its whole desired set alive: 3 + 4 + ... + 50 entries). */
static void test_partitions_added_one_by_one_hold_linear_memory(void **state)
{
	struct run *run = run_new();
	struct engine_options opts = { .sim_clock = true, .ticks = 1, .config_path = NULL };
	struct err err = { "" };
	enum {
		VMS = 48
	}; /* the simulated MSCs have 64 PARTIDs */
	size_t len = 0;
	char *vms = calloc(VMS, 64);

	(void)state;
	assert_non_null(vms);
	write_file(run->config, "%s", sim_file(100));
	if (engine_new(load(run->config), &opts, &run->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);
	for (int i = 0; i < VMS; i++) {
		len += (size_t)sprintf(vms + len, "[partition \"vm-%d\"]\nclass = best-effort\n", i);
		write_file(run->config, "%s%s", sim_file(100), vms);
		if (engine_apply_desired(run->engine, load(run->config), NULL, NULL, &err) < 0)
			fail_msg("VM %d: %s", i, err.text);
	}
	assert_int_equal(engine_partitions_in_use(run->engine), VMS + 2);
	/* The running set (VMS + 2), the first file's (2), and one for each VM. */
	assert_true(engine_config_partitions_held(run->engine) <= 2 * (VMS + 2) + 2);
	free(vms);
	teardown(NULL);
}

/* ---- mpamctl reload: what changed, or every error with its file and line ---- */

static struct run_result ctl(const char *socket, const char *a1, const char *a2)
{
	char *argv[] = { MPAMCTL, "--socket", (char *)socket, (char *)a1, (char *)a2, NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

static void test_mpamctl_reload_reports(void **state)
{
	struct run *run = run_new();
	char socket[128], log[128], record[128];

	(void)state;
	snprintf(socket, sizeof(socket), "%s/mpamd.sock", run->dir);
	snprintf(log, sizeof(log), "%s/mpamd.log", run->dir);
	snprintf(record, sizeof(record), "%s/run.csv", run->dir);
	write_file(run->config, "%s", sim_file(100));
	char *argv[] = { MPAMD, "-c", run->config, "-f", "--socket", socket, "--record", record, NULL };
	daemon_pid = spawn_background(argv, log);
	assert_true(wait_for_text(log, "control socket", WAIT_MS));

	write_file(run->config, "%s[partition \"extra\"]\nclass = best-effort\n", sim_file(200));
	struct run_result r = ctl(socket, "reload", NULL);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "configuration reloaded"));
	assert_non_null(strstr(r.out, "added: extra"));
	assert_non_null(strstr(r.out, "changed in place: batch"));
	assert_non_null(strstr(r.out, "unchanged: 1 partition(s)"));
	run_result_fini(&r);

	write_file(run->config, "[global]\nbackend = sim\ninterval_ms = 5\n[partition \"batch\"]\nmb_mx = 3\n");
	r = ctl(socket, "reload", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "mpamd.ini:3: error: interval_ms = 5: out of range 10..60000"));
	assert_non_null(strstr(r.err, "mpamd.ini:5: error: unknown key 'mb_mx'"));
	assert_non_null(strstr(r.err, "the running configuration stays"));
	run_result_fini(&r);
	r = ctl(socket, "--json", "reload");
	assert_int_equal(r.exit_code, 1);
	json_error_t jerr;
	json_t *reply = json_loads(r.out, 0, &jerr);
	assert_non_null(reply);
	json_t *messages = json_object_get(reply, "messages");
	assert_true(json_array_size(messages) >= 2);
	assert_non_null(strstr(json_string_value(json_array_get(messages, 0)), "mpamd.ini:3: error: interval_ms"));
	json_decref(reply);
	run_result_fini(&r);
	/* Nothing changed: extra is still there. */
	r = ctl(socket, "show", "extra");
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);

	/* A key that needs the backend opened again is refused, and says so. */
	write_file(run->config, "[global]\nbackend = sim\ninterval_ms = 100\ngroup_prefix = other-\n[sim]\nmscs = 2\n"
				"capacity_mbps = 10000\nseed = 7\n[partition \"batch\"]\nclass = best-effort\n");
	r = ctl(socket, "reload", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "group_prefix changed"));
	assert_non_null(strstr(r.err, "restart mpamd"));
	run_result_fini(&r);
	r = ctl(socket, "show", "tenant");
	assert_int_equal(r.exit_code, 0); /* still running the previous file */
	run_result_fini(&r);

	kill(daemon_pid, SIGTERM);
	assert_int_equal(wait_exit(daemon_pid, WAIT_MS), 0);
	daemon_pid = 0;
	unlink(socket);
	unlink(log);
	unlink(record);
	teardown(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_reload_applies_the_difference, teardown),
		cmocka_unit_test_teardown(test_failed_mkdir_heals_without_a_reload, teardown),
		cmocka_unit_test_teardown(test_resctrl_gone_and_back_heals, teardown),
		cmocka_unit_test_teardown(test_resctrl_unmounted_lazily_is_let_go_of, teardown),
		cmocka_unit_test_teardown(test_policy_memory_survives_an_unrelated_reload, teardown),
		cmocka_unit_test_teardown(test_desired_set_with_origins, teardown),
		cmocka_unit_test_teardown(test_partitions_added_one_by_one_hold_linear_memory, teardown),
		cmocka_unit_test_teardown(test_mpamctl_reload_reports, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
