/* The MMIO driver (backends/mmio) taking PARTIDs over, on MSCs that narrow PARTIDs, and with soft or
 * hard MBW_MAX limits, against the register model (backends/sim): what it finds and leaves is read
 * back through the register interface. Every rig ends by checking that the model raised no error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mmio/mmio_control.h"
#include "backends/mmio/msc.h"
#include "backends/mmio/msc_set.h"
#include "backends/mpam/mpam_regs.h"
#include "core/base/ladder.h"
#include "backends/sim/msc_model.h"
#include "core/base/log.h"
#include "core/config/model.h"
#include "tests/util/log_capture.h"
#include "tests/util/mbwu_rig.h"
#include "tests/util/msc_io.h"

/* The MBW_MAX field of the rung nearest pct, or the MBW_MIN field of the rung at or above it. */
static uint16_t rung_field(double pct, unsigned bwa_wd, bool min)
{
	struct ladder l;

	if (min)
		ladder_mpam_min(bwa_wd, &l);
	else
		ladder_mpam_max(bwa_wd, &l);
	return (uint16_t)ladder_value(&l, ladder_snap(&l, pct, min ? LADDER_UP : LADDER_NEAREST));
}

static void rig_setup(struct mbwu_rig *rig, const struct msc_model_params *params)
{
	mbwu_rig_setup(rig, params, 0, &(struct msc_probe_opts){ 0 });
}

static uint32_t reg_of(struct msc_model *m, uint32_t part_sel, uint32_t offset)
{
	uint32_t v = 0xDEADBEEF;

	assert_int_equal(msc_model_write32(m, MPAMCFG_PART_SEL, part_sel), 0);
	assert_int_equal(msc_model_read32(m, offset, &v), 0);
	return v;
}

static void reg_set(struct msc_model *m, uint32_t part_sel, uint32_t offset, uint32_t value)
{
	assert_int_equal(msc_model_write32(m, MPAMCFG_PART_SEL, part_sel), 0);
	assert_int_equal(msc_model_write32(m, offset, value), 0);
}

/* One MSC behind the MMIO control, as mpamd opens it. */
struct control_rig {
	struct msc_model *model;
	struct msc_set *set;
	struct mmio_limits *limits;
};

static void control_open(struct control_rig *c, const struct msc_model_params *p,
			 void (*before_probe)(struct msc_model *))
{
	struct msc_bus *bus;
	struct err err = { "" };
	const char *name = "mem0";

	assert_int_equal(msc_model_new(p, &c->model), 0);
	if (before_probe)
		before_probe(c->model);
	assert_int_equal(bus_sim_new(c->model, 0x1000000, &bus), 0);
	assert_int_equal(msc_set_new(&bus, &name, 1, &(struct msc_probe_opts){ 0 }, &c->set, &err), 0);
	assert_int_equal(mmio_limits_new(c->set, 2, &c->limits, &err), 0);
}

/* Closes it, checking that the MSC raised no error. */
static void control_close(struct control_rig *c)
{
	assert_true(msc_model_esr(c->model) == 0);
	assert_true(msc_model_error_count(c->model) == 0);
	mmio_limits_free(c->limits);
	msc_set_free(c->set);
	msc_model_free(c->model);
}

static struct partition_config partition_with(uint16_t partid)
{
	struct partition_config p;

	partition_config_defaults(&p);
	p.partid = partid;
	p.has_partid = true;
	return p;
}

/* ---------------------------------------------------------------- probe */

static void test_probe_reads_every_control(void **state)
{
	struct msc_model_params p = msc_params_every_control();
	struct mbwu_rig rig;

	(void)state;
	p.partid_max = 40;
	p.has_partid_nrw = true;
	p.intpartid_max = 9;
	p.max_lim = MPAM_MAX_LIM_SOFT;
	rig_setup(&rig, &p);
	const struct msc_ris_caps *rc = &rig.msc.caps.ris[0];
	assert_true(rc->has_prop && rc->has_cmax && rc->has_cmin && rc->has_cassoc);
	assert_int_equal(rc->pbm_wd, 40);
	assert_int_equal(rc->intpri_wd, 4);
	assert_int_equal(rc->dspri_wd, 4);
	assert_true(rc->intpri_0_is_low && rc->dspri_0_is_low);
	assert_int_equal(rc->max_lim, MPAM_MAX_LIM_SOFT);
	/* Narrowing: only the intPARTIDs have configurations, so mpamd uses no PARTID above them. */
	assert_true(rc->has_partid_nrw);
	assert_int_equal(rc->intpartid_max, 9);
	assert_int_equal(rig.msc.caps.partid_max, 9);
	assert_true(msc_narrows_partids(&rig.msc));
	mbwu_rig_teardown(&rig);
}

