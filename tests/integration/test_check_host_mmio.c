/* The MMIO control's plan over simulated MSCs behind a bus that logs every access: planning touches
 * no register at all, and what it lists is, write for write, what apply then puts on the bus; an
 * MSC opened to plan is probed without disturbing a running owner and refuses to program. Then
 * mpamctl check-config --host on backend = sim: the register values, the rounding to MBW_MAX bands,
 * refusals and exit codes. */
#include <errno.h>
#include <fcntl.h>
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

#include "backends/mmio/mmio_control.h"
#include "backends/mmio/msc_set.h"
#include "backends/mpam/mpam_regs.h"
#include "core/base/ladder.h"
#include "backends/sim/msc_model.h"
#include "core/config/config.h"
#include "core/engine/registry.h"
#include "tests/util/bus_tap.h"
#include "tests/util/testutil.h"
#include "tests/util/log_capture.h"

#define LOG_MAX 512
#define BWA_WD	5

/* A rung of the simulated MSCs' MBW_MAX (the one nearest pct) or MBW_MIN (the one at or above it). */
struct rung {
	double pct;
	uint32_t field;
};

static struct rung rung_of(double pct, bool min)
{
	struct ladder l;

	if (min)
		ladder_mpam_min(BWA_WD, &l);
	else
		ladder_mpam_max(BWA_WD, &l);
	uint32_t r = ladder_snap(&l, pct, min ? LADDER_UP : LADDER_NEAREST);
	return (struct rung){ ladder_pct(&l, r), ladder_value(&l, r) };
}

static struct rung max_rung(double pct)
{
	return rung_of(pct, false);
}

static struct rung min_rung(double pct)
{
	return rung_of(pct, true);
}

/* ---- a bus that logs ---- */

struct access {
	uint32_t offset, value;
};

struct log_bus {
	struct bus_tap tap;
	unsigned reads;
	struct access writes[LOG_MAX];
	unsigned write_count;
};

static void log_read(struct bus_tap *t, uint32_t off, int r, uint64_t *v, unsigned bytes)
{
	(void)off, (void)r, (void)v, (void)bytes;
	((struct log_bus *)t)->reads++;
}

static void log_write(struct bus_tap *t, uint32_t off, uint64_t v, unsigned bytes)
{
	struct log_bus *l = (struct log_bus *)t;

	if (bytes == 8) {
		l->write_count += 2; /* the driver never does this; any use shows */
		return;
	}
	if (l->write_count < LOG_MAX)
		l->writes[l->write_count] = (struct access){ off, (uint32_t)v };
	l->write_count++;
}

/* The log is the test's: it is read after the MSC set is gone. */
static const struct bus_tap_hooks log_hooks = { .after_read = log_read, .before_write = log_write };

static void log_reset(struct log_bus *l)
{
	l->reads = 0;
	l->write_count = 0;
}

/* ---- two MSCs: mem0 with two RIS and MBW_MIN, mem1 without MBW_MIN and with an 8-bit CPBM ---- */

struct rig {
	struct msc_model *models[2];
	struct log_bus buses[2];
	struct msc_set *set;
	struct mmio_limits *limits;
	struct config *config;
};

static const char *const names[] = { "mem0", "mem1" };

/* The MSCs' models, and buses that log over them (not probed yet). */
static void rig_models(struct rig *rig, struct msc_bus **buses)
{
	struct msc_model_params p[2];

	memset(rig, 0, sizeof(*rig));
	for (int i = 0; i < 2; i++) {
		msc_model_params_default(&p[i]);
		p[i].bwa_wd = BWA_WD;
		p[i].partid_max = 31;
	}
	p[0].has_ris = true;
	p[0].ris_max = 1;
	p[1].has_min = false;
	p[1].cpbm_wd = 8;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(msc_model_new(&p[i], &rig->models[i]), 0);
		struct msc_bus *inner;
		assert_int_equal(bus_sim_new(rig->models[i], 0x7f000000 + i * 0x4000u, &inner), 0);
		buses[i] = bus_tap_over(&rig->buses[i].tap, inner, &log_hooks);
	}
}

