/* The engine composes what its registry offers: these tests hand it registries of their own.
 *
 * - Escalation end to end: the simulated control, its MBWU monitor and the simulator's CPU-quota
 *   actuator behind a recording wrapper. A best-effort partition the MB floor cannot hold under its
 *   target gets its CPU quota lowered through the engine, and the simulated traffic follows.
 * - A new monitor is one table entry: a monitor written here, known to no backend and to no engine
 *   file, is chosen by `monitor = auto` (and by name), opened, given partitions and read every tick. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mmio/mbwu_monitor.h"
#include "backends/sim/sim_ops.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/registry.h"
#include "tests/util/log_capture.h"
#include "tests/util/engine_util.h"

static struct config *load(const struct engine_registry *registry, const char *text)
{
	struct config *config = load_config_for(registry, text);

	assert_non_null(config);
	return config;
}

/* ---- a recording actuator: every call is kept, then handed to the simulator's ---- */

#define CALLS_MAX 256

struct recording {
	struct actuator base;
	struct actuator *inner;
};

static struct {
	size_t opened;
	size_t count;
	struct {
		size_t index;
		unsigned quota;
	} calls[CALLS_MAX];
} record;

static const struct actuator_ops recording_ops;

static int rec_open(const struct config *config, const struct control_shared *shared, struct actuator **ret,
		    struct err *err)
{
	struct recording *r = calloc(1, sizeof(*r));

	if (!r)
		return err_set(err, -ENOMEM, "out of memory");
	int ret_code = actuator_sim_cpu_quota_ops.open(config, shared, &r->inner, err);
	if (ret_code < 0) {
		free(r);
		return ret_code;
	}
	r->base.ops = &recording_ops;
	*ret = &r->base;
	return 0;
}

static void rec_free(struct actuator *a)
{
	struct recording *r = (struct recording *)a;

	actuator_sim_cpu_quota_ops.free(r->inner);
	free(r);
}

static int rec_partition_open(struct actuator *a, size_t index, const struct partition_ref *ref, struct err *err)
{
	record.opened++;
	return actuator_sim_cpu_quota_ops.partition_open(((struct recording *)a)->inner, index, ref, err);
}

static int rec_apply(struct actuator *a, size_t index, const struct actuation *want, struct err *err)
{
	if (record.count < CALLS_MAX) {
		record.calls[record.count].index = index;
		record.calls[record.count].quota = want->cpu_quota_pct;
		record.count++;
	}
	return actuator_sim_cpu_quota_ops.apply(((struct recording *)a)->inner, index, want, err);
}

static const struct actuator_ops recording_ops = {
	.name = "cpu-quota",
	.simulated = true,
	.open = rec_open,
	.free = rec_free,
	.partition_open = rec_partition_open,
	.apply = rec_apply,
};

static const struct control_ops *const sim_controls[] = { &control_sim_ops };
static const struct monitor_ops *const mbwu_monitors[] = { &monitor_mbwu_ops };
static const struct actuator_ops *const recording_actuators[] = { &recording_ops };
static const struct engine_registry escalation_registry = {
	sim_controls, 1, mbwu_monitors, 1, recording_actuators, 1, NULL, 0,
};

/* 10000 MB/s of demand against a 1000 MB/s target: with BWA_WD 3 the MB floor is 12.5% of 20000 MB/s,
 * 2500 MB/s, so only the CPU quota can bring it down. */
static const char escalation_ini[] = "[global]\nbackend = sim\ninterval_ms = 100\nescalate = true\n"
				     "[sim]\nmscs = 1\ncapacity_mbps = 20000\nbwa_wd = 3\nnoise_pct = 0\n"
				     "[partition \"batch\"]\nclass = best-effort\ntarget_mbps = 1000\n"
				     "cgroup = batch.slice\nsim_demand = 10000\n";