/* ---------------------------------------------------------------- takeover */

/* What an earlier owner left for PARTID 3 (and 4, which mpamd does not use). */
static void leave_state(struct msc_model *m)
{
	assert_int_equal(msc_model_preload_mbw_prop(m, 3, 3), 0);
	assert_int_equal(msc_model_preload_mbw_prop(m, 4, 1), 0);
	assert_int_equal(msc_model_preload_mbw_pbm(m, 3, 0xF), 0);
	reg_set(m, mpamcfg_part_sel(0, 3), MPAMCFG_CMAX, 0x4000);
	reg_set(m, mpamcfg_part_sel(0, 3), MPAMCFG_CMIN, 0x2000);
	reg_set(m, mpamcfg_part_sel(0, 3), MPAMCFG_CASSOC, 0x1000);
	reg_set(m, mpamcfg_part_sel(0, 3), MPAMCFG_PRI, 0x00010002);
	reg_set(m, mpamcfg_part_sel(0, 3), MPAMCFG_MBW_MAX, MPAMCFG_MBW_MAX_HARDLIM | 0x2000);
	reg_set(m, mpamcfg_part_sel(0, 3), MPAMCFG_CPBM(0), 0x3);
}

static void test_takeover_resets_every_control(void **state)
{
	struct msc_model_params p = msc_params_every_control();
	struct mbwu_rig rig;
	struct log_capture log = { .saved_stderr = -1 };
	struct err err = { "" };
	double max, min;

	(void)state;
	rig_setup(&rig, &p);
	leave_state(rig.model);
	assert_false(msc_taken_over(&rig.msc, 3));
	log_capture_begin(&log);
	int r = msc_take_over(&rig.msc, 3, NULL, &err);
	log_capture_end(&log);
	assert_int_equal(r, 0);
	assert_true(msc_taken_over(&rig.msc, 3));
	uint32_t sel = mpamcfg_part_sel(0, 3);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_MBW_PBM(0)), 0xFFFFFFFF);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_MBW_PBM(1)), 0xFF);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_CMAX), 0xFF00);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_CMIN), 0);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_CASSOC), 0xF000);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_PRI), 0x000F000F); /* highest: 0 is the lowest */
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_MBW_MAX), 0xFF00); /* no limit, HARDLIM clear */
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_MBW_MIN), 0);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_CPBM(0)), 0xFFFF);
	/* Said once, naming what was found. */
	const char *const said[] = { "PARTID 3 on msc test: reset",
				     "MBW_PROP (was enabled, STRIDEM1 3)",
				     "MBW_PBM0 (was 0x0000000f)",
				     "MBW_PBM1 (was 0x00000000)",
				     "CMAX (was 0x00004000)",
				     "PRI (was 0x00010002)",
				     "MBW_MAX (was 0x80002000)",
				     "CPBM0 (was 0x00000003)",
				     "before first use",
				     NULL };
	assert_int_equal(log_capture_count(&log, said), 1);
	/* The PARTID mpamd does not use keeps what it had. */
	assert_int_equal(reg_of(rig.model, mpamcfg_part_sel(0, 4), MPAMCFG_MBW_PROP),
			 (uint32_t)MPAMCFG_MBW_PROP_EN | 1);
	/* Taken over once: what changes afterwards is not reset again (nor logged). */
	reg_set(rig.model, sel, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 7);
	log_capture_begin(&log);
	assert_int_equal(msc_take_over(&rig.msc, 3, NULL, &err), 0);
	assert_int_equal(msc_set_bandwidth(&rig.msc, 3, 50, 0, &max, &min, &err), 0);
	log_capture_end(&log);
	assert_int_equal(reg_of(rig.model, sel, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 7);
	const char *const again[] = { "PARTID 3", NULL };
	assert_int_equal(log_capture_count(&log, again), 0);
	log_capture_free(&log);
	mbwu_rig_teardown(&rig);
}

/* Nothing found: the takeover writes anyway, and says nothing above debug. (Without priorities: the
 * model resets them to 0, the lowest, and mpamd puts them to the highest as Linux does, a change it
 * reports.) */