/* The MSCs probed as mpamd's own driver probes them, and a mmio config naming them. */
static void rig_start(struct rig *rig, const char *partitions)
{
	struct msc_bus *buses[2];
	struct err err = { "" };
	char text[2048];
	struct diag_list diags;

	rig_models(rig, buses);
	const struct msc_probe_opts owner = { 0 };
	if (msc_set_new(buses, names, 2, &owner, &rig->set, &err) < 0)
		fail_msg("msc set: %s", err.text);
	snprintf(text, sizeof(text),
		 "[global]\nbackend = mmio\n[msc \"mem0\"]\nbase = 0x7f000000\nsize = 0x4000\n"
		 "[msc \"mem1\"]\nbase = 0x7f004000\nsize = 0x4000\n%s",
		 partitions);
	diag_list_init(&diags, "test.ini");
	if (config_load_string(text, engine_default_schema(), NULL, &rig->config, &diags) < 0) {
		diag_print(&diags, stderr);
		fail();
	}
	diag_list_fini(&diags);
	assert_int_equal(mmio_limits_new(rig->set, rig->config->partition_count, &rig->limits, &err), 0);
	for (int i = 0; i < 2; i++)
		log_reset(&rig->buses[i]);
}

static void rig_stop(struct rig *rig)
{
	mmio_limits_free(rig->limits);
	msc_set_free(rig->set);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(msc_model_error_count(rig->models[i]), 0);
		msc_model_free(rig->models[i]);
	}
	config_free(rig->config);
}

static struct partition_limits limits_of(const struct partition_config *p)
{
	return (struct partition_limits){ .mb_max = p->goals.mb_max,
					  .mb_min = p->goals.mb_min,
					  .l3_cbm = p->goals.l3_cbm };
}

/* The register a planned write names, as an offset. */
static uint32_t offset_of(const char *what)
{
	static const struct {
		const char *name;
		uint32_t offset;
	} regs[] = {
		{ "MPAMCFG_MBW_MAX", MPAMCFG_MBW_MAX },	  { "MPAMCFG_MBW_MIN", MPAMCFG_MBW_MIN },
		{ "MPAMCFG_MBW_PROP", MPAMCFG_MBW_PROP }, { "MPAMCFG_CMAX", MPAMCFG_CMAX },
		{ "MPAMCFG_CMIN", MPAMCFG_CMIN },	  { "MPAMCFG_CASSOC", MPAMCFG_CASSOC },
		{ "MPAMCFG_PRI", MPAMCFG_PRI },		  { "MPAMCFG_INTPARTID", MPAMCFG_INTPARTID },
	};
	unsigned n;

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(what, regs[i].name))
			return regs[i].offset;
	if (sscanf(what, "MPAMCFG_CPBM%u", &n) == 1)
		return MPAMCFG_CPBM(n);
	if (sscanf(what, "MPAMCFG_MBW_PBM%u", &n) == 1)
		return MPAMCFG_MBW_PBM(n);
	fail_msg("unknown register %s", what);
	return 0;
}

/* The MPAMCFG_PART_SEL apply writes before a planned write: the intPARTID (INTERNAL set) for a
 * configuration register of an MSC that narrows PARTIDs, else the PARTID. */
static uint32_t part_sel_of(json_t *w)
{
	unsigned ris = (unsigned)json_integer_value(json_object_get(w, "ris"));
	json_t *intpartid = json_object_get(w, "intpartid");

	if (intpartid)
		return mpamcfg_int_part_sel(ris, (uint16_t)json_integer_value(intpartid));
	return mpamcfg_part_sel(ris, (uint16_t)json_integer_value(json_object_get(w, "partid")));
}

static int msc_index(const char *name)
{
	for (int i = 0; i < 2; i++)
		if (!strcmp(names[i], name))
			return i;
	fail_msg("unknown msc %s", name);
	return -1;
}

/* ---- planning touches nothing, and is what apply does ---- */