static void test_escalation_through_the_engine(void **state)
{
	struct config *config = load(&escalation_registry, escalation_ini);
	struct engine_options opts = { .ticks = 200, .sim_clock = true, .registry = &escalation_registry };
	struct err err = { "" };

	(void)state;
	memset(&record, 0, sizeof(record));
	struct engine *engine = engine_new_or_fail(config, &opts);
	assert_int_equal(engine_run(engine, &err), 0);

	const struct partition_status *s = engine_partition(engine, 0);
	/* The engine opened the partition in the actuator and carried out what the policy decided. */
	assert_int_equal(record.opened, 1);
	assert_true(record.count >= 1);
	assert_int_equal(record.calls[0].index, 0);
	assert_true(record.calls[0].quota > 0);
	unsigned last = record.calls[record.count - 1].quota;
	assert_int_equal(s->cpu_quota_pct, last);
	assert_true(last > 0 && last < 200);
	/* The simulated demand followed the quota: the floor alone would leave 2500 MB/s. */
	printf("batch: CPU quota %u%% after %zu actuations, %.0f MB/s (target 1000)\n", last, record.count, s->mbps);
	assert_true(s->valid);
	assert_true(s->mbps < 1300);
	assert_true(s->mb_max <= 13);
	engine_free(engine);
}

/* ---- a monitor of the test's own: every partition moves 100 MB per 100 ms tick ---- */

struct fixed_monitor {
	struct monitor base;
	size_t partitions;
	bool *added;
	uint64_t last_ns;
	unsigned reads;
};

static const struct monitor_ops fixed_ops;

static bool fixed_available(const struct config *config, const struct control_shared *shared, struct err *why)
{
	(void)config;
	(void)shared;
	(void)why;
	return true;
}

static int fixed_open(const struct config *config, const struct control_shared *shared, struct monitor **ret,
		      struct err *err)
{
	struct fixed_monitor *m = calloc(1, sizeof(*m));

	(void)shared;
	if (m)
		m->added = calloc(config->partition_count + 1, sizeof(*m->added));
	if (!m || !m->added) {
		free(m);
		return err_set(err, -ENOMEM, "out of memory");
	}
	m->base.ops = &fixed_ops;
	m->partitions = config->partition_count;
	*ret = &m->base;
	return 0;
}

static void fixed_free(struct monitor *monitor)
{
	struct fixed_monitor *m = (struct fixed_monitor *)monitor;

	free(m->added);
	free(m);
}

static void fixed_probe(struct monitor *monitor, struct monitor_caps *caps)
{
	(void)monitor;
	memset(caps, 0, sizeof(*caps));
	caps->domain_count = 1;
	snprintf(caps->domains[0].name, sizeof(caps->domains[0].name), "fixed");
	caps->counters = 1;
	caps->counter_bits = 64;
}

static int fixed_add(struct monitor *monitor, size_t index, const struct partition_ref *ref, struct err *err)
{
	struct fixed_monitor *m = (struct fixed_monitor *)monitor;

	(void)ref;
	if (index >= m->partitions)
		return err_set(err, -EINVAL, "index %zu out of range", index);
	m->added[index] = true;
	return 0;
}

static void fixed_remove(struct monitor *monitor, size_t index)
{
	((struct fixed_monitor *)monitor)->added[index] = false;
}

static int fixed_read(struct monitor *monitor, uint64_t now_ns, struct sample *out, size_t stride, struct err *err)
{
	struct fixed_monitor *m = (struct fixed_monitor *)monitor;
	uint64_t elapsed = m->last_ns ? now_ns - m->last_ns : 0;

	(void)err;
	m->last_ns = now_ns;
	m->reads++;
	for (size_t i = 0; i < m->partitions; i++) {
		struct sample *s = &out[i * stride];
		if (!m->added[i] || !elapsed)
			*s = (struct sample){ .state = SAMPLE_INVALID, .reason = "no baseline yet" };
		else
			*s = (struct sample){ .state = SAMPLE_MEASURED,
					      .bytes = elapsed / 100000000u * 100000000u,
					      .elapsed_ns = elapsed };
	}
	return 0;
}