static void test_takeover_of_a_clean_partid(void **state)
{
	struct msc_model_params p = msc_params_every_control();
	struct mbwu_rig rig;
	struct log_capture log = { .saved_stderr = -1 };
	struct err err = { "" };

	(void)state;
	p.pri_wd = 0;
	rig_setup(&rig, &p);
	log_capture_begin(&log);
	assert_int_equal(msc_take_over(&rig.msc, 5, NULL, &err), 0);
	log_capture_end(&log);
	const char *const said[] = { "PARTID 5", NULL };
	assert_int_equal(log_capture_count(&log, said), 0);
	assert_true(msc_taken_over(&rig.msc, 5));
	log_capture_free(&log);
	mbwu_rig_teardown(&rig);
}

/* A preloaded MBW_PROP for a PARTID mpamd takes over ends disabled through the control's apply, and
 * the plan listed that write before apply made it. */
static void preload_prop_of_6(struct msc_model *m)
{
	assert_int_equal(msc_model_preload_mbw_prop(m, 6, 3), 0);
}

static void test_apply_takes_over_and_plan_lists_it(void **state)
{
	struct msc_model_params p = msc_params_every_control();
	struct control_rig c;
	struct partition_ref ref;
	struct control_plan plan = { 0 };
	struct err err = { "" };

	(void)state;
	control_open(&c, &p, preload_prop_of_6);
	struct partition_config part = partition_with(6);
	struct partition_limits want = { .mb_max = 40 }, eff;
	assert_int_equal(mmio_limits_plan(c.limits, &part, &want, &plan, &err), 0);
	json_t *first = json_array_get(plan.writes, 0);
	bool prop_listed = false;
	size_t i;
	json_t *w;
	json_array_foreach(plan.writes, i, w)
		prop_listed |= !strcmp(json_string_value(json_object_get(w, "what")), "MPAMCFG_MBW_PROP") &&
			       !strcmp(json_string_value(json_object_get(w, "value")), "0x00000000");
	assert_true(prop_listed);
	assert_string_equal(json_string_value(json_object_get(first, "what")), "MPAMCFG_CPBM0");
	assert_non_null(strstr(json_string_value(json_array_get(plan.notes, 0)), "PARTID 6 is taken over first"));
	control_plan_fini(&plan);
	assert_false(msc_taken_over(&c.set->mscs[0], 6)); /* a plan changes nothing */
	assert_int_equal(reg_of(c.model, mpamcfg_part_sel(0, 6), MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 3);

	assert_int_equal(mmio_limits_partition_open(c.limits, 0, &part, &ref, &err), 0);
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &eff, &err), 0);
	assert_int_equal(reg_of(c.model, mpamcfg_part_sel(0, 6), MPAMCFG_MBW_PROP), 0);
	assert_int_equal(msc_model_mbw_max(c.model, 0, 6), mpam_mbw_max_from_percent(40, p.bwa_wd));
	struct msc_model_limits lim;
	msc_model_traffic_limits(c.model, 0, 6, &lim);
	assert_true(lim.prop_share == 1.0);
	control_close(&c);
}

/* ---------------------------------------------------------------- PARTID narrowing */

/* Every PARTID mpamd configures is mapped to its intPARTID and configured through it, on every RIS,
 * without an MSC error; one above INTPARTID_MAX is refused before it reaches the MSC. */
static void test_narrowing_msc_is_configured_through_intpartids(void **state)
{
	struct msc_model_params p = msc_params_every_control();
	struct control_rig c;
	struct partition_ref ref;
	struct err err = { "" };

	(void)state;
	p.partid_max = 63;
	p.has_ris = true;
	p.ris_max = 1;
	p.has_extd_esr = true;
	p.has_partid_nrw = true;
	p.intpartid_max = 7;
	control_open(&c, &p, NULL);
	struct partition_config parts[2] = { partition_with(5), partition_with(8) };
	assert_int_equal(mmio_limits_partition_open(c.limits, 1, &parts[1], &ref, &err), -ERANGE);
	assert_non_null(strstr(err.text, "partid 8 is above INTPARTID_MAX (it narrows PARTIDs) 7"));
	assert_int_equal(mmio_limits_partition_open(c.limits, 0, &parts[0], &ref, &err), 0);
	struct partition_limits want = { .mb_max = 30, .mb_min = 10, .l3_cbm = 0xF0 }, eff;
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &eff, &err), 0);
	want.mb_max = 60; /* and again, once taken over */
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &eff, &err), 0);
	for (unsigned r = 0; r < 2; r++) {
		assert_int_equal(reg_of(c.model, mpamcfg_part_sel(r, 5), MPAMCFG_INTPARTID),
				 (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 5);
		/* The request PARTID's controls are mpamd's: the traffic side sees them. */
		assert_int_equal(msc_model_mbw_max(c.model, r, 5), rung_field(60, p.bwa_wd, false));
		assert_int_equal(msc_model_mbw_min(c.model, r, 5), rung_field(10, p.bwa_wd, true));
		assert_int_equal(reg_of(c.model, mpamcfg_int_part_sel(r, 5), MPAMCFG_CPBM(0)), 0xF0);
	}
	control_close(&c);
}