static void test_plan_touches_no_register(void **state)
{
	struct rig rig;
	struct err err = { "" };

	(void)state;
	rig_start(&rig, "[partition \"web\"]\npartid = 3\nmb_max = 30\nmb_min = 20\nl3_cbm = 0xf0\n"
			"[partition \"far\"]\npartid = 40\n"
			"[partition \"wide\"]\npartid = 5\nl3_cbm = 0x1ff\n");
	for (size_t i = 0; i < rig.config->partition_count; i++) {
		const struct partition_config *p = &rig.config->partitions[i];
		struct partition_limits want = limits_of(p);
		struct control_plan plan = { 0 };
		if (mmio_limits_validate(rig.limits, &want, &err) == 0)
			(void)mmio_limits_plan(rig.limits, p, &want, &plan, &err);
		control_plan_fini(&plan);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rig.buses[i].reads, 0);
		assert_int_equal(rig.buses[i].write_count, 0);
	}
	rig_stop(&rig);
}

static void test_plan_is_what_apply_writes(void **state)
{
	struct rig rig;
	struct err err = { "" };

	(void)state;
	rig_start(&rig, "[partition \"web\"]\npartid = 3\nmb_max = 30\nmb_min = 20\nl3_cbm = 0xf0\n");
	const struct partition_config *p = &rig.config->partitions[0];
	struct partition_limits want = limits_of(p), eff;
	struct control_plan plan = { 0 };
	struct partition_ref ref;
	assert_int_equal(mmio_limits_validate(rig.limits, &want, &err), 0);
	assert_int_equal(mmio_limits_plan(rig.limits, p, &want, &plan, &err), 0);
	assert_int_equal(mmio_limits_partition_open(rig.limits, 0, p, &ref, &err), 0);
	assert_int_equal(mmio_limits_apply(rig.limits, 0, &want, &eff, &err), 0);

	/* apply selects (PART_SEL) and writes each control; the plan lists the control writes. */
	unsigned next[2] = { 0, 0 }, planned[2] = { 0, 0 };
	size_t i;
	json_t *w;
	json_array_foreach(plan.writes, i, w) {
		int m = msc_index(json_string_value(json_object_get(w, "msc")));
		struct log_bus *bus = &rig.buses[m];
		uint32_t value = (uint32_t)strtoul(json_string_value(json_object_get(w, "value")), NULL, 16);
		assert_true(next[m] + 1 < bus->write_count);
		assert_int_equal(bus->writes[next[m]].offset, MPAMCFG_PART_SEL);
		assert_int_equal(bus->writes[next[m]].value, part_sel_of(w));
		assert_int_equal(bus->writes[next[m] + 1].offset,
				 offset_of(json_string_value(json_object_get(w, "what"))));
		assert_int_equal(bus->writes[next[m] + 1].value, value);
		next[m] += 2;
		planned[m]++;
	}
	/* Nothing else was written, and both RIS of mem0 and mem1's single one are there. */
	for (int m = 0; m < 2; m++)
		assert_int_equal(next[m], rig.buses[m].write_count);
	/* Per RIS: the takeover's CPBM0, MBW_MIN and MBW_MAX reset, then MBW_MAX, MBW_MIN and CPBM0. */
	assert_int_equal(planned[0], 2 * 6);
	assert_int_equal(planned[1], 4); /* the same without MBW_MIN there */
	assert_int_equal(plan.effective.mb_max, eff.mb_max);
	assert_int_equal(plan.effective.mb_min, eff.mb_min);
	assert_int_equal(plan.effective.l3_cbm, eff.l3_cbm);
	/* The MBW_MAX band nearest 30%: 31.25%, band 9 of 32. */
	assert_true(eff.mb_max == max_rung(30).pct);
	assert_int_equal(msc_model_mbw_max(rig.models[1], 0, 3), max_rung(30).field);
	control_plan_fini(&plan);
	rig_stop(&rig);
}

static void test_refusals(void **state)
{
	struct rig rig;
	struct err err = { "" };
	struct control_plan plan = { 0 };
	struct partition_ref ref;

	(void)state;
	rig_start(&rig, "[partition \"far\"]\npartid = 40\n[partition \"wide\"]\npartid = 5\nl3_cbm = 0x1ff\n");
	/* A PARTID above PARTID_MAX: refused by the plan as partition_open refuses it. */
	const struct partition_config *far = &rig.config->partitions[0];
	struct partition_limits want = limits_of(far);
	assert_int_equal(mmio_limits_plan(rig.limits, far, &want, &plan, &err), -ERANGE);
	assert_non_null(strstr(err.text, "partid 40 is above PARTID_MAX 31"));
	assert_null(plan.writes);
	assert_int_equal(mmio_limits_partition_open(rig.limits, 0, far, &ref, &err), -ERANGE);
	/* A mask wider than the narrowest CPBM. */
	want = limits_of(&rig.config->partitions[1]);
	assert_int_equal(mmio_limits_validate(rig.limits, &want, &err), -ERANGE);
	assert_non_null(strstr(err.text, "outside the 8 cache portions"));
	rig_stop(&rig);
}