static json_t *fixed_describe(struct monitor *monitor)
{
	return json_pack("{s:i}", "reads", ((struct fixed_monitor *)monitor)->reads);
}

static const struct monitor_ops fixed_ops = {
	.name = "fixed",
	.what = "the test's fixed counters",
	.available = fixed_available,
	.open = fixed_open,
	.free = fixed_free,
	.probe = fixed_probe,
	.add = fixed_add,
	.remove = fixed_remove,
	.read = fixed_read,
	.describe = fixed_describe,
};

static const struct monitor_ops *const fixed_monitors[] = { &fixed_ops };
static const struct engine_registry fixed_registry = { sim_controls, 1, fixed_monitors, 1, NULL, 0, NULL, 0 };

static void run_fixed(const char *monitor_key)
{
	char ini[256];
	snprintf(ini, sizeof(ini),
		 "[global]\nbackend = sim\nmonitor = %s\ninterval_ms = 100\n"
		 "[partition \"a\"]\nsim_demand = 5000\n[partition \"b\"]\nsim_demand = 7000\n",
		 monitor_key);
	struct config *config = load(&fixed_registry, ini);
	struct engine_options opts = { .ticks = 5, .sim_clock = true, .registry = &fixed_registry };
	struct err err = { "" };

	struct engine *engine = engine_new_or_fail(config, &opts);
	assert_int_equal(engine_run(engine, &err), 0);
	for (size_t i = 0; i < 2; i++) {
		const struct partition_status *s = engine_partition(engine, i);
		assert_true(s->open);
		assert_true(s->valid);
		/* 100 MB every 100 ms, whatever the simulator's traffic: the samples are the test monitor's. */
		assert_true(fabs(s->mbps - 1000.0) < 1e-6);
	}
	engine_free(engine);
}

/* The new monitor chosen by monitor = the test's state ("auto" or its name). */
static void test_new_monitor(void **state)
{
	run_fixed(*state);
}

/* The registry also tells the loader which names the monitor key takes. */
static void test_registry_names_the_monitors(void **state)
{
	struct engine_schema schema;
	struct diag_list diags;
	struct config *config = NULL;

	(void)state;
	engine_schema_init(&fixed_registry, &schema);
	diag_list_init(&diags, "test.ini");
	assert_int_equal(config_load_string("[global]\nbackend = sim\nmonitor = mmio\n[partition \"a\"]\n",
					    &schema.schema, NULL, &config, &diags),
			 -EINVAL);
	assert_int_equal(diag_error_count(&diags), 1);
	assert_string_equal(diags.items[0].message, "monitor = mmio: expected one of auto | fixed");
	diag_list_fini(&diags);
}

/* What --help and the engine read of every table of the default registry is there: a new backend
 * without a description would be listed blank. */
static void test_default_registry_tables_complete(void **state)
{
	const struct engine_registry *r = &engine_registry_default;

	(void)state;
	assert_true(r->control_count > 0);
	for (size_t i = 0; i < r->control_count; i++) {
		const struct control_ops *c = r->controls[i];
		assert_non_null(c->name);
		if (!c->description || !*c->description)
			fail_msg("control %s has no description", c->name);
		assert_true(c->open && c->free && c->probe && c->share && c->partition_open && c->partition_close &&
			    c->validate && c->apply && c->describe);
	}
	for (size_t i = 0; i < r->monitor_count; i++) {
		const struct monitor_ops *m = r->monitors[i];
		assert_non_null(m->name);
		if (!m->description || !*m->description || !m->what)
			fail_msg("monitor %s has no description", m->name);
		assert_true(m->available && m->open && m->free && m->probe && m->add && m->remove && m->read &&
			    m->describe);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escalation_through_the_engine),
		{ .name = "test_new_monitor_by_auto", .test_func = test_new_monitor, .initial_state = "auto" },
		{ .name = "test_new_monitor_by_name", .test_func = test_new_monitor, .initial_state = "fixed" },
		cmocka_unit_test(test_registry_names_the_monitors),
		cmocka_unit_test(test_default_registry_tables_complete),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