/* ---------------------------------------------------------------- soft or hard */

/* HARDLIM is mb_max_mode's where MAX_LIM lets software choose, and what MAX_LIM fixes otherwise;
 * either way the write reads back as asked and msc_limits_hard says what holds. */
static void test_hardlim_per_mode_and_max_lim(void **state)
{
	static const struct {
		unsigned max_lim;
		bool asked_hard, hard;
	} cases[] = {
		{ MPAM_MAX_LIM_EITHER, false, false }, { MPAM_MAX_LIM_EITHER, true, true },
		{ MPAM_MAX_LIM_SOFT, false, false },   { MPAM_MAX_LIM_SOFT, true, false },
		{ MPAM_MAX_LIM_HARD, false, true },    { MPAM_MAX_LIM_HARD, true, true },
	};
	struct err err = { "" };
	double max, min;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct msc_model_params p;
		struct mbwu_rig rig;
		msc_model_params_default(&p);
		p.max_lim = (uint8_t)cases[i].max_lim;
		rig_setup(&rig, &p);
		rig.msc.hard_limits = cases[i].asked_hard;
		assert_int_equal(msc_set_bandwidth(&rig.msc, 2, 50, 0, &max, &min, &err), 0);
		assert_int_equal(msc_model_mbw_hardlim(rig.model, 0, 2), cases[i].hard);
		assert_int_equal(msc_limits_hard(&rig.msc, &rig.msc.caps.ris[0]), cases[i].hard);
		uint32_t v = reg_of(rig.model, mpamcfg_part_sel(0, 2), MPAMCFG_MBW_MAX);
		assert_int_equal((v & MPAMCFG_MBW_MAX_HARDLIM) != 0, cases[i].hard);
		mbwu_rig_teardown(&rig);
	}
}

/* The mode is set for the whole set, and an MSC whose MAX_LIM fixes the other kind is named once. */
static void test_limit_mode_names_an_msc_that_differs(void **state)
{
	struct msc_model_params p[2];
	struct msc_model *models[2];
	struct msc_bus *buses[2];
	struct msc_set *set;
	struct log_capture log = { .saved_stderr = -1 };
	struct err err = { "" };
	const char *names[] = { "choosy", "softie" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		msc_model_params_default(&p[i]);
		p[i].max_lim = i ? MPAM_MAX_LIM_SOFT : MPAM_MAX_LIM_EITHER;
		assert_int_equal(msc_model_new(&p[i], &models[i]), 0);
		assert_int_equal(bus_sim_new(models[i], 0x1000000 + 0x4000u * (unsigned)i, &buses[i]), 0);
	}
	assert_int_equal(msc_set_new(buses, names, 2, &(struct msc_probe_opts){ 0 }, &set, &err), 0);
	log_capture_begin(&log);
	msc_set_limit_mode(set, false);
	msc_set_limit_mode(set, true);
	log_capture_end(&log);
	assert_true(set->mscs[0].hard_limits && set->mscs[1].hard_limits);
	const char *const differs[] = { "msc \"softie\" RIS 0: mb_max_mode = hard, but its MBW_MAX limits are soft",
					"MAX_LIM: soft only", NULL };
	const char *const any[] = { "mb_max_mode", NULL };
	assert_int_equal(log_capture_count(&log, differs), 1);
	assert_int_equal(log_capture_count(&log, any), 1);
	/* discover says what each MSC's mb_max is. */
	json_t *d = msc_set_describe(set);
	const char *kinds[2];
	for (int i = 0; i < 2; i++) {
		json_t *bw = json_object_get(json_array_get(json_object_get(json_array_get(d, (size_t)i), "ris"), 0),
					     "bandwidth");
		kinds[i] = json_string_value(json_object_get(bw, "mb_max_limit"));
		assert_int_equal(json_integer_value(json_object_get(bw, "max_lim")), p[i].max_lim);
	}
	assert_string_equal(kinds[0], "hard");
	assert_string_equal(kinds[1], "soft");
	json_decref(d);
	log_capture_free(&log);
	msc_set_free(set);
	for (int i = 0; i < 2; i++)
		msc_model_free(models[i]);
}

/* ---------------------------------------------------------------- applying again */

