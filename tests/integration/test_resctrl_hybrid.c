/* Arm hosts on Linux 7.1: resctrl controls MPAM, but has no bandwidth counters, so mpamd reads the
 * MSCs' MBWU monitors itself, for the PARTID resctrl gave each group, touching monitor registers only.
 *
 * The plant: the emulator's MPAM profile (resctrl, with ctrl_hw_id), simulated MSCs, and between them
 * the part the kernel's MPAM driver plays on a real host: every tick, each group's MB percent is
 * programmed into the MSCs' MBW_MAX for its PARTID. The traffic model then honours those limits. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/mmio/kernel_mpam.h"
#include "backends/mmio/mbwu_monitor.h"
#include "backends/mmio/msc_set.h"
#include "backends/resctrl/resctrl.h"
#include "backends/resctrl/resctrl_ops.h"
#include "core/engine/registry.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/sim_host.h"
#include "core/config/config.h"
#include "core/base/counter.h"
#include "backends/mpam/mpam_regs.h"
#include "tests/util/bus_tap.h"
#include "tests/util/emu_runner.h"
#include "tests/util/testutil.h"
#include "tests/util/log_capture.h"

#define TICK_NS 100000000ull

/* A bus that counts writes to configuration registers (MPAMCFG_*, 0x100..0x7ff and the CPBM/PBM
 * pages), which in monitor-only mode must be none, and to monitor registers, which beside the kernel
 * must be none while probing. */
struct watch_bus {
	struct bus_tap tap;
	unsigned cfg_writes;
	unsigned mon_writes;
};

static bool is_config_register(uint32_t off)
{
	return (off >= MPAMCFG_PART_SEL && off < MSMON_CFG_MON_SEL) || off >= 0x1000;
}

static bool is_monitor_register(uint32_t off)
{
	return off >= MSMON_CFG_MON_SEL && off < 0x1000;
}

static void watch_write(struct bus_tap *t, uint32_t off, uint64_t v, unsigned bytes)
{
	struct watch_bus *w = (struct watch_bus *)t;

	(void)v, (void)bytes;
	w->cfg_writes += is_config_register(off);
	w->mon_writes += is_monitor_register(off);
}

/* The watch itself is owned by the test, which reads cfg_writes after the backend is gone. */
static const struct bus_tap_hooks watch_hooks = { .before_write = watch_write };

/* What the kernel's MPAM driver does with a group's MB percent (Linux 7.1's percent_to_mbw_max
 * rounds to the nearest band; mpamd's own driver would round down). */
static void kernel_driver_sync(struct emu *emu, struct msc_model *model, const char *group, uint16_t partid)
{
	char path[512];
	struct schemata s;
	struct err err;
	uint64_t pct = 100;

	snprintf(path, sizeof(path), "%s/%s/schemata", emu_root(emu), group);
	char *text = read_text_file(path);
	assert_non_null(text);
	assert_int_equal(resctrl_parse_schemata(text, &s, &err), 0);
	free(text);
	assert_true(schemata_value(schemata_find(&s, "MB"), 0, &pct));
	unsigned wd = msc_model_params(model)->bwa_wd;
	uint32_t v = (uint32_t)((pct * (1u << wd) + 50) / 100);
	uint32_t field = (v ? v - 1 : 0) << (16 - wd);
	assert_int_equal(msc_model_write32(model, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, partid)), 0);
	assert_int_equal(msc_model_write32(model, MPAMCFG_MBW_MAX, field), 0);
}