/* ---- opened to plan: the probe leaves what a running mpamd relies on alone ---- */

static void test_plan_only_probe(void **state)
{
	struct rig rig;
	struct msc_bus *buses[2];
	struct err err = { "" };
	uint32_t sel;

	(void)state;
	rig_models(&rig, buses);
	/* What a running owner left: mem0's PART_SEL on RIS 1, PARTID 7; an error on mem1. */
	assert_int_equal(msc_model_write32(rig.models[0], MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 7)), 0);
	msc_model_count(rig.models[1], 0, 60, 0, 1, 0); /* PARTID 60 > PARTID_MAX: ESR */
	uint64_t esr = msc_model_esr(rig.models[1]);
	assert_true(esr != 0);
	const struct msc_probe_opts plan_only = { .plan_only = true };
	assert_int_equal(msc_set_new(buses, names, 2, &plan_only, &rig.set, &err), 0);

	/* mem1 (no RIS): not one write. mem0: only PART_SEL, to read each RIS, then put back. */
	assert_int_equal(rig.buses[1].write_count, 0);
	assert_true(rig.buses[0].write_count > 0);
	for (unsigned i = 0; i < rig.buses[0].write_count; i++)
		assert_int_equal(rig.buses[0].writes[i].offset, MPAMCFG_PART_SEL);
	assert_int_equal(msc_model_read32(rig.models[0], MPAMCFG_PART_SEL, &sel), 0);
	assert_int_equal(sel, mpamcfg_part_sel(1, 7));
	assert_int_equal(msc_model_esr(rig.models[1]), esr);
	assert_int_equal(rig.set->mscs[1].caps.stale_esr, esr);
	/* And it saw all there is to plan: both RIS of mem0, their controls. */
	assert_int_equal(rig.set->mscs[0].caps.ris_count, 2);
	for (unsigned r = 0; r < 2; r++)
		assert_int_equal(rig.set->mscs[0].caps.ris[r].bwa_wd, BWA_WD);

	/* Such a set plans, and refuses to program. */
	struct partition_config p = { .name = "web", .partid = 3, .has_partid = true, .goals.mb_max = 50 };
	struct partition_limits want = limits_of(&p), eff;
	struct control_plan plan = { 0 };
	assert_int_equal(mmio_limits_new(rig.set, 1, &rig.limits, &err), 0);
	for (int i = 0; i < 2; i++)
		log_reset(&rig.buses[i]);
	assert_int_equal(mmio_limits_plan(rig.limits, &p, &want, &plan, &err), 0);
	assert_true(json_array_size(plan.writes) > 0);
	control_plan_fini(&plan);
	struct partition_ref ref;
	assert_int_equal(mmio_limits_partition_open(rig.limits, 0, &p, &ref, &err), 0);
	assert_int_equal(mmio_limits_apply(rig.limits, 0, &want, &eff, &err), -EPERM);
	assert_non_null(strstr(err.text, "opened to plan only"));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rig.buses[i].reads, 0);
		assert_int_equal(rig.buses[i].write_count, 0);
	}
	mmio_limits_free(rig.limits);
	msc_set_free(rig.set);
	for (int i = 0; i < 2; i++)
		msc_model_free(rig.models[i]);
}

/* ---- mpamctl check-config --host on backend = sim ---- */

static char *write_config_of(unsigned mscs, const char *partitions)
{
	char *path = strdup("/tmp/mpamd-check-host-sim-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	dprintf(fd, "[global]\nbackend = sim\n[sim]\nmscs = %u\nbwa_wd = %d\npartid_max = 7\n%s", mscs, BWA_WD,
		partitions);
	close(fd);
	return path;
}