/* The same limits applied again (the engine does it every tenth tick) are read back, not worked out
 * and written again; what another writer or a reset of the MSC changed meanwhile is still found and
 * put back, and so is HARDLIM once the limit mode changed. */
static void test_apply_again_puts_back_what_changed(void **state)
{
	struct msc_model_params p;
	struct control_rig c;
	struct partition_ref ref;
	struct err err = { "" };
	uint32_t sel = mpamcfg_part_sel(0, 3);

	(void)state;
	msc_model_params_default(&p);
	p.max_lim = MPAM_MAX_LIM_EITHER;
	control_open(&c, &p, NULL);
	struct partition_config part = partition_with(3);
	struct partition_limits want = { .mb_max = 40, .mb_min = 20 }, eff, again;
	assert_int_equal(mmio_limits_partition_open(c.limits, 0, &part, &ref, &err), 0);
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &eff, &err), 0);
	uint32_t max = reg_of(c.model, sel, MPAMCFG_MBW_MAX), min = reg_of(c.model, sel, MPAMCFG_MBW_MIN);
	assert_int_equal(max & MPAMCFG_MBW_MAX_MAX, rung_field(40, p.bwa_wd, false));
	assert_int_equal(min, rung_field(20, p.bwa_wd, true));

	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &again, &err), 0); /* nothing moved */
	assert_true(again.mb_max == eff.mb_max && again.mb_min == eff.mb_min);
	assert_true(again.mb_max_at[0] == eff.mb_max_at[0] && again.mb_min_at[0] == eff.mb_min_at[0]);
	assert_int_equal(reg_of(c.model, sel, MPAMCFG_MBW_MAX), max);

	reg_set(c.model, sel, MPAMCFG_MBW_MAX, (uint32_t)MPAMCFG_MBW_MAX_MAX); /* another writer: no limit */
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &again, &err), 0);
	assert_int_equal(reg_of(c.model, sel, MPAMCFG_MBW_MAX), max);
	assert_true(again.mb_max == eff.mb_max);

	reg_set(c.model, sel, MPAMCFG_MBW_MAX, (uint32_t)MPAMCFG_MBW_MAX_MAX); /* the MSC reset */
	reg_set(c.model, sel, MPAMCFG_MBW_MIN, 0);
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &again, &err), 0);
	assert_int_equal(reg_of(c.model, sel, MPAMCFG_MBW_MAX), max);
	assert_int_equal(reg_of(c.model, sel, MPAMCFG_MBW_MIN), min);
	assert_true(again.mb_min == eff.mb_min);

	msc_set_limit_mode(c.set, !c.set->mscs[0].hard_limits);
	assert_int_equal(mmio_limits_apply(c.limits, 0, &want, &again, &err), 0);
	bool hardlim = reg_of(c.model, sel, MPAMCFG_MBW_MAX) & MPAMCFG_MBW_MAX_HARDLIM;
	assert_true(hardlim == c.set->mscs[0].hard_limits);
	assert_true(hardlim != ((max & MPAMCFG_MBW_MAX_HARDLIM) != 0));

	/* A request no float holds (the record keeps floats): written again, in force as the first time. */
	struct partition_limits odd = { .mb_max = 40.1, .mb_min = 20.3 };
	assert_int_equal(mmio_limits_apply(c.limits, 0, &odd, &eff, &err), 0);
	max = reg_of(c.model, sel, MPAMCFG_MBW_MAX);
	reg_set(c.model, sel, MPAMCFG_MBW_MAX, (uint32_t)MPAMCFG_MBW_MAX_MAX);
	assert_int_equal(mmio_limits_apply(c.limits, 0, &odd, &again, &err), 0);
	assert_int_equal(reg_of(c.model, sel, MPAMCFG_MBW_MAX), max);
	assert_true(again.mb_max == eff.mb_max && again.mb_min == eff.mb_min);
	assert_true(again.mb_max_at[0] == eff.mb_max_at[0] && again.mb_min_at[0] == eff.mb_min_at[0]);
	control_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_reads_every_control),
		cmocka_unit_test(test_takeover_resets_every_control),
		cmocka_unit_test(test_takeover_of_a_clean_partid),
		cmocka_unit_test(test_apply_takes_over_and_plan_lists_it),
		cmocka_unit_test(test_narrowing_msc_is_configured_through_intpartids),
		cmocka_unit_test(test_hardlim_per_mode_and_max_lim),
		cmocka_unit_test(test_limit_mode_names_an_msc_that_differs),
		cmocka_unit_test(test_apply_again_puts_back_what_changed),
	};

	log_setup("test", LOG_LEVEL_INFO, false);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