static void run_hybrid(const char *monitor)
{
	char cfg_path[] = "/tmp/mpamd-hybrid-XXXXXX";
	const char *body = "[sim]\nmscs = 1\ncapacity_mbps = 20000\nmonitors = 8\nbwa_wd = 5\npartid_max = 31\n"
			   "[msc \"l3\"]\nbase = 0x7f000000\nsize = 0x4000\n"
			   "[partition \"web\"]\npartid = 1\nsim_demand = 6000\n"
			   "[partition \"batch\"]\npartid = 2\nmb_max = 40\nsim_demand = 30000\n";
	struct emu *emu;
	struct config *config = NULL;
	struct diag_list diags;
	struct err err = { "" };

	int fd = mkstemp(cfg_path);
	dprintf(fd, "[global]\ninterval_ms = 100\n%s", body);
	close(fd);
	/* Mounted with -o debug: groups show their PARTID in ctrl_hw_id. */
	assert_int_equal(emu_start("mpam", cfg_path, (const char *const[]){ "--debug", NULL }, &emu), 0);
	fd = open(cfg_path, O_WRONLY | O_TRUNC);
	dprintf(fd,
		"[global]\nbackend = resctrl\nmonitor = %s\ninterval_ms = 100\nresctrl_root = %s\n"
		"mmio_beside_kernel = yes\n%s",
		monitor, emu_root(emu), body);
	close(fd);
	diag_list_init(&diags, cfg_path);
	assert_int_equal(config_load_path(cfg_path, engine_default_schema(), NULL, &config, &diags), 0);
	diag_list_fini(&diags);
	unlink(cfg_path);

	/* The simulated MSC, behind a bus that watches for configuration writes. */
	struct sim_host *host;
	uint64_t now = 1000 * TICK_NS;
	assert_int_equal(sim_host_new(config, now, &host, &err), 0);
	struct watch_bus *watch = calloc(1, sizeof(*watch));
	struct msc_bus *inner;
	assert_int_equal(bus_sim_new(sim_host_msc(host, 0), 0x7f000000, &inner), 0);
	struct msc_bus *buses[] = { bus_tap_over(&watch->tap, inner, &watch_hooks) };
	const char *names[] = { "l3" };

	/* The composition the engine makes of backend = resctrl, monitor = mmio, with the MSC set the
	 * monitor would map from /dev/mem replaced by the watched simulated one. */
	struct clock clock;
	struct control *control;
	struct control_shared shared = { .clock = &clock };
	struct monitor *mon;
	clock_init_monotonic(&clock);
	if (control_resctrl_ops.open(config, &clock, &control, &err) < 0)
		fail_msg("control: %s", err.text);
	control_resctrl_ops.share(control, &shared);
	/* What the monitor decides beside resctrl, with the operator's opt-in. */
	struct msc_probe_opts access = { .monitor_only = true };
	if (kernel_mpam_check(config, true, "/nonexistent-sysfs", KERNEL_MPAM_MONITORS, &access, &err) < 0)
		fail_msg("beside the kernel: %s", err.text);
	assert_true(access.beside_kernel);
	if (msc_set_new(buses, names, 1, &access, &shared.mscs, &err) < 0)
		fail_msg("msc set: %s", err.text);
	/* Probing beside the kernel writes no monitor: the kernel may be using any of them. */
	assert_int_equal(watch->mon_writes, 0);
	assert_int_equal(shared.mscs->mscs[0].caps.nrdy, MSC_NRDY_NOT_PROBED);
	if (monitor_mbwu_ops.open(config, &shared, &mon, &err) < 0)
		fail_msg("monitor: %s", err.text);

	struct monitor_caps caps;
	monitor_mbwu_ops.probe(mon, &caps);
	assert_int_equal(caps.domain_count, 1);
	const char *groups[] = { "mpamd-web", "mpamd-batch" };
	for (size_t i = 0; i < 2; i++) {
		const struct partition_config *p = &config->partitions[i];
		struct partition_limits want = { .mb_max = p->goals.mb_max }, eff;
		struct partition_ref ref;
		assert_int_equal(control_resctrl_ops.partition_open(control, i, p, &ref, &err), 0);
		assert_int_equal(monitor_mbwu_ops.add(mon, i, &ref, &err), 0);
		assert_int_equal(control_resctrl_ops.apply(control, i, &want, &eff, &err), 0);
	}
	struct sample samples[2];
	double batch_total = 0;
	int batch_count = 0;
	for (int t = 0; t < 30; t++) {
		for (size_t i = 0; i < 2; i++)
			kernel_driver_sync(emu, sim_host_msc(host, 0), groups[i], config->partitions[i].partid);
		now += TICK_NS;
		sim_host_advance(host, now);
		assert_int_equal(monitor_mbwu_ops.read(mon, now, samples, 1, &err), 0);
		if (t < 3)
			continue;
		for (size_t i = 0; i < 2; i++) {
			assert_int_equal(samples[i].state, SAMPLE_MEASURED);
			double mbps = counter_rate_mbps(samples[i].bytes, samples[i].elapsed_ns);
			double truth = sim_host_truth_mbps(host, i);
			assert_true(fabs(mbps - truth) <= 0.01 * truth);
		}
		batch_total += counter_rate_mbps(samples[1].bytes, samples[1].elapsed_ns);
		batch_count++;
	}
	/* The kernel writes MBW_MAX's field alone: batch's 40% through resctrl is a soft limit (HARDLIM
	 * clear), and with web at 6000 of 20000 MB/s nobody else wants the rest: batch gets all of it. */
	double batch = batch_total / batch_count;
	printf("batch averages %.0f MB/s under a soft 40%% resctrl limit\n", batch);
	assert_true(batch > 13500 && batch < 14300);
	assert_true(fabs(sim_host_truth_mbps(host, 0) - 6000) < 60);
	/* The highest-numbered monitors (8 here) were taken, away from where Linux starts. */
	uint32_t ctl = 0;
	assert_int_equal(msc_model_write32(sim_host_msc(host, 0), MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 7)), 0);
	assert_int_equal(msc_model_read32(sim_host_msc(host, 0), MSMON_CFG_MBWU_CTL, &ctl), 0);
	assert_true(ctl & MSMON_CFG_CTL_EN);
	assert_int_equal(msc_model_write32(sim_host_msc(host, 0), MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_read32(sim_host_msc(host, 0), MSMON_CFG_MBWU_CTL, &ctl), 0);
	assert_false(ctl & MSMON_CFG_CTL_EN);
	monitor_mbwu_ops.free(mon);
	msc_set_free(shared.mscs);
	control_resctrl_ops.free(control);
	/* Monitor registers only: resctrl's controls were never written by mpamd. */
	assert_int_equal(watch->cfg_writes, 0);
	assert_int_equal(msc_model_error_count(sim_host_msc(host, 0)), 0);
	free(watch);
	sim_host_free(host);
	config_free(config);
	assert_int_equal(emu_stop(emu), 0);
}