static char *write_sim_config(const char *partitions)
{
	return write_config_of(1, partitions);
}

static struct run_result mpamctl(const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *argv[] = { MPAMCTL, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

/* Fails the test unless `out` holds the text printf(fmt, ...), saying what it holds instead. */
__attribute__((format(printf, 2, 3))) static void expect_says(const char *out, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!strstr(out, text))
		fail_msg("no '%s' in:\n%s", text, out);
}

static void test_cli_sim(void **state)
{
	char *path = write_sim_config("[partition \"web\"]\npartid = 1\nmb_max = 30\nmb_min = 20\nl3_cbm = 0xff\n"
				      "[partition \"low\"]\npartid = 2\nmb_max = 1\n");
	struct msc_model_params defaults;

	(void)state;
	msc_model_params_default(&defaults);
	assert_int_equal(defaults.max_lim, MPAM_MAX_LIM_EITHER); /* HARDLIM is mb_max_mode's: soft */
	struct run_result r = mpamctl("check-config", "--host", path, NULL);
	if (r.exit_code != 0)
		fail_msg("exit %d:\n%s%s", r.exit_code, r.out, r.err);
	expect_says(r.out,
		    "partition web: ok\n  mb_max 30%% -> %g%% (nearest setting of 1/32 steps (MBW_MAX, BWA_WD 5))\n"
		    "  mb_min 20%% -> %g%% (next setting of 1/32 steps (MBW_MIN, BWA_WD 5))\n",
		    max_rung(30).pct, min_rung(20).pct);
	expect_says(r.out, "  msc sim0 RIS 0 PARTID 1: MPAMCFG_MBW_MAX = 0x%08x\n", max_rung(30).field);
	expect_says(r.out, "  msc sim0 RIS 0 PARTID 1: MPAMCFG_MBW_MIN = 0x%08x\n", min_rung(20).field);
	assert_non_null(strstr(r.out, "  msc sim0 RIS 0 PARTID 1: MPAMCFG_CPBM0 = 0x000000ff\n"));
	double lowest = max_rung(0).pct;
	expect_says(r.out, "partition low: ok\n  mb_max 1%% -> %g%% (below the lowest setting, %g%%)\n", lowest,
		    lowest);
	assert_non_null(strstr(r.out, "result: the host can hold every partition; nothing was written\n"));
	run_result_fini(&r);
	unlink(path);
	free(path);
}

static void test_cli_sim_refused_and_json(void **state)
{
	/* (A PARTID above partid_max is the simulator's config error; the MMIO one is tested above.) */
	char *path = write_sim_config(
		"[partition \"web\"]\npartid = 1\n[partition \"wide\"]\npartid = 2\nl3_cbm = 0x1ffff\n");
	json_error_t error;

	(void)state;
	struct run_result r = mpamctl("check-config", "--host", "--json", path);
	assert_int_equal(r.exit_code, 1);
	json_t *root = json_loads(r.out, 0, &error);
	assert_non_null(root);
	json_t *host = json_object_get(root, "host");
	assert_non_null(host);
	assert_false(json_is_true(json_object_get(host, "can_hold")));
	json_t *wide = json_array_get(json_object_get(host, "partitions"), 1);
	assert_string_equal(json_string_value(json_object_get(wide, "verdict")), "refused");
	assert_non_null(strstr(json_string_value(json_object_get(wide, "reason")), "outside the 16 cache portions"));
	json_t *web = json_array_get(json_object_get(host, "partitions"), 0);
	/* The takeover comes first: the cache portions to all ones. */
	json_t *first = json_array_get(json_object_get(web, "writes"), 0);
	assert_string_equal(json_string_value(json_object_get(first, "what")), "MPAMCFG_CPBM0");
	assert_string_equal(json_string_value(json_object_get(first, "value")), "0x0000ffff");
	assert_string_equal(json_string_value(json_object_get(first, "msc")), "sim0");
	assert_int_equal(json_integer_value(json_object_get(first, "partid")), 1);
	json_decref(root);
	run_result_fini(&r);

	/* The text says which partition and why. */
	r = mpamctl("check-config", "--host", path, NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(
		strstr(r.out, "partition wide: refused: l3_cbm 0x1ffff has bits outside the 16 cache portions"));
	assert_non_null(strstr(r.out, "result: refused: 1 of 2 partitions; nothing was written"));
	run_result_fini(&r);
	unlink(path);
	free(path);
}

/* Per-domain limits on two simulated MSCs: each MSC gets its own, rounded each on its own; a domain
 * the host does not have is refused, naming those it has. */
static void test_cli_per_domain(void **state)
{
	char *path = write_config_of(2, "[partition \"web\"]\npartid = 1\nmb_max = 0=30\n"
					"[partition \"odd\"]\npartid = 2\nmb_max = 50,2=20\n");

	(void)state;
	struct run_result r = mpamctl("check-config", "--host", path, NULL);
	assert_int_equal(r.exit_code, 1);
	expect_says(r.out,
		    "partition web: ok\n  mb_max 30%% -> %g%% (nearest setting of 1/32 steps (MBW_MAX, BWA_WD 5)) on "
		    "domain 0\n",
		    max_rung(30).pct);
	expect_says(r.out, "  msc sim0 RIS 0 PARTID 1: MPAMCFG_MBW_MAX = 0x%08x\n", max_rung(30).field);
	expect_says(r.out, "  msc sim1 RIS 0 PARTID 1: MPAMCFG_MBW_MAX = 0x%08x\n", max_rung(100).field);
	assert_non_null(strstr(r.out, "partition odd: refused: mb_max names domain 2, which this host does not have "
				      "(its domains: 0, 1)"));
	run_result_fini(&r);
	unlink(path);
	free(path);
}

/* The plan says what kind of limit each MSC's mb_max is, and why, for a partition whose mb_max can
 * go below 100%; and that the PARTID is taken over first. */
static void test_cli_limit_kind(void **state)
{
	static const struct {
		const char *mode, *max_lim, *says;
	} cases[] = {
		{ "soft", "either",
		  "msc sim0: mb_max is a soft limit (mb_max_mode = soft; MAX_LIM lets software choose): idle "
		  "bandwidth above it stays usable\n" },
		{ "hard", "either",
		  "msc sim0: mb_max is a hard limit (mb_max_mode = hard; MAX_LIM lets software choose)\n" },
		{ "soft", "hard",
		  "msc sim0: mb_max is a hard limit (MPAMF_MBW_IDR.MAX_LIM is hard only, whatever mb_max_mode "
		  "says)\n" },
	};
	char path[] = "/tmp/mpamd-check-host-kind-XXXXXX";

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		dprintf(fd,
			"[global]\nbackend = sim\nmb_max_mode = %s\n[sim]\nmax_lim = %s\n"
			"[partition \"t\"]\npartid = 1\ntarget_mbps = 3000\n",
			cases[i].mode, cases[i].max_lim);
		close(fd);
		struct run_result r = mpamctl("check-config", "--host", path, NULL);
		assert_int_equal(r.exit_code, 0);
		if (!strstr(r.out, cases[i].says))
			fail_msg("no '%s' in:\n%s", cases[i].says, r.out);
		assert_non_null(strstr(r.out, "msc sim0: PARTID 1 is taken over first: every control it has is "
					      "written to its reset value before the limits\n"));
		run_result_fini(&r);
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}

static void test_cli_usage(void **state)
{
	(void)state;
	struct run_result r = mpamctl("check-config", "--host", NULL, NULL);
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
	r = mpamctl("check-config", "--hots", "x.ini", NULL);
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
	r = mpamctl("check-config", "--help", NULL, NULL);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "--host"));
	run_result_fini(&r);
	/* An invalid file is reported as without --host, and nothing is probed. */
	char *path = write_sim_config("[partition \"web\"]\nmb_mx = 3\n");
	r = mpamctl("check-config", "--host", path, NULL);
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "did you mean 'mb_max'"));
	run_result_fini(&r);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_touches_no_register),
		cmocka_unit_test(test_plan_is_what_apply_writes),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_plan_only_probe),
		cmocka_unit_test(test_cli_sim),
		cmocka_unit_test(test_cli_sim_refused_and_json),
		cmocka_unit_test(test_cli_per_domain),
		cmocka_unit_test(test_cli_limit_kind),
		cmocka_unit_test(test_cli_usage),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