/* monitor = the test's state: "mmio" by name, or "auto" (resctrl has no MBM counters and [msc]
 * sections exist, so the MSCs' monitors are used). */
static void test_monitor(void **state)
{
	run_hybrid(*state);
}

/* Without mmio_beside_kernel, the MBWU monitor neither offers itself to monitor = auto beside resctrl
 * nor opens, and says why before any window is mapped. */
static void test_refused_without_the_opt_in(void **state)
{
	const char *text = "[global]\nbackend = resctrl\nmonitor = mmio\n"
			   "[msc \"l3\"]\nbase = 0x7f000000\nsize = 0x4000\n[partition \"web\"]\npartid = 1\n";
	struct diag_list diags;
	struct config *config = NULL;
	struct err err = { "" };
	struct monitor *mon = NULL;
	/* The monitor sees resctrl as the control; no resctrl tree is needed to refuse. */
	struct control_shared shared = { .resctrl = (struct resctrl_fs *)&err };

	(void)state;
	diag_list_init(&diags, "test");
	assert_int_equal(config_load_string(text, engine_default_schema(), NULL, &config, &diags), 0);
	diag_list_fini(&diags);
	assert_false(monitor_mbwu_ops.available(config, &shared, &err));
	assert_non_null(strstr(err.text, "MMIO monitoring refused: resctrl is the control"));
	assert_int_equal(monitor_mbwu_ops.open(config, &shared, &mon, &err), -EBUSY);
	assert_null(mon);
	assert_non_null(strstr(err.text, "MSMON_CFG_MON_SEL under its own lock"));
	assert_null(strstr(err.text, "/dev/mem"));
	config_free(config);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ .name = "test_monitor_mmio", .test_func = test_monitor, .initial_state = "mmio" },
		{ .name = "test_monitor_auto_picks_mmio", .test_func = test_monitor, .initial_state = "auto" },
		cmocka_unit_test(test_refused_without_the_opt_in),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
