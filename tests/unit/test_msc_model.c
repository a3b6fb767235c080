/* The MSC register model (backends/sim/msc_model.c) and its bus adapter (bus_sim.c), checked
 * against Arm IHI 0099 B.a's registers (backends/mpam/mpam_regs.h) through the register interface
 * only. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "backends/mmio/bus.h"
#include "backends/sim/msc_model.h"
#include "backends/mpam/mpam_regs.h"
#include "tests/util/msc_io.h"
#include "tests/util/test_main.h"

/* ---------------------------------------------------------------- helpers */

static struct msc_model *new_model(const struct msc_model_params *p)
{
	struct msc_model *m = NULL;

	assert_int_equal(msc_model_new(p, &m), 0);
	assert_non_null(m);
	return m;
}

static void sel_part(struct msc_model *m, unsigned ris, uint16_t partid)
{
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(ris, partid));
}

static void sel_mon(struct msc_model *m, unsigned ris, uint16_t mon)
{
	model_wr32(m, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(ris, mon));
}

static struct mpamf_esr esr_now(const struct msc_model *m)
{
	return mpamf_esr_decode(msc_model_esr(m));
}

/* An MSC with every feature the model has: the default one (which has MIN, MAX, long counters and
 * the ESR) with 3 RIS, 16 PARTIDs, 4 PMGs, 40 monitors, priorities, capture and overflow status, and
 * its own IIDR and AIDR. NRDY off so tests that are not about NRDY can count straight away. */
static struct msc_model_params full_params(void)
{
	struct msc_model_params p;

	msc_model_params_default(&p);
	p.partid_max = 15;
	p.pmg_max = 3;
	p.has_ris = true;
	p.ris_max = 2;
	p.cpbm_wd = 20;
	p.pri_wd = 4;
	p.num_mon = 40;
	p.scale = 6;
	p.has_rwbw = true;
	p.has_capture = true;
	p.has_ofsr = true;
	p.has_oflow_sr = true;
	p.nrdy_ticks = 0;
	p.has_extd_esr = true;
	p.iidr = 0x1234543B;
	p.aidr = 0x10;
	return p;
}

/* The tests that need no other MSC get full_params' model as their state (a cmocka fixture, so it is
 * freed when a test fails too). */
static int full_model_setup(void **state)
{
	struct msc_model_params p = full_params();

	*state = new_model(&p);
	return 0;
}

static int model_teardown(void **state)
{
	msc_model_free(*state);
	return 0;
}

#define full_model_test(test) cmocka_unit_test_setup_teardown(test, full_model_setup, model_teardown)

/* Select monitor `mon` of `ris`, filter on PARTID (and PMG when match_pmg), enable it. */
static void program_mon(struct msc_model *m, unsigned ris, uint16_t mon, uint16_t partid, uint8_t pmg, bool match_pmg,
			uint32_t extra_ctl)
{
	struct msmon_mbwu_flt flt = { .partid = partid, .pmg = pmg };
	struct msmon_mbwu_ctl ctl = { .match_partid = true, .match_pmg = match_pmg, .en = true };

	sel_mon(m, ris, mon);
	model_wr32(m, MSMON_CFG_MBWU_FLT, msmon_mbwu_flt_encode(&flt));
	model_wr32(m, MSMON_CFG_MBWU_CTL, msmon_mbwu_ctl_encode(&ctl) | extra_ctl);
}

static uint32_t mon_reg(struct msc_model *m, unsigned ris, uint16_t mon, uint32_t offset)
{
	sel_mon(m, ris, mon);
	return model_rd32(m, offset);
}

static uint64_t mon_reg64(struct msc_model *m, unsigned ris, uint16_t mon, uint32_t offset)
{
	sel_mon(m, ris, mon);
	return model_rd64(m, offset);
}

/* ---------------------------------------------------------------- creation and ID registers */

static void test_params_default(void **state)
{
	struct msc_model_params p;

	(void)state;
	memset(&p, 0xA5, sizeof(p));
	msc_model_params_default(&p);
	assert_int_equal(p.partid_max, 63);
	assert_int_equal(p.pmg_max, 1);
	assert_int_equal(p.bwa_wd, 8);
	assert_true(p.has_min && p.has_max);
	assert_int_equal(p.cpbm_wd, 16);
	assert_int_equal(p.num_mon, 16);
	assert_true(p.has_long);
	assert_false(p.lwd);
	assert_true(p.has_esr && p.ext);
	assert_true(p.nrdy_hw);
	assert_int_equal(p.nrdy_ticks, 1);
	assert_int_equal(p.aidr, MPAMF_AIDR_V1);
	assert_int_equal(mpam_field_get(MPAMF_IIDR_IMPLEMENTER, p.iidr), 0x43B);
	assert_false(p.has_ris);
}

static void test_new_rejects_impossible_params(void **state)
{
	struct msc_model_params p;
	struct msc_model *m = NULL;

	(void)state;
	msc_model_params_default(&p);
	p.bwa_wd = 17;
	assert_int_equal(msc_model_new(&p, &m), -EINVAL);
	assert_null(m);
	msc_model_params_default(&p);
	p.max_lim = 3;
	assert_int_equal(msc_model_new(&p, &m), -EINVAL);
	msc_model_params_default(&p);
	p.has_ris = true;
	p.ris_max = 16;
	assert_int_equal(msc_model_new(&p, &m), -EINVAL);
	assert_int_equal(msc_model_new(NULL, &m), -EINVAL);
	assert_null(m);
	msc_model_free(NULL); /* allowed */
}

static void check_idr_matches(struct msc_model *m, const struct msc_model_params *p)
{
	uint64_t raw = model_rd64(m, MPAMF_IDR);
	struct mpamf_idr idr = mpamf_idr_decode(raw);

	/* The 32-bit halves are the same register. */
	assert_true(raw == ((uint64_t)model_rd32(m, MPAMF_IDR + 4) << 32 | model_rd32(m, MPAMF_IDR)));
	assert_int_equal(idr.partid_max, p->partid_max);
	assert_int_equal(idr.pmg_max, p->pmg_max);
	assert_int_equal(idr.has_mbw_part, p->bwa_wd > 0);
	assert_int_equal(idr.has_cpor_part, p->cpbm_wd > 0);
	assert_int_equal(idr.has_pri_part, p->pri_wd > 0);
	assert_int_equal(idr.has_msmon, p->num_mon > 0);
	assert_int_equal(idr.ext, p->ext);
	assert_false(idr.has_ccap_part);
	assert_false(idr.has_partid_nrw);
	assert_false(idr.has_impl_idr);
	if (p->ext) {
		assert_int_equal(idr.has_ris, p->has_ris);
		assert_int_equal(idr.ris_max, p->has_ris ? p->ris_max : 0);
		assert_int_equal(idr.has_esr, p->has_esr);
		assert_int_equal(idr.has_extd_esr, p->has_extd_esr);
	} else {
		assert_true(raw >> 32 == 0); /* bits 63:32 exist only with EXT */
	}
}

static void test_id_registers_decode_to_params(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.max_lim = 1;
	m = new_model(&p);
	assert_int_equal(model_rd32(m, MPAMF_AIDR), 0x10);
	assert_int_equal(model_rd32(m, MPAMF_IIDR), 0x1234543B);
	/* Linux selects each RIS before reading its ID registers (mpam_ris_hw_probe()). */
	for (unsigned r = 0; r <= p.ris_max; r++) {
		struct mpamf_mbw_idr mbw;
		struct mpamf_msmon_idr msmon;
		struct mpamf_mbwumon_idr mbwu;
		uint32_t pri;

		sel_part(m, r, 0);
		check_idr_matches(m, &p);
		mbw = mpamf_mbw_idr_decode(model_rd32(m, MPAMF_MBW_IDR));
		assert_int_equal(mbw.bwa_wd, 8);
		assert_int_equal(mbw.max_lim, 1);
		assert_true(mbw.has_min && mbw.has_max);
		assert_false(mbw.has_pbm || mbw.has_prop);
		assert_int_equal(mpam_field_get(MPAMF_CPOR_IDR_CPBM_WD, model_rd32(m, MPAMF_CPOR_IDR)), 20);
		msmon = mpamf_msmon_idr_decode(model_rd32(m, MPAMF_MSMON_IDR));
		assert_true(msmon.msmon_mbwu);
		assert_false(msmon.msmon_csu);
		assert_true(msmon.has_oflow_sr);
		assert_true(msmon.has_local_capt_evnt);
		mbwu = mpamf_mbwumon_idr_decode(model_rd32(m, MPAMF_MBWUMON_IDR));
		assert_int_equal(mbwu.num_mon, 40);
		assert_int_equal(mbwu.scale, 6);
		assert_true(mbwu.has_long);
		assert_false(mbwu.lwd);
		assert_true(mbwu.has_rwbw && mbwu.has_capture && mbwu.has_ofsr);
		pri = model_rd32(m, MPAMF_PRI_IDR);
		assert_int_equal((pri >> 4) & 0x3F, 4);	 /* INTPRI_WD */
		assert_int_equal((pri >> 20) & 0x3F, 4); /* DSPRI_WD */
		assert_int_equal(mpam_field_get(MPAMCFG_PART_SEL_RIS, model_rd32(m, MPAMCFG_PART_SEL)), r);
	}
	assert_int_equal(msc_model_error_count(m), 0); /* ID reads never raise errors */
	msc_model_free(m);
}

static void test_id_registers_without_features(void **state)
{
	struct msc_model_params p = { .partid_max = 3, .aidr = 0x10 }; /* no EXT, no controls, no monitors */
	struct msc_model *m;

	(void)state;
	m = new_model(&p);
	check_idr_matches(m, &p);
	assert_int_equal(model_rd32(m, MPAMF_MBW_IDR), 0);
	assert_int_equal(model_rd32(m, MPAMF_CPOR_IDR), 0);
	assert_int_equal(model_rd32(m, MPAMF_PRI_IDR), 0);
	assert_int_equal(model_rd32(m, MPAMF_MSMON_IDR), 0);
	assert_int_equal(model_rd32(m, MPAMF_MBWUMON_IDR), 0);
	/* Controls that do not exist are RAZ/WI, and touching them is no error. */
	sel_part(m, 0, 1);
	model_wr32(m, MPAMCFG_MBW_MAX, 0xFFFFFFFF);
	model_wr32(m, MPAMCFG_MBW_MIN, 0xFFFFFFFF);
	model_wr32(m, MPAMCFG_CPBM(0), 0xFFFFFFFF);
	model_wr32(m, MPAMCFG_PRI, 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_PRI), 0);
	model_wr32(m, MSMON_CFG_MON_SEL, 5);
	assert_int_equal(model_rd32(m, MSMON_CFG_MON_SEL), 0);
	assert_int_equal(model_rd32(m, MSMON_CFG_MBWU_CTL), 0);
	/* ... and there is no ESR to see. */
	assert_int_equal(model_rd32(m, MPAMF_ESR), 0);
	assert_int_equal(msc_model_error_count(m), 0);
	/* The traffic side sees "no limit" for a control that does not exist. */
	assert_int_equal(msc_model_mbw_max(m, 0, 1), 0xFFFF);
	assert_int_equal(msc_model_mbw_min(m, 0, 1), 0);
	assert_false(msc_model_mbw_hardlim(m, 0, 1));
	msc_model_free(m);

	/* LWD is only meaningful with a long counter. */
	p.num_mon = 2;
	p.lwd = true;
	m = new_model(&p);
	assert_false(mpamf_mbwumon_idr_decode(model_rd32(m, MPAMF_MBWUMON_IDR)).lwd);
	assert_false(mpamf_mbwumon_idr_decode(model_rd32(m, MPAMF_MBWUMON_IDR)).has_long);
	sel_mon(m, 0, 0);
	model_wr64(m, MSMON_MBWU_L, 1234);
	assert_true(model_rd64(m, MSMON_MBWU_L) == 0); /* no long counter: RAZ/WI */
	msc_model_free(m);
}

/* ---------------------------------------------------------------- configuration */

static void test_part_sel_isolates_partids(void **state)
{
	struct msc_model_params p;
	struct msc_model *m;

	(void)state;
	msc_model_params_default(&p);
	m = new_model(&p);
	for (unsigned id = 0; id <= 63; id++) {
		sel_part(m, 0, (uint16_t)id);
		model_wr32(m, MPAMCFG_MBW_MAX, (id * 3 + 1) << 8 & 0xFF00);
		model_wr32(m, MPAMCFG_MBW_MIN, id << 8);
		model_wr32(m, MPAMCFG_CPBM(0), id * 0x101);
	}
	for (unsigned id = 0; id <= 63; id++) {
		sel_part(m, 0, (uint16_t)id);
		assert_int_equal(model_rd32(m, MPAMCFG_PART_SEL), id);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), (id * 3 + 1) << 8 & 0xFF00);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), id << 8);
		assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), (id * 0x101) & 0xFFFF);
		assert_int_equal(msc_model_mbw_max(m, 0, (uint16_t)id), (id * 3 + 1) << 8 & 0xFF00);
		assert_int_equal(msc_model_mbw_min(m, 0, (uint16_t)id), id << 8);
	}
	assert_int_equal(msc_model_error_count(m), 0);
	msc_model_free(m);
}

static void test_part_sel_isolates_ris(void **state)
{
	struct msc_model *m = *state;

	for (unsigned r = 0; r <= 2; r++) {
		sel_part(m, r, 5);
		model_wr32(m, MPAMCFG_MBW_MAX, 0x1000u * (r + 1));
		model_wr32(m, MPAMCFG_CPBM(0), 1u << r);
		model_wr32(m, MPAMCFG_PRI, (r + 1) | (r + 2) << 16);
	}
	for (unsigned r = 0; r <= 2; r++) {
		sel_part(m, r, 5);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0x1000u * (r + 1));
		assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), 1u << r);
		assert_int_equal(model_rd32(m, MPAMCFG_PRI), (r + 1) | (r + 2) << 16);
		assert_int_equal(msc_model_mbw_max(m, r, 5), 0x1000u * (r + 1));
		/* Same PARTID number, other PARTID: still at reset. */
		sel_part(m, r, 4);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0xFF00);
		assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), 0xFFFFF);
	}
}

static void test_mbw_fields_keep_top_bwa_wd_bits(void **state)
{
	static const struct {
		uint8_t bwa_wd;
		uint16_t implemented;
	} cases[] = { { 1, 0x8000 }, { 8, 0xFF00 }, { 16, 0xFFFF } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct msc_model_params p = full_params();
		struct msc_model *m;

		p.bwa_wd = cases[i].bwa_wd;
		m = new_model(&p);
		sel_part(m, 1, 3);
		/* Reset: MAX 100% (all implemented bits), MIN 0. */
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), cases[i].implemented);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), 0);
		model_wr32(m, MPAMCFG_MBW_MAX, 0x1234);
		model_wr32(m, MPAMCFG_MBW_MIN, 0xFFFF);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0x1234 & cases[i].implemented);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), cases[i].implemented);
		model_wr32(m, MPAMCFG_MBW_MAX, 0x7FFF0000); /* bits 30:16 do not exist */
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0);
		assert_int_equal(mpamf_mbw_idr_decode(model_rd32(m, MPAMF_MBW_IDR)).bwa_wd, cases[i].bwa_wd);
		msc_model_free(m);
	}
}

static void test_hardlim_follows_max_lim(void **state)
{
	(void)state;
	for (uint8_t lim = 0; lim <= 2; lim++) {
		struct msc_model_params p = full_params();
		struct msc_model *m;
		bool forced = lim == 2;

		p.max_lim = lim;
		m = new_model(&p);
		sel_part(m, 0, 2);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX) >> 31, forced);
		model_wr32(m, MPAMCFG_MBW_MAX, (uint32_t)MPAMCFG_MBW_MAX_HARDLIM | 0x4000);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), (lim != 1 ? MPAMCFG_MBW_MAX_HARDLIM : 0) | 0x4000);
		assert_int_equal(msc_model_mbw_hardlim(m, 0, 2), lim != 1);
		model_wr32(m, MPAMCFG_MBW_MAX, 0x4000);
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX) >> 31, forced);
		assert_int_equal(msc_model_mbw_hardlim(m, 0, 2), forced);
		assert_int_equal(mpamf_mbw_idr_decode(model_rd32(m, MPAMF_MBW_IDR)).max_lim, lim);
		msc_model_free(m);
	}
}

static void test_cpbm_keeps_bits_below_width(void **state)
{
	static const struct {
		uint16_t wd;
		unsigned words;
		uint32_t last_mask;
	} cases[] = { { 1, 1, 0x1 }, { 20, 1, 0xFFFFF }, { 33, 2, 0x1 } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct msc_model_params p = full_params();
		struct msc_model *m;

		p.cpbm_wd = cases[i].wd;
		m = new_model(&p);
		sel_part(m, 0, 7);
		for (unsigned w = 0; w <= cases[i].words; w++) {
			uint32_t mask = w + 1 < cases[i].words ? 0xFFFFFFFF
							       : (w + 1 == cases[i].words ? cases[i].last_mask : 0);

			assert_int_equal(model_rd32(m, MPAMCFG_CPBM(w)), mask); /* reset: every portion */
			model_wr32(m, MPAMCFG_CPBM(w), 0xA5A5A5A5);
			assert_int_equal(model_rd32(m, MPAMCFG_CPBM(w)), 0xA5A5A5A5 & mask);
			model_wr32(m, MPAMCFG_CPBM(w), 0);
			assert_int_equal(model_rd32(m, MPAMCFG_CPBM(w)), 0);
			model_wr32(m, MPAMCFG_CPBM(w), 0xFFFFFFFF);
			assert_int_equal(model_rd32(m, MPAMCFG_CPBM(w)), mask);
		}
		assert_int_equal(model_rd32(m, MPAMCFG_CPBM(1023)), 0);
		sel_part(m, 0, 6);
		model_wr32(m, MPAMCFG_CPBM(0), 0);
		sel_part(m, 0, 7);
		assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), cases[i].words == 1 ? cases[i].last_mask : 0xFFFFFFFF);
		assert_int_equal(msc_model_error_count(m), 0);
		msc_model_free(m);
	}
}

static void test_pri_keeps_low_pri_wd_bits(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	m = new_model(&p);
	sel_part(m, 2, 9);
	assert_int_equal(model_rd32(m, MPAMCFG_PRI), 0);
	model_wr32(m, MPAMCFG_PRI, 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_PRI), 0x000F000F);
	model_wr32(m, MPAMCFG_PRI, 0x00350009);
	assert_int_equal(model_rd32(m, MPAMCFG_PRI), 0x00050009);
	msc_model_free(m);

	p.pri_wd = 16;
	m = new_model(&p);
	model_wr32(m, MPAMCFG_PRI, 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_PRI), 0xFFFFFFFF);
	msc_model_free(m);
}

static void test_missing_min_or_max_is_raz_wi(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.has_min = false;
	m = new_model(&p);
	sel_part(m, 0, 1);
	model_wr32(m, MPAMCFG_MBW_MIN, 0xFF00);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), 0);
	model_wr32(m, MPAMCFG_MBW_MAX, 0x8000);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0x8000);
	assert_false(mpamf_mbw_idr_decode(model_rd32(m, MPAMF_MBW_IDR)).has_min);
	msc_model_free(m);

	p = full_params();
	p.has_max = false;
	m = new_model(&p);
	sel_part(m, 0, 1);
	model_wr32(m, MPAMCFG_MBW_MAX, 0x8000);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0);
	assert_int_equal(msc_model_mbw_max(m, 0, 1), 0xFFFF);
	model_wr32(m, MPAMCFG_MBW_MIN, 0x8000);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), 0x8000);
	/* Other unimplemented MPAMCFG locations. */
	model_wr32(m, MPAMCFG_MBW_PROP, 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), 0);
	model_wr32(m, MPAMCFG_CMAX, 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_CMAX), 0);
	msc_model_free(m);
}

/* ---------------------------------------------------------------- monitors */

static void test_monitor_selection(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	m = new_model(&p);
	for (unsigned r = 0; r <= 2; r++)
		for (uint16_t i = 0; i < 40; i += 3)
			program_mon(m, r, i, (uint16_t)((i + r) % 16), (uint8_t)(i % 4), i & 1, 0);
	for (unsigned r = 0; r <= 2; r++) {
		for (uint16_t i = 0; i < 40; i++) {
			struct msmon_mbwu_flt flt;
			struct msmon_mbwu_ctl ctl;

			sel_mon(m, r, i);
			assert_int_equal(model_rd32(m, MSMON_CFG_MON_SEL), msmon_cfg_mon_sel(r, i));
			flt = msmon_mbwu_flt_decode(model_rd32(m, MSMON_CFG_MBWU_FLT));
			ctl = msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL));
			assert_int_equal(ctl.type, MSMON_CFG_CTL_TYPE_MBWU);
			if (i % 3) {
				assert_int_equal(flt.partid, 0);
				assert_false(ctl.en);
				continue;
			}
			assert_int_equal(flt.partid, (i + r) % 16);
			assert_int_equal(flt.pmg, i % 4);
			assert_true(ctl.en && ctl.match_partid);
			assert_int_equal(ctl.match_pmg, i & 1);
		}
	}
	/* TYPE is read-only, SUBTYPE is RAZ/WI. */
	sel_mon(m, 1, 1);
	model_wr32(m, MSMON_CFG_MBWU_CTL, (uint32_t)(MSMON_CFG_CTL_SUBTYPE | MSMON_CFG_CTL_TYPE));
	assert_int_equal(model_rd32(m, MSMON_CFG_MBWU_CTL), MSMON_CFG_CTL_TYPE_MBWU);
	/* RWBW exists with HAS_RWBW. */
	model_wr32(m, MSMON_CFG_MBWU_FLT, (uint32_t)mpam_field_prep(MSMON_CFG_MBWU_FLT_RWBW, MPAM_RWBW_READS));
	assert_int_equal(msmon_mbwu_flt_decode(model_rd32(m, MSMON_CFG_MBWU_FLT)).rwbw, MPAM_RWBW_READS);
	assert_int_equal(msc_model_error_count(m), 0);
	msc_model_free(m);

	p.has_rwbw = false;
	m = new_model(&p);
	sel_mon(m, 0, 0);
	model_wr32(m, MSMON_CFG_MBWU_FLT, (uint32_t)mpam_field_prep(MSMON_CFG_MBWU_FLT_RWBW, MPAM_RWBW_READS) | 3);
	assert_int_equal(model_rd32(m, MSMON_CFG_MBWU_FLT), 3);
	msc_model_free(m);
}

static void test_counting_filters(void **state)
{
	struct msc_model *m = *state;
	uint32_t writes_only = (uint32_t)mpam_field_prep(MSMON_CFG_MBWU_FLT_RWBW, MPAM_RWBW_WRITES);
	uint32_t reads_only = (uint32_t)mpam_field_prep(MSMON_CFG_MBWU_FLT_RWBW, MPAM_RWBW_READS);
	struct msmon_mbwu_ctl any = { .en = true };
	static const uint32_t expect[] = { 1110, 110, 1120, 10, 1100, 0, 0 };

	program_mon(m, 0, 0, 1, 0, false, 0); /* PARTID 1, any PMG */
	program_mon(m, 0, 1, 1, 2, true, 0);  /* PARTID 1, PMG 2 */
	sel_mon(m, 0, 2);		      /* everything */
	model_wr32(m, MSMON_CFG_MBWU_CTL, msmon_mbwu_ctl_encode(&any));
	program_mon(m, 0, 3, 1, 0, false, 0);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 1 | writes_only);
	program_mon(m, 0, 4, 1, 0, false, 0);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 1 | reads_only);
	program_mon(m, 0, 5, 1, 0, false, 0);
	model_wr32(m, MSMON_CFG_MBWU_CTL, (uint32_t)MSMON_CFG_CTL_MATCH_PARTID); /* not enabled */
	program_mon(m, 1, 6, 1, 0, false, 0);					 /* same filter, other RIS */

	msc_model_count(m, 0, 1, 2, 100, 10);
	msc_model_count(m, 0, 1, 0, 1000, 0);
	msc_model_count(m, 0, 2, 2, 5, 5);
	msc_model_count(m, 1, 3, 0, 50, 50); /* RIS 1, other PARTID */
	for (uint16_t i = 0; i < 6; i++) {
		assert_int_equal(mon_reg(m, 0, i, MSMON_MBWU), expect[i]);
		assert_true(mon_reg64(m, 0, i, MSMON_MBWU_L) == expect[i]);
	}
	assert_int_equal(mon_reg(m, 0, 6, MSMON_MBWU), 0);
	assert_int_equal(mon_reg(m, 1, 6, MSMON_MBWU), 0);
	msc_model_count(m, 1, 1, 3, 7, 0);
	assert_int_equal(mon_reg(m, 1, 6, MSMON_MBWU), 7);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 1110); /* RIS 0 did not see it */
	/* Changing the filter does not reset the value. */
	sel_mon(m, 0, 0);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 2);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 1110);
	msc_model_count(m, 0, 2, 0, 1, 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 1111);
	assert_int_equal(msc_model_error_count(m), 0);
}

static void test_scale_applies_with_sclen(void **state)
{
	struct msc_model *m = *state; /* full_params: SCALE 6, units of 64 bytes */

	program_mon(m, 0, 0, 1, 0, false, (uint32_t)MSMON_CFG_CTL_SCLEN);
	program_mon(m, 0, 1, 1, 0, false, 0);
	msc_model_count(m, 0, 1, 0, 100, 0);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 1);
	assert_int_equal(mon_reg(m, 0, 1, MSMON_MBWU), 100);
	/* The 36-byte residue is kept: 28 more bytes make exactly 2 units. */
	msc_model_count(m, 0, 1, 0, 27, 0);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 1);
	msc_model_count(m, 0, 1, 0, 1, 0);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 2);
	for (int i = 0; i < 64; i++)
		msc_model_count(m, 0, 1, 0, 0, 1);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 3);
	/* The long counter is never scaled. */
	assert_true(mon_reg64(m, 0, 0, MSMON_MBWU_L) == 192);
	/* SCLEN off: the same count, in bytes. */
	sel_mon(m, 0, 0);
	model_wr32(m, MSMON_CFG_MBWU_CTL, model_rd32(m, MSMON_CFG_MBWU_CTL) & ~(uint32_t)MSMON_CFG_CTL_SCLEN);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 192);
	/* Writing the scaled view sets the count in units. */
	model_wr32(m, MSMON_CFG_MBWU_CTL, model_rd32(m, MSMON_CFG_MBWU_CTL) | (uint32_t)MSMON_CFG_CTL_SCLEN);
	model_wr32(m, MSMON_MBWU, 5);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 5);
	assert_true(model_rd64(m, MSMON_MBWU_L) == 5 * 64);
}

static void test_short_counter_wraps_with_status_and_ofsr(void **state)
{
	struct msc_model *m = *state;
	struct msmon_mbwu_ctl ctl;

	program_mon(m, 0, 33, 1, 0, false, 0);
	model_wr32(m, MSMON_MBWU, 0x7FFFFFF0);
	msc_model_count(m, 0, 1, 0, 0x10, 0); /* exactly to the top: 0x80000000 wraps to 0 */
	ctl = msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL));
	assert_true(ctl.oflow_status);
	assert_false(ctl.oflow_status_l);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 0);
	assert_true(model_rd64(m, MSMON_MBWU_L) == 0x80000000); /* the long view did not wrap */
	/* OFSR bit i is monitor (MON_SEL & 0xFFE0) + i. */
	assert_int_equal(model_rd32(m, MSMON_MBWU_OFSR), 1u << 1);
	sel_mon(m, 0, 32);
	assert_int_equal(model_rd32(m, MSMON_MBWU_OFSR), 1u << 1);
	sel_mon(m, 0, 5);
	assert_int_equal(model_rd32(m, MSMON_MBWU_OFSR), 0);
	sel_mon(m, 1, 33);
	assert_int_equal(model_rd32(m, MSMON_MBWU_OFSR), 0); /* other RIS */
	assert_int_equal(model_rd32(m, MSMON_OFLOW_SR), MSMON_OFLOW_SR_MBWU_OFLOW_PND | 1u << 0);
	/* Software clears the status by writing CTL with the bit 0; OFSR follows. */
	sel_mon(m, 0, 33);
	model_wr32(m, MSMON_CFG_MBWU_CTL, model_rd32(m, MSMON_CFG_MBWU_CTL) & ~(uint32_t)MSMON_CFG_CTL_OFLOW_STATUS);
	assert_false(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status);
	assert_int_equal(model_rd32(m, MSMON_MBWU_OFSR), 0);
	assert_int_equal(model_rd32(m, MSMON_OFLOW_SR), 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 0); /* and the value stays */
	/* Writing the value also clears the status. */
	model_wr32(m, MSMON_MBWU, 0x7FFFFFFF);
	msc_model_count(m, 0, 1, 0, 3, 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 2);
	assert_true(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status);
	model_wr32(m, MSMON_MBWU, 0);
	assert_false(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status);
	assert_int_equal(model_rd32(m, MSMON_OFLOW_SR), 0);
	/* Scaled: the view wraps after 2^31 units of 2^SCALE bytes. */
	program_mon(m, 2, 0, 1, 0, false, (uint32_t)MSMON_CFG_CTL_SCLEN);
	model_wr32(m, MSMON_MBWU, 0x7FFFFFFF);
	msc_model_count(m, 2, 1, 0, 63, 0);
	assert_false(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status);
	msc_model_count(m, 2, 1, 0, 1, 0);
	assert_true(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 0);
	assert_int_equal(model_rd32(m, MSMON_OFLOW_SR), MSMON_OFLOW_SR_MBWU_OFLOW_PND | 1u << 2);
}

static void test_long_counter_wraps_at_44_bits(void **state)
{
	struct msc_model *m = *state;
	struct msmon_mbwu_ctl ctl;

	program_mon(m, 0, 3, 1, 0, false, 0);
	/* Linux writes the long counter as low word then high word (mpam_msc_zero_mbwu_l()). */
	model_wr32(m, MSMON_MBWU_L, 0xFFFFFFF0);
	model_wr32(m, MSMON_MBWU_L + 4, 0xFFFFFFFF); /* only bits 43:32 exist, and NRDY is hardware's */
	assert_true(model_rd64(m, MSMON_MBWU_L) == UINT64_C(0xFFFFFFFFFF0));
	assert_int_equal(model_rd32(m, MSMON_MBWU_L + 4), 0xFFF);
	msc_model_count(m, 0, 1, 0, 0x20, 0);
	assert_true(model_rd64(m, MSMON_MBWU_L) == 0x10);
	ctl = msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL));
	assert_true(ctl.oflow_status_l);
	assert_true(ctl.oflow_status); /* the 31-bit view wrapped too */
	assert_int_equal(model_rd32(m, MSMON_OFLOW_SR), MSMON_OFLOW_SR_MBWU_OFLOW_PND | 1u);
	/* Writing the long counter clears OFLOW_STATUS_L only. */
	model_wr32(m, MSMON_MBWU_L, 0);
	ctl = msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL));
	assert_false(ctl.oflow_status_l);
	assert_true(ctl.oflow_status);
	/* Clearing OFLOW_STATUS_L through CTL. */
	model_wr64(m, MSMON_MBWU_L, UINT64_C(0xFFFFFFFFFFF));
	msc_model_count(m, 0, 1, 0, 1, 0);
	assert_true(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status_l);
	model_wr32(m, MSMON_CFG_MBWU_CTL, model_rd32(m, MSMON_CFG_MBWU_CTL) & ~(uint32_t)MSMON_CFG_CTL_OFLOW_STATUS_L);
	assert_false(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status_l);
	assert_true(model_rd64(m, MSMON_MBWU_L) == 0);
}

static void test_long_counter_wraps_at_63_bits(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.lwd = true;
	m = new_model(&p);
	assert_true(mpamf_mbwumon_idr_decode(model_rd32(m, MPAMF_MBWUMON_IDR)).lwd);
	program_mon(m, 1, 0, 1, 0, false, 0);
	/* Past 44 bits is no wrap for a 63-bit counter. */
	model_wr64(m, MSMON_MBWU_L, UINT64_C(0xFFFFFFFFFF0));
	msc_model_count(m, 1, 1, 0, 0x20, 0);
	assert_true(model_rd64(m, MSMON_MBWU_L) == UINT64_C(0x100000000010));
	assert_false(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status_l);
	model_wr64(m, MSMON_MBWU_L, UINT64_C(0x7FFFFFFFFFFFFFF0));
	assert_true(model_rd64(m, MSMON_MBWU_L) == UINT64_C(0x7FFFFFFFFFFFFFF0));
	msc_model_count(m, 1, 1, 0, 0x10, 0x10);
	assert_true(model_rd64(m, MSMON_MBWU_L) == 0x10);
	assert_true(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status_l);
	/* A 63-bit value written through the halves. */
	model_wr32(m, MSMON_MBWU_L, 0x89ABCDEF);
	model_wr32(m, MSMON_MBWU_L + 4, 0x01234567);
	assert_true(model_rd64(m, MSMON_MBWU_L) == UINT64_C(0x0123456789ABCDEF));
	assert_false(msmon_mbwu_ctl_decode(model_rd32(m, MSMON_CFG_MBWU_CTL)).oflow_status_l);
	msc_model_free(m);
}

/* ---------------------------------------------------------------- NRDY */

static bool nrdy(struct msc_model *m)
{
	bool short_nrdy = (model_rd32(m, MSMON_MBWU) & MSMON_MBWU_NRDY) != 0;
	bool long_nrdy = (model_rd64(m, MSMON_MBWU_L) & MSMON_MBWU_L_NRDY) != 0;

	assert_int_equal(short_nrdy, long_nrdy); /* one bit, two views */
	return short_nrdy;
}

static void test_nrdy_hardware_managed(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;
	uint32_t ctl;

	(void)state;
	p.nrdy_ticks = 3;
	m = new_model(&p);
	sel_mon(m, 0, 4);
	assert_false(nrdy(m));
	model_wr32(m, MSMON_CFG_MBWU_FLT, 1); /* a new filter */
	assert_true(nrdy(m));
	msc_model_tick(m);
	msc_model_tick(m);
	assert_true(nrdy(m));
	ctl = (uint32_t)(MSMON_CFG_CTL_EN | MSMON_CFG_CTL_MATCH_PARTID);
	model_wr32(m, MSMON_CFG_MBWU_CTL, ctl); /* restarts the 3-tick countdown */
	msc_model_tick(m);
	msc_model_tick(m);
	msc_model_count(m, 0, 1, 0, 100, 0); /* not ready: not counted */
	assert_true(nrdy(m));
	assert_int_equal(model_rd32(m, MSMON_MBWU) & MSMON_MBWU_VALUE, 0);
	/* Hardware owns NRDY: software cannot clear or set it. */
	model_wr32(m, MSMON_MBWU, 0);
	assert_true(nrdy(m));
	msc_model_tick(m);
	assert_false(nrdy(m));
	model_wr32(m, MSMON_MBWU, (uint32_t)MSMON_MBWU_NRDY);
	assert_false(nrdy(m));
	msc_model_count(m, 0, 1, 0, 100, 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 100);
	/* Writing the same values again is no change. */
	model_wr32(m, MSMON_CFG_MBWU_FLT, 1);
	model_wr32(m, MSMON_CFG_MBWU_CTL, ctl);
	assert_false(nrdy(m));
	/* Clearing an overflow status is not a settings change either. */
	model_wr32(m, MSMON_MBWU, 0x7FFFFFFF);
	msc_model_count(m, 0, 1, 0, 1, 0);
	model_wr32(m, MSMON_CFG_MBWU_CTL, ctl);
	assert_false(nrdy(m));
	/* A CTL change, and EN going 0 -> 1, both restart it. */
	model_wr32(m, MSMON_CFG_MBWU_CTL, ctl | (uint32_t)MSMON_CFG_CTL_MATCH_PMG);
	assert_true(nrdy(m));
	for (int i = 0; i < 3; i++)
		msc_model_tick(m);
	assert_false(nrdy(m));
	model_wr32(m, MSMON_CFG_MBWU_CTL, 0);
	for (int i = 0; i < 3; i++)
		msc_model_tick(m);
	assert_false(nrdy(m));
	model_wr32(m, MSMON_CFG_MBWU_CTL, ctl);
	assert_true(nrdy(m));
	/* Other monitors are unaffected. */
	sel_mon(m, 0, 5);
	assert_false(nrdy(m));
	msc_model_free(m);

	/* nrdy_ticks 0: never set. */
	p.nrdy_ticks = 0;
	m = new_model(&p);
	sel_mon(m, 0, 4);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 1);
	model_wr32(m, MSMON_CFG_MBWU_CTL, ctl);
	assert_false(nrdy(m));
	msc_model_free(m);
}

static void test_nrdy_software_managed_probe(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.nrdy_ticks = 1;
	p.nrdy_hw = false;
	m = new_model(&p);
	/* Linux's probe (mpam_ris_hw_probe_csu_nrdy()): software can set and clear the bit. */
	sel_mon(m, 0, 0);
	model_wr32(m, MSMON_MBWU, (uint32_t)MSMON_MBWU_NRDY);
	assert_true(model_rd32(m, MSMON_MBWU) & MSMON_MBWU_NRDY);
	model_wr32(m, MSMON_MBWU, 0);
	assert_false(model_rd32(m, MSMON_MBWU) & MSMON_MBWU_NRDY);
	/* Through the long counter's high word too. */
	model_wr32(m, MSMON_MBWU_L + 4, 0x80000000);
	assert_true(nrdy(m));
	model_wr32(m, MSMON_MBWU_L, 0); /* the low word has no NRDY */
	assert_true(nrdy(m));
	model_wr64(m, MSMON_MBWU_L, 0);
	assert_false(nrdy(m));
	/* A settings change sets it and the hardware never clears it. */
	program_mon(m, 0, 0, 1, 0, false, 0);
	for (int i = 0; i < 10; i++)
		msc_model_tick(m);
	assert_true(nrdy(m));
	msc_model_count(m, 0, 1, 0, 100, 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU) & MSMON_MBWU_VALUE, 0);
	model_wr32(m, MSMON_MBWU, 0); /* the driver zeroes the counter, clearing NRDY */
	assert_false(nrdy(m));
	msc_model_count(m, 0, 1, 0, 100, 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 100);
	msc_model_free(m);
}

/* ---------------------------------------------------------------- capture */

static void test_capture_event(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;
	uint32_t local = (uint32_t)mpam_field_prep(MSMON_CFG_CTL_CAPT_EVNT, MSMON_CFG_CTL_CAPT_EVNT_LOCAL);

	(void)state;
	p.nrdy_ticks = 5;
	m = new_model(&p);
	program_mon(m, 0, 0, 1, 0, false, local);
	program_mon(m, 1, 1, 1, 0, false, local | (uint32_t)MSMON_CFG_CTL_CAPT_RESET);
	program_mon(m, 0, 2, 1, 0, false, 0);
	for (int i = 0; i < 5; i++)
		msc_model_tick(m);
	msc_model_count(m, 0, 1, 0, 1000, 0);
	msc_model_count(m, 1, 1, 0, 1000, 0);
	model_wr32(m, MSMON_CAPT_EVNT, (uint32_t)MSMON_CAPT_EVNT_NOW);
	assert_int_equal(model_rd32(m, MSMON_CAPT_EVNT), 0);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU_CAPTURE), 1000);
	assert_true(mon_reg64(m, 0, 0, MSMON_MBWU_L_CAPTURE) == 1000);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 1000);
	assert_int_equal(mon_reg(m, 1, 1, MSMON_MBWU_CAPTURE), 1000);
	assert_int_equal(mon_reg(m, 1, 1, MSMON_MBWU), 0); /* CAPT_RESET */
	assert_int_equal(mon_reg(m, 0, 2, MSMON_MBWU_CAPTURE), 0);
	assert_int_equal(mon_reg(m, 0, 2, MSMON_MBWU), 1000);
	/* The capture copies NRDY, then clears it. */
	sel_mon(m, 0, 0);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 2);
	assert_true(nrdy(m));
	model_wr32(m, MSMON_CAPT_EVNT, (uint32_t)MSMON_CAPT_EVNT_NOW);
	assert_int_equal(model_rd32(m, MSMON_MBWU_CAPTURE), MSMON_MBWU_NRDY | 1000);
	assert_true(model_rd64(m, MSMON_MBWU_L_CAPTURE) == (MSMON_MBWU_L_NRDY | 1000));
	assert_false(nrdy(m));
	/* ALL is a capture on this MSC too. */
	msc_model_count(m, 0, 2, 0, 24, 0);
	model_wr32(m, MSMON_CAPT_EVNT, (uint32_t)MSMON_CAPT_EVNT_ALL);
	assert_int_equal(model_rd32(m, MSMON_MBWU_CAPTURE), 1024);
	/* Capture registers are read-only. */
	model_wr32(m, MSMON_MBWU_CAPTURE, 5);
	assert_int_equal(model_rd32(m, MSMON_MBWU_CAPTURE), 1024);
	msc_model_free(m);

	p.has_capture = false;
	m = new_model(&p);
	program_mon(m, 0, 0, 1, 0, false, local | (uint32_t)MSMON_CFG_CTL_CAPT_RESET);
	assert_int_equal(mpam_field_get(MSMON_CFG_CTL_CAPT_EVNT, model_rd32(m, MSMON_CFG_MBWU_CTL)), 0);
	model_wr32(m, MSMON_MBWU, 77);
	model_wr32(m, MSMON_CAPT_EVNT, (uint32_t)MSMON_CAPT_EVNT_NOW);
	assert_int_equal(model_rd32(m, MSMON_MBWU_CAPTURE), 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU) & MSMON_MBWU_VALUE, 77);
	msc_model_free(m);
}

/* ---------------------------------------------------------------- errors */

static void expect_error(struct msc_model *m, enum mpam_errcode code, uint16_t partid_mon, uint8_t pmg, uint8_t ris)
{
	struct mpamf_esr esr = esr_now(m);

	assert_int_equal(esr.errcode, code);
	assert_int_equal(esr.partid_mon, partid_mon);
	assert_int_equal(esr.pmg, pmg);
	assert_int_equal(esr.ris, ris);
	assert_false(esr.ovrwr);
	/* Software sees the same register, the RIS in the high word. */
	assert_true(model_rd64(m, MPAMF_ESR) == msc_model_esr(m));
	assert_int_equal(model_rd32(m, MPAMF_ESR + 4), ris);
	model_wr32(m, MPAMF_ESR, 0); /* acknowledge: ERRCODE 0 */
	assert_true(msc_model_esr(m) == 0);
}

static void test_errcodes(void **state)
{
	struct msc_model *m = *state;
	uint64_t errors = 0;

	/* 1: PARTID_SEL out of range. The access has no effect and reads 0. */
	sel_part(m, 1, 16);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0);
	expect_error(m, MPAM_ERR_PARTID_SEL_RANGE, 16, 0, 1);
	model_wr32(m, MPAMCFG_MBW_MAX, 0);
	expect_error(m, MPAM_ERR_PARTID_SEL_RANGE, 16, 0, 1);
	assert_int_equal(msc_model_mbw_max(m, 1, 0), 0xFF00);
	assert_int_equal(msc_model_mbw_max(m, 1, 15), 0xFF00);
	errors += 2;
	/* 8: undefined RIS in PART_SEL. */
	sel_part(m, 3, 2);
	model_wr32(m, MPAMCFG_CPBM(0), 0);
	expect_error(m, MPAM_ERR_UNDEF_RIS_PART_SEL, 2, 0, 3);
	errors++;
	/* Without PARTID narrowing INTERNAL is RAZ/WI (Arm ARM, MPAMCFG_PART_SEL): no error, the access
	 * reaches the PARTID. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(2, 4) | (uint32_t)MPAMCFG_PART_SEL_INTERNAL);
	assert_int_equal(model_rd32(m, MPAMCFG_PART_SEL), mpamcfg_part_sel(2, 4));
	model_wr32(m, MPAMCFG_PRI, 1);
	assert_true(msc_model_esr(m) == 0);
	sel_part(m, 2, 4);
	assert_int_equal(model_rd32(m, MPAMCFG_PRI), 1);
	/* 5: monitor selector out of range. */
	sel_mon(m, 2, 40);
	assert_int_equal(model_rd32(m, MSMON_CFG_MBWU_CTL), 0);
	expect_error(m, MPAM_ERR_MONITOR_RANGE, 40, 0, 2);
	errors++;
	/* 10: undefined RIS in MON_SEL. */
	sel_mon(m, 9, 1);
	model_wr32(m, MSMON_MBWU, 0);
	expect_error(m, MPAM_ERR_UNDEF_RIS_MON_SEL, 1, 0, 9);
	errors++;
	/* 3: FLT PARTID or PMG out of range; the write is ignored. */
	sel_mon(m, 1, 7);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 5);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 16);
	expect_error(m, MPAM_ERR_MSMONCFG_ID_RANGE, 16, 0, 1);
	model_wr32(m, MSMON_CFG_MBWU_FLT, 2u << 16 | 0);
	assert_true(msc_model_esr(m) == 0); /* PMG 2 is fine */
	model_wr32(m, MSMON_CFG_MBWU_FLT, 4u << 16 | 3);
	expect_error(m, MPAM_ERR_MSMONCFG_ID_RANGE, 3, 4, 1);
	assert_int_equal(model_rd32(m, MSMON_CFG_MBWU_FLT), 2u << 16);
	errors += 2;
	/* 2 and 4: traffic with a PARTID or PMG out of range is not counted. */
	program_mon(m, 0, 0, 0, 0, false, 0);
	model_wr32(m, MSMON_CFG_MBWU_CTL, (uint32_t)MSMON_CFG_CTL_EN); /* count everything */
	msc_model_count(m, 0, 16, 0, 10, 0);
	expect_error(m, MPAM_ERR_REQ_PARTID_RANGE, 16, 0, 0);
	msc_model_count(m, 2, 3, 4, 10, 0);
	expect_error(m, MPAM_ERR_REQ_PMG_RANGE, 3, 4, 2);
	assert_int_equal(mon_reg(m, 0, 0, MSMON_MBWU), 0);
	errors += 2;
	assert_true(msc_model_error_count(m) == errors);
}

static void test_ris_errors_without_has_ris(void **state)
{
	struct msc_model_params p;
	struct msc_model *m;

	(void)state;
	msc_model_params_default(&p);
	m = new_model(&p);
	sel_part(m, 1, 0);
	model_rd32(m, MPAMCFG_MBW_MIN);
	assert_int_equal(esr_now(m).errcode, MPAM_ERR_UNDEF_RIS_PART_SEL);
	assert_int_equal(esr_now(m).ris, 0); /* no extended ESR to hold it */
	assert_int_equal(model_rd32(m, MPAMF_ESR + 4), 0);
	model_wr32(m, MPAMF_ESR, 0);
	sel_mon(m, 1, 0);
	model_rd32(m, MSMON_CFG_MBWU_FLT);
	assert_int_equal(esr_now(m).errcode, MPAM_ERR_UNDEF_RIS_MON_SEL);
	assert_int_equal(msc_model_error_count(m), 2);
	msc_model_free(m);
}

static void test_esr_overwrite_and_clear(void **state)
{
	struct msc_model *m = *state;
	struct mpamf_esr esr;

	sel_part(m, 0, 20);
	model_rd32(m, MPAMCFG_MBW_MAX);
	assert_false(esr_now(m).ovrwr);
	sel_mon(m, 2, 41);
	model_rd32(m, MSMON_MBWU);
	esr = esr_now(m);
	assert_true(esr.ovrwr); /* a second error while the first was pending */
	assert_int_equal(esr.errcode, MPAM_ERR_MONITOR_RANGE);
	assert_int_equal(esr.partid_mon, 41);
	assert_int_equal(esr.ris, 2);
	assert_true(model_rd32(m, MPAMF_ESR) & MPAMF_ESR_OVRWR);
	/* Linux clears high word first, then low (mpam_msc_clear_esr()). */
	model_wr32(m, MPAMF_ESR + 4, 0);
	assert_int_equal(esr_now(m).ris, 0);
	assert_int_equal(esr_now(m).errcode, MPAM_ERR_MONITOR_RANGE);
	model_wr32(m, MPAMF_ESR, 0);
	assert_true(msc_model_esr(m) == 0);
	/* After clearing, a new error is not an overwrite. */
	model_rd32(m, MSMON_MBWU);
	assert_false(esr_now(m).ovrwr);
	/* A 64-bit write of zero clears it as well. */
	model_wr64(m, MPAMF_ESR, 0);
	assert_true(msc_model_esr(m) == 0);
	assert_int_equal(msc_model_error_count(m), 3);
	/* ECR.INTEN is the only ECR bit. */
	model_wr32(m, MPAMF_ECR, 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMF_ECR), MPAMF_ECR_INTEN);
	model_wr32(m, MPAMF_ECR, 0);
	assert_int_equal(model_rd32(m, MPAMF_ECR), 0);
}

static void test_esr_invisible_without_has_esr(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.has_esr = false;
	p.has_extd_esr = false;
	m = new_model(&p);
	assert_false(mpamf_idr_decode(model_rd64(m, MPAMF_IDR)).has_esr);
	sel_part(m, 0, 99);
	model_rd32(m, MPAMCFG_MBW_MAX);
	assert_int_equal(model_rd32(m, MPAMF_ESR), 0);
	assert_int_equal(esr_now(m).errcode, MPAM_ERR_PARTID_SEL_RANGE); /* hardware still holds it */
	model_wr32(m, MPAMF_ESR, 0);					 /* WI */
	assert_int_equal(esr_now(m).errcode, MPAM_ERR_PARTID_SEL_RANGE);
	model_wr32(m, MPAMF_ECR, 1);
	assert_int_equal(model_rd32(m, MPAMF_ECR), 0);
	msc_model_count(m, 0, 0, 200, 1, 1);
	assert_int_equal(msc_model_error_count(m), 2);
	assert_true(esr_now(m).ovrwr);
	msc_model_free(m);
}

/* ---------------------------------------------------------------- access rules */

/* The injected faults the fault suite drives mpamd with: NRDY held on every monitor whatever
 * software writes, a count that jumps, an error raised as hardware raises it. */
static void test_injected_faults(void **state)
{
	struct msc_model *m = *state;

	program_mon(m, 0, 4, 1, 0, false, 0);
	program_mon(m, 0, 5, 2, 0, false, 0);
	msc_model_count(m, 0, 1, 0, 100, 0);
	msc_model_hold_nrdy(m, 2);
	sel_mon(m, 0, 4);
	assert_true(nrdy(m));
	model_wr32(m, MSMON_MBWU, 0); /* software cannot clear it */
	assert_true(nrdy(m));
	msc_model_count(m, 0, 1, 0, 50, 0); /* not ready: not counted */
	msc_model_tick(m);
	assert_true(nrdy(m));
	msc_model_tick(m);
	assert_false(nrdy(m));
	msc_model_count(m, 0, 1, 0, 7, 0);
	assert_int_equal(mon_reg(m, 0, 4, MSMON_MBWU), 7);
	/* A jump moves every enabled monitor's count, forward or back, without overflow status. */
	msc_model_jump(m, 1000);
	assert_int_equal(mon_reg(m, 0, 4, MSMON_MBWU), 1007);
	assert_int_equal(mon_reg(m, 0, 5, MSMON_MBWU), 1000);
	msc_model_jump(m, -500);
	assert_int_equal(mon_reg(m, 0, 4, MSMON_MBWU), 507);
	assert_int_equal(mon_reg(m, 0, 6, MSMON_MBWU), 0); /* not enabled */
	assert_int_equal(mon_reg(m, 0, 4, MSMON_CFG_MBWU_CTL) & MSMON_CFG_CTL_OFLOW_STATUS, 0);
	/* An error as a request would raise it, in ESR until acknowledged. */
	msc_model_raise_error(m, MPAM_ERR_MONITOR_RANGE, 9, 1, 2);
	expect_error(m, MPAM_ERR_MONITOR_RANGE, 9, 1, 2);
}

static void test_bad_accesses_refused_and_counted(void **state)
{
	struct msc_model *m = *state;
	uint32_t v32 = 0x11111111;
	uint64_t v64 = 0x2222222222222222;

	sel_part(m, 0, 3);
	assert_int_equal(msc_model_read32(m, MPAM_MSC_PAGE_SIZE, &v32), -EFAULT);
	assert_int_equal(msc_model_read32(m, 0xFFFFFFFC, &v32), -EFAULT);
	assert_int_equal(msc_model_read32(m, MPAMCFG_PART_SEL + 2, &v32), -EFAULT);
	assert_int_equal(v32, 0x11111111);
	assert_int_equal(msc_model_write32(m, MPAMCFG_PART_SEL + 1, 7), -EFAULT);
	assert_int_equal(msc_model_write32(m, MPAM_MSC_PAGE_SIZE + 0x100, 7), -EFAULT);
	assert_int_equal(msc_model_read64(m, MPAMF_IDR + 4, &v64), -EFAULT); /* 4- but not 8-aligned */
	assert_int_equal(msc_model_read64(m, MPAM_MSC_PAGE_SIZE - 4, &v64), -EFAULT);
	assert_int_equal(msc_model_read64(m, 0xFFFFFFF8, &v64), -EFAULT);
	assert_true(v64 == 0x2222222222222222);
	assert_int_equal(msc_model_write64(m, MPAMCFG_PART_SEL + 4, 0), -EFAULT);
	assert_int_equal(msc_model_write64(m, MPAM_MSC_PAGE_SIZE, 0), -EFAULT);
	assert_int_equal(msc_model_bad_accesses(m), 10);
	assert_int_equal(model_rd32(m, MPAMCFG_PART_SEL), 3); /* nothing changed */
	assert_int_equal(msc_model_error_count(m), 0);
	/* The last word of the page is fine. */
	assert_int_equal(model_rd32(m, MPAM_MSC_PAGE_SIZE - 4), 0);
	assert_int_equal(model_rd64(m, MPAM_MSC_PAGE_SIZE - 8), 0);
	assert_int_equal(msc_model_bad_accesses(m), 10);
}

static void test_64bit_access_to_32bit_pairs(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.cpbm_wd = 33;
	m = new_model(&p);
	sel_part(m, 0, 1);
	model_wr64(m, MPAMCFG_CPBM(0), UINT64_C(0x0000000212345678)); /* CPBM0 then CPBM1 */
	assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), 0x12345678);
	assert_int_equal(model_rd32(m, MPAMCFG_CPBM(1)), 0); /* bit 33 does not exist, bit 32 was written 0 */
	model_wr64(m, MPAMCFG_CPBM(0), UINT64_C(0x0000000312345678));
	assert_int_equal(model_rd32(m, MPAMCFG_CPBM(1)), 1);
	assert_true(model_rd64(m, MPAMCFG_CPBM(0)) == UINT64_C(0x0000000112345678));
	/* A register next to a hole: the high half is RAZ/WI. */
	model_wr64(m, MPAMCFG_MBW_MIN, UINT64_C(0xFFFFFFFF00004000));
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), 0x4000);
	assert_true(model_rd64(m, MPAMCFG_MBW_MIN) == 0x4000);
	/* MON_SEL and CAPT_EVNT are separate registers at 0x800 and 0x808. */
	model_wr64(m, MSMON_CFG_MON_SEL, UINT64_C(0xFFFFFFFF00000007));
	assert_int_equal(model_rd32(m, MSMON_CFG_MON_SEL), 7);
	assert_true(model_rd64(m, MSMON_CFG_MBWU_FLT) == model_rd32(m, MSMON_CFG_MBWU_FLT));
	/* 64-bit registers act as a whole. */
	assert_true(model_rd64(m, MPAMF_IDR) >> 32 != 0);
	assert_int_equal(msc_model_error_count(m), 0);
	msc_model_free(m);
}

static void test_bus_sim_forwards(void **state)
{
	struct msc_model *m = *state;
	struct msc_bus *bus;
	uint32_t v32 = 0;
	uint64_t v64 = 0;

	bus = NULL;
	assert_int_equal(bus_sim_new(NULL, 0, &bus), -EINVAL);
	assert_null(bus);
	assert_int_equal(bus_sim_new(m, UINT64_C(0x90000000), &bus), 0);
	assert_non_null(bus);
	assert_true(bus->base == UINT64_C(0x90000000));
	assert_true(bus->size == MPAM_MSC_PAGE_SIZE);
	assert_int_equal(bus_write32(bus, MPAMCFG_PART_SEL, mpamcfg_part_sel(2, 6)), 0);
	assert_int_equal(bus_write32(bus, MPAMCFG_MBW_MAX, 0x4000), 0);
	assert_int_equal(msc_model_mbw_max(m, 2, 6), 0x4000);
	assert_int_equal(bus_read32(bus, MPAMCFG_MBW_MAX, &v32), 0);
	assert_int_equal(v32, 0x4000);
	assert_int_equal(bus_read64(bus, MPAMF_IDR, &v64), 0);
	assert_true(v64 == model_rd64(m, MPAMF_IDR));
	assert_int_equal(bus_write32(bus, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(1, 2)), 0);
	assert_int_equal(bus_write64(bus, MSMON_MBWU_L, UINT64_C(0x123456789AB)), 0);
	assert_true(mon_reg64(m, 1, 2, MSMON_MBWU_L) == UINT64_C(0x123456789AB));
	assert_int_equal(bus_read32(bus, 3, &v32), -EFAULT);
	assert_int_equal(bus_write64(bus, MPAM_MSC_PAGE_SIZE, 0), -EFAULT);
	assert_int_equal(msc_model_bad_accesses(m), 2);
	bus_free(bus);
	/* The model outlives its bus. */
	assert_int_equal(model_rd32(m, MPAMCFG_PART_SEL), mpamcfg_part_sel(2, 6));
}

/* ---------------------------------------------------------------- controls beyond MBW_MAX/MIN and
 * CPBM, and PARTID narrowing */

/* full_params' MSC with 32 request PARTIDs narrowed to 8 intPARTIDs on 2 RIS, and every bandwidth and
 * cache control. */
static struct msc_model_params narrowing_params(void)
{
	struct msc_model_params p = full_params();

	p.partid_max = 31;
	p.ris_max = 1;
	p.has_partid_nrw = true;
	p.intpartid_max = 7;
	p.has_prop = true;
	p.bwpbm_wd = 40;
	p.cmax_wd = 8;
	p.has_cmin = true;
	p.cassoc_wd = 4;
	return p;
}

static int narrowing_model_setup(void **state)
{
	struct msc_model_params p = narrowing_params();

	*state = new_model(&p);
	return 0;
}

#define narrowing_model_test(test) cmocka_unit_test_setup_teardown(test, narrowing_model_setup, model_teardown)

/* ---------------------------------------------------------------- ID registers */

static void test_id_registers_describe_the_new_controls(void **state)
{
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = new_model(&p);

	(void)state;
	struct mpamf_idr idr =
		mpamf_idr_decode(model_rd32(m, MPAMF_IDR) | (uint64_t)model_rd32(m, MPAMF_IDR + 4) << 32);
	assert_true(idr.has_partid_nrw && idr.has_ccap_part && idr.has_mbw_part);
	assert_int_equal(idr.partid_max, 31); /* the request PARTIDs */
	assert_int_equal(mpam_field_get(MPAMF_PARTID_NRW_IDR_INTPARTID_MAX, model_rd32(m, MPAMF_PARTID_NRW_IDR)), 7);
	struct mpamf_mbw_idr mbw = mpamf_mbw_idr_decode(model_rd32(m, MPAMF_MBW_IDR));
	assert_true(mbw.has_prop && mbw.has_pbm);
	assert_int_equal(mbw.bwpbm_wd, 40);
	uint32_t ccap = model_rd32(m, MPAMF_CCAP_IDR);
	assert_int_equal(mpam_field_get(MPAMF_CCAP_IDR_CMAX_WD, ccap), 8);
	assert_int_equal(mpam_field_get(MPAMF_CCAP_IDR_CASSOC_WD, ccap), 4);
	assert_true((ccap & MPAMF_CCAP_IDR_HAS_CMIN) && (ccap & MPAMF_CCAP_IDR_HAS_CASSOC));
	assert_false(ccap & MPAMF_CCAP_IDR_NO_CMAX);
	msc_model_free(m);

	/* The defaults have none of them: the registers are RAZ/WI. */
	msc_model_params_default(&p);
	m = new_model(&p);
	assert_false(mpamf_idr_decode(model_rd32(m, MPAMF_IDR)).has_partid_nrw);
	assert_int_equal(model_rd32(m, MPAMF_PARTID_NRW_IDR), 0);
	assert_int_equal(model_rd32(m, MPAMF_CCAP_IDR), 0);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 3));
	model_wr32(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 5);
	model_wr32(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 1);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_INTPARTID), 0);
	assert_true(msc_model_esr(m) == 0);
	msc_model_free(m);
}

static void test_new_rejects_impossible_narrowing(void **state)
{
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = NULL;

	(void)state;
	p.intpartid_max = 32; /* more intPARTIDs than request PARTIDs */
	assert_int_equal(msc_model_new(&p, &m), -EINVAL);
	p = narrowing_params();
	p.bwpbm_wd = 4097;
	assert_int_equal(msc_model_new(&p, &m), -EINVAL);
	assert_null(m);
}

/* ---------------------------------------------------------------- the controls */

static void test_controls_reset_and_round_trip(void **state)
{
	struct msc_model_params p;
	struct msc_model *m;

	(void)state;
	p = msc_params_every_control();
	m = new_model(&p);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 9));
	/* Reset: PROP off, every portion, CMAX and CASSOC at 100%, CMIN 0. */
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PBM(0)), 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PBM(1)), 0xFF);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PBM(2)), 0); /* beyond BWPBM_WD: RAZ/WI */
	assert_int_equal(model_rd32(m, MPAMCFG_CMAX), 0xFF00);
	assert_int_equal(model_rd32(m, MPAMCFG_CMIN), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_CASSOC), 0xF000);
	/* Implemented bits only: STRIDEM1 is BWA_WD (8) bits, the fractions their top bits. */
	model_wr32(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 0x1234);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 0x34);
	model_wr32(m, MPAMCFG_MBW_PBM(1), 0xFFFF0F0F);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PBM(1)), 0x0F);
	model_wr32(m, MPAMCFG_CMAX, 0xFFFF);
	model_wr32(m, MPAMCFG_CMIN, 0x1234);
	model_wr32(m, MPAMCFG_CASSOC, 0x1234);
	assert_int_equal(model_rd32(m, MPAMCFG_CMAX), 0xFF00);
	assert_int_equal(model_rd32(m, MPAMCFG_CMIN), 0x1200);
	assert_int_equal(model_rd32(m, MPAMCFG_CASSOC), 0x1000);
	/* Another PARTID kept its reset values. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 8));
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PBM(1)), 0xFF);
	assert_true(msc_model_esr(m) == 0);
	msc_model_free(m);
}

/* MBW_PROP and MBW_PBM limit what the traffic side lets through, on top of MBW_MAX. */
static void test_prop_and_pbm_reach_the_traffic_side(void **state)
{
	struct msc_model_params p;
	struct msc_model *m;
	struct msc_model_limits lim;

	(void)state;
	msc_model_params_default(&p);
	p.has_prop = true;
	p.bwpbm_wd = 40;
	m = new_model(&p);
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 1.0 && lim.pbm_share == 1.0);
	assert_false(lim.hardlim);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 5));
	model_wr32(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 3);
	model_wr32(m, MPAMCFG_MBW_PBM(0), 0x000000FF); /* 8 of 40 portions, the second word still full */
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 0.25);
	assert_true(lim.pbm_share == (8.0 + 8.0) / 40.0);
	model_wr32(m, MPAMCFG_MBW_PROP, 3); /* disabled: the stride no longer counts */
	model_wr32(m, MPAMCFG_MBW_PBM(1), 0);
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 1.0);
	assert_true(lim.pbm_share == 8.0 / 40.0);
	msc_model_free(m);
}

/* With limit_delay_ticks the traffic side sees a write of every bandwidth control N ticks later, the
 * register at once; other RIS and PARTIDs are not held up by it, and an earlier owner's state is in
 * force from the start. */
static void test_limits_act_delay_ticks_after_the_write(void **state)
{
	struct msc_model_params p = msc_params_every_control();
	struct msc_model_limits lim;
	struct msc_model *m;

	(void)state;
	p.limit_delay_ticks = MSC_MODEL_DELAY_TICKS_MAX + 1;
	assert_int_equal(msc_model_new(&p, &m), -EINVAL);
	p.limit_delay_ticks = 2;
	m = new_model(&p);
	assert_int_equal(msc_model_preload_mbw_prop(m, 9, 1), 0);
	msc_model_traffic_limits(m, 0, 9, &lim);
	assert_true(lim.prop_share == 0.5); /* left long ago: in force */
	msc_model_tick(m);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 5));
	model_wr32(m, MPAMCFG_MBW_MAX, 0x4000 | (uint32_t)MPAMCFG_MBW_MAX_HARDLIM);
	model_wr32(m, MPAMCFG_MBW_MIN, 0x2000);
	model_wr32(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 3);
	model_wr32(m, MPAMCFG_MBW_PBM(0), 0);
	for (int t = 0; t < 2; t++) {
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0x4000 | (uint32_t)MPAMCFG_MBW_MAX_HARDLIM);
		assert_int_equal(msc_model_mbw_max(m, 0, 5), 0x4000);
		assert_int_equal(msc_model_mbw_min(m, 0, 5), 0x2000);
		msc_model_traffic_limits(m, 0, 5, &lim);
		assert_int_equal(lim.mbw_max, 0xFF00);
		assert_int_equal(lim.mbw_min, 0);
		assert_false(lim.hardlim);
		assert_true(lim.prop_share == 1.0 && lim.pbm_share == 1.0);
		msc_model_tick(m);
	}
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_int_equal(lim.mbw_max, 0x4000);
	assert_int_equal(lim.mbw_min, 0x2000);
	assert_true(lim.hardlim);
	assert_true(lim.prop_share == 0.25);
	assert_true(lim.pbm_share == 8.0 / 40.0); /* the first word cleared, 8 portions left in the second */
	msc_model_traffic_limits(m, 0, 6, &lim);
	assert_int_equal(lim.mbw_max, 0xFF00); /* never written */
	msc_model_free(m);
}

/* Every PARTID written every tick, each a value of its own: the traffic side sees, tick after tick,
 * what each was written N ticks before (the queue of writes on their way grows and wraps). */
static void test_many_delayed_writes(void **state)
{
	enum {
		DELAY = 5,
		TICKS = 40
	};
	struct msc_model_params p;
	struct msc_model_limits lim;
	struct msc_model *m;

	(void)state;
	msc_model_params_default(&p);
	p.limit_delay_ticks = DELAY;
	m = new_model(&p);
	for (unsigned t = 0; t < TICKS; t++) {
		for (uint16_t id = 0; id <= p.partid_max; id++) {
			sel_part(m, 0, id);
			model_wr32(m, MPAMCFG_MBW_MAX, ((t * 7 + id) % 256) << 8);
			msc_model_traffic_limits(m, 0, id, &lim);
			unsigned expect = t < DELAY ? 0xFF00 : ((t - DELAY) * 7 + id) % 256 << 8;
			assert_int_equal(lim.mbw_max, expect);
		}
		msc_model_tick(m);
	}
	msc_model_free(m);
}

static void test_preload_is_what_an_earlier_owner_left(void **state)
{
	struct msc_model_params p;
	struct msc_model *m;
	struct msc_model_limits lim;

	(void)state;
	msc_model_params_default(&p);
	p.has_ris = true;
	p.ris_max = 1;
	p.has_prop = true;
	p.bwpbm_wd = 8;
	m = new_model(&p);
	assert_int_equal(msc_model_preload_mbw_prop(m, 3, 3), 0);
	assert_int_equal(msc_model_preload_mbw_pbm(m, 4, 0x3), 0);
	for (unsigned r = 0; r < 2; r++) {
		model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(r, 3));
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 3);
		model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(r, 4));
		assert_int_equal(model_rd32(m, MPAMCFG_MBW_PBM(0)), 0x3);
		msc_model_traffic_limits(m, r, 4, &lim);
		assert_true(lim.pbm_share == 0.25);
	}
	/* What the MSC cannot hold is refused. */
	assert_int_equal(msc_model_preload_mbw_prop(m, 64, 3), -EINVAL);
	assert_int_equal(msc_model_preload_mbw_prop(m, 3, 256), -EINVAL); /* STRIDEM1 is 8 bits */
	msc_model_free(m);
	msc_model_params_default(&p);
	m = new_model(&p);
	assert_int_equal(msc_model_preload_mbw_prop(m, 3, 3), -EINVAL);
	assert_int_equal(msc_model_preload_mbw_pbm(m, 3, 1), -EINVAL);
	assert_true(msc_model_esr(m) == 0);
	msc_model_free(m);
}

/* ---------------------------------------------------------------- PARTID narrowing */

/* Mapping a request PARTID and configuring its intPARTID the way Linux does
 * (mpam_reprogram_ris_partid): the configuration governs the request, and no error is raised. */
static void test_narrowing_used_as_the_kernel_does(void **state)
{
	struct msc_model *m = *state;

	/* At reset every request PARTID reaches intPARTID 0. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 20));
	assert_int_equal(model_rd32(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 0);
	model_wr32(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 6);
	assert_int_equal(model_rd32(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 6);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(1, 6));
	assert_int_equal(model_rd32(m, MPAMCFG_PART_SEL), mpamcfg_int_part_sel(1, 6)); /* INTERNAL is kept */
	model_wr32(m, MPAMCFG_MBW_MAX, 0x4000);
	model_wr32(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 1);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0x4000);
	assert_true(msc_model_esr(m) == 0);
	/* Request PARTID 20 on RIS 1 now has intPARTID 6's controls; RIS 0 kept its own map. */
	assert_int_equal(msc_model_mbw_max(m, 1, 20), 0x4000);
	struct msc_model_limits lim;
	msc_model_traffic_limits(m, 1, 20, &lim);
	assert_true(lim.prop_share == 0.5);
	assert_int_equal(msc_model_mbw_max(m, 0, 20), 0xFF00);
	/* Another request PARTID mapped to the same intPARTID shares its configuration. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 31));
	model_wr32(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 6);
	assert_int_equal(msc_model_mbw_max(m, 1, 31), 0x4000);
	assert_true(msc_model_esr(m) == 0);
	assert_true(msc_model_error_count(m) == 0);
}

/* A driver that ignores narrowing selects request PARTIDs with INTERNAL clear: every configuration
 * access is an intPARTID_Range error (Arm ARM, MPAMCFG_PART_SEL.INTERNAL) and changes nothing. */
static void test_narrowing_used_the_old_way_raises_errors(void **state)
{
	struct msc_model *m = *state;

	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 3));
	model_wr32(m, MPAMCFG_MBW_MAX, 0x4000);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 3, 0, 1);
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), 0);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 3, 0, 1);
	model_wr32(m, MPAMCFG_CPBM(0), 0xF);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 3, 0, 1);
	assert_int_equal(msc_model_mbw_max(m, 1, 3), 0xFF00); /* no effect on anything */
	assert_true(msc_model_error_count(m) == 3);
}

static void test_narrowing_errors(void **state)
{
	struct msc_model *m = *state;

	/* 6: an intPARTID beyond INTPARTID_MAX, selected for a configuration register. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(0, 8));
	model_wr32(m, MPAMCFG_MBW_MIN, 0x1000);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 8, 0, 0);
	/* 7: MPAMCFG_INTPARTID reached with INTERNAL set, read or written. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(1, 2));
	assert_int_equal(model_rd32(m, MPAMCFG_INTPARTID), 0);
	expect_error(m, MPAM_ERR_UNEXPECTED_INTERNAL, 2, 0, 1);
	model_wr32(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 2);
	expect_error(m, MPAM_ERR_UNEXPECTED_INTERNAL, 2, 0, 1);
	/* 6: an intPARTID out of range, or the INTERNAL bit clear in the value: no mapping is written. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 2));
	model_wr32(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 8);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 2, 0, 1);
	model_wr32(m, MPAMCFG_INTPARTID, 5);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 2, 0, 1);
	assert_int_equal(model_rd32(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 0);
	/* 1: a request PARTID beyond PARTID_MAX; 8: a RIS that is not there. */
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 32));
	model_wr32(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 1);
	expect_error(m, MPAM_ERR_PARTID_SEL_RANGE, 32, 0, 0);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(2, 1));
	model_wr32(m, MPAMCFG_MBW_MAX, 0);
	expect_error(m, MPAM_ERR_UNDEF_RIS_PART_SEL, 1, 0, 2);
	assert_true(msc_model_error_count(m) == 7);
}

/* Preloading a PARTID on a narrowing MSC maps it to the intPARTID of its number, as firmware that
 * gave it controls of its own would have; one beyond INTPARTID_MAX cannot be. */
static void test_narrowing_preload(void **state)
{
	struct msc_model *m = *state;
	struct msc_model_limits lim;

	assert_int_equal(msc_model_preload_mbw_prop(m, 5, 1), 0);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 5));
	assert_int_equal(model_rd32(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 5);
	model_wr32(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(0, 5));
	assert_int_equal(model_rd32(m, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 1);
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 0.5);
	msc_model_traffic_limits(m, 0, 6, &lim); /* still on intPARTID 0 */
	assert_true(lim.prop_share == 1.0);
	assert_int_equal(msc_model_preload_mbw_prop(m, 9, 1), -EINVAL);
	assert_true(msc_model_esr(m) == 0);
}

/* ---------------------------------------------------------------- scale and randomness */

static void test_large_partid_and_monitor_spaces(void **state)
{
	struct msc_model_params p = full_params();
	struct msc_model *m;

	(void)state;
	p.partid_max = 65535;
	p.pmg_max = 255;
	p.num_mon = 65535;
	p.ris_max = 1;
	p.cpbm_wd = 64;
	m = new_model(&p);
	assert_int_equal(mpamf_idr_decode(model_rd64(m, MPAMF_IDR)).partid_max, 65535);
	assert_int_equal(mpamf_mbwumon_idr_decode(model_rd32(m, MPAMF_MBWUMON_IDR)).num_mon, 65535);
	sel_part(m, 1, 65535);
	model_wr32(m, MPAMCFG_MBW_MAX, 0x1200);
	model_wr32(m, MPAMCFG_CPBM(1), 0);
	assert_int_equal(msc_model_mbw_max(m, 1, 65535), 0x1200);
	assert_int_equal(msc_model_mbw_max(m, 0, 65535), 0xFF00);
	assert_int_equal(model_rd32(m, MPAMCFG_CPBM(0)), 0xFFFFFFFF);
	assert_int_equal(model_rd32(m, MPAMCFG_CPBM(1)), 0);
	program_mon(m, 1, 65534, 65535, 255, true, 0);
	model_wr32(m, MSMON_MBWU, 0x7FFFFFFF);
	msc_model_count(m, 1, 65535, 255, 1, 0);
	assert_int_equal(model_rd32(m, MSMON_MBWU), 0);
	/* 65534 is bit 30 of the group starting at 65504. */
	assert_int_equal(model_rd32(m, MSMON_MBWU_OFSR), 1u << 30);
	sel_mon(m, 1, 65535);
	model_rd32(m, MSMON_MBWU);
	assert_int_equal(esr_now(m).errcode, MPAM_ERR_MONITOR_RANGE);
	assert_int_equal(msc_model_error_count(m), 1);
	msc_model_free(m);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

struct shadow_cfg {
	uint32_t max, min, pri;
	uint32_t cpbm[3];
};

/* Random writes of random PARTIDs and RIS of a randomly shaped MSC; every register then reads
 * back what an independent computation of its implemented bits says. */
static void test_random_config_round_trips(void **state)
{
	const char *env = getenv("MPAMD_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	uint64_t s = seed;

	(void)state;
	fprintf(stderr, "test_random_config_round_trips: seed %" PRIu64 " (set MPAMD_TEST_SEED to repeat)\n", seed);
	for (int round = 0; round < 20; round++) {
		struct msc_model_params p = full_params();
		struct shadow_cfg *shadow;
		struct msc_model *m;
		unsigned nr_ris, nr_partids, words;
		uint32_t bwa_mask, pri_mask;

		p.bwa_wd = (uint8_t)(1 + splitmix(&s) % 16);
		p.cpbm_wd = (uint16_t)(1 + splitmix(&s) % 96);
		p.pri_wd = (uint8_t)(1 + splitmix(&s) % 16);
		p.partid_max = (uint16_t)(splitmix(&s) % 32);
		p.ris_max = (uint8_t)(splitmix(&s) % 4);
		p.max_lim = 0;
		nr_ris = p.ris_max + 1u;
		nr_partids = p.partid_max + 1u;
		words = (p.cpbm_wd + 31u) / 32u;
		bwa_mask = 0xFFFFu & ~((1u << (16 - p.bwa_wd)) - 1);
		pri_mask = p.pri_wd == 16 ? 0xFFFFFFFFu : (((1u << p.pri_wd) - 1) * 0x10001u);
		m = new_model(&p);
		shadow = calloc(nr_ris * nr_partids, sizeof(*shadow));
		assert_non_null(shadow);
		for (unsigned i = 0; i < nr_ris * nr_partids; i++) {
			shadow[i].max = bwa_mask;
			for (unsigned w = 0; w < words; w++)
				shadow[i].cpbm[w] = w + 1 < words
							    ? 0xFFFFFFFF
							    : (uint32_t)((UINT64_C(1) << (p.cpbm_wd - 32 * w)) - 1);
		}
		for (int op = 0; op < 300; op++) {
			unsigned r = (unsigned)(splitmix(&s) % nr_ris), id = (unsigned)(splitmix(&s) % nr_partids);
			uint32_t v = (uint32_t)splitmix(&s);
			struct shadow_cfg *sh = &shadow[r * nr_partids + id];
			unsigned which = (unsigned)(splitmix(&s) % 4), w = (unsigned)(splitmix(&s) % words);

			sel_part(m, r, (uint16_t)id);
			if (which == 0) {
				model_wr32(m, MPAMCFG_MBW_MAX, v);
				sh->max = (v & bwa_mask) | (v & 0x80000000u);
			} else if (which == 1) {
				model_wr32(m, MPAMCFG_MBW_MIN, v);
				sh->min = v & bwa_mask;
			} else if (which == 2) {
				model_wr32(m, MPAMCFG_PRI, v);
				sh->pri = v & pri_mask;
			} else {
				uint32_t implemented = w + 1 < words
							       ? 0xFFFFFFFF
							       : (uint32_t)((UINT64_C(1) << (p.cpbm_wd - 32 * w)) - 1);
				model_wr32(m, MPAMCFG_CPBM(w), v);
				sh->cpbm[w] = v & implemented;
			}
		}
		for (unsigned r = 0; r < nr_ris; r++) {
			for (unsigned id = 0; id < nr_partids; id++) {
				struct shadow_cfg *sh = &shadow[r * nr_partids + id];

				sel_part(m, r, (uint16_t)id);
				assert_int_equal(model_rd32(m, MPAMCFG_MBW_MAX), sh->max);
				assert_int_equal(model_rd32(m, MPAMCFG_MBW_MIN), sh->min);
				assert_int_equal(model_rd32(m, MPAMCFG_PRI), sh->pri);
				for (unsigned w = 0; w < 3; w++)
					assert_int_equal(model_rd32(m, MPAMCFG_CPBM(w)), w < words ? sh->cpbm[w] : 0);
			}
		}
		assert_int_equal(msc_model_error_count(m), 0);
		free(shadow);
		msc_model_free(m);
	}
}

/* Random traffic against a randomly programmed set of monitors; each monitor's long view equals
 * the sum a direct filter evaluation predicts. */
struct random_mon {
	uint16_t partid;
	uint8_t pmg, rwbw;
	bool match_partid, match_pmg, en;
	uint64_t expect;
};

/* Gives monitor i a random filter and control (its count is kept, as the architecture says). */
static void random_program(struct msc_model *m, uint16_t i, struct random_mon *mon, uint64_t *s)
{
	struct msmon_mbwu_flt flt;
	struct msmon_mbwu_ctl ctl = { 0 };

	mon->partid = (uint16_t)(splitmix(s) % 16);
	mon->pmg = (uint8_t)(splitmix(s) % 4);
	mon->rwbw = (uint8_t)(splitmix(s) % 3);
	mon->match_partid = splitmix(s) % 2;
	mon->match_pmg = splitmix(s) % 2;
	mon->en = splitmix(s) % 8 != 0;
	flt = (struct msmon_mbwu_flt){ .partid = mon->partid, .pmg = mon->pmg, .rwbw = mon->rwbw };
	ctl.match_partid = mon->match_partid;
	ctl.match_pmg = mon->match_pmg;
	ctl.en = mon->en;
	sel_mon(m, 0, i);
	model_wr32(m, MSMON_CFG_MBWU_FLT, msmon_mbwu_flt_encode(&flt));
	model_wr32(m, MSMON_CFG_MBWU_CTL, msmon_mbwu_ctl_encode(&ctl));
}

/* Random filters, reprogrammed now and then while traffic flows: the model's monitor index must
 * count exactly what a scan of every monitor would. */
static void test_random_counting(void **state)
{
	const char *env = getenv("MPAMD_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ 0x5A5A;
	uint64_t s = seed;
	struct msc_model_params p = full_params();
	struct msc_model *m;
	struct random_mon mon[40];

	(void)state;
	fprintf(stderr, "test_random_counting: seed %" PRIu64 " (set MPAMD_TEST_SEED to repeat)\n", seed);
	p.has_ris = false;
	m = new_model(&p);
	for (uint16_t i = 0; i < 40; i++) {
		random_program(m, i, &mon[i], &s);
		mon[i].expect = 0;
	}
	for (int op = 0; op < 4000; op++) {
		uint16_t partid = (uint16_t)(splitmix(&s) % 16);
		uint8_t pmg = (uint8_t)(splitmix(&s) % 4);
		uint64_t rb = splitmix(&s) % 100000, wb = splitmix(&s) % 100000;

		if (op % 50 == 49) {
			uint16_t i = (uint16_t)(splitmix(&s) % 40);
			random_program(m, i, &mon[i], &s);
		}
		msc_model_count(m, 0, partid, pmg, rb, wb);
		for (int i = 0; i < 40; i++) {
			if (!mon[i].en || (mon[i].match_partid && mon[i].partid != partid) ||
			    (mon[i].match_pmg && mon[i].pmg != pmg))
				continue;
			mon[i].expect +=
				(mon[i].rwbw != MPAM_RWBW_WRITES ? rb : 0) + (mon[i].rwbw != MPAM_RWBW_READS ? wb : 0);
		}
	}
	for (uint16_t i = 0; i < 40; i++) {
		assert_true(mon_reg64(m, 0, i, MSMON_MBWU_L) == mon[i].expect);
		assert_int_equal(mon_reg(m, 0, i, MSMON_MBWU), mon[i].expect & 0x7FFFFFFF);
	}
	assert_int_equal(msc_model_error_count(m), 0);
	msc_model_free(m);
}

TEST_MAIN({
	cmocka_unit_test(test_params_default),
	cmocka_unit_test(test_new_rejects_impossible_params),
	cmocka_unit_test(test_id_registers_decode_to_params),
	cmocka_unit_test(test_id_registers_without_features),
	cmocka_unit_test(test_part_sel_isolates_partids),
	full_model_test(test_part_sel_isolates_ris),
	cmocka_unit_test(test_mbw_fields_keep_top_bwa_wd_bits),
	cmocka_unit_test(test_hardlim_follows_max_lim),
	cmocka_unit_test(test_cpbm_keeps_bits_below_width),
	cmocka_unit_test(test_pri_keeps_low_pri_wd_bits),
	cmocka_unit_test(test_missing_min_or_max_is_raz_wi),
	cmocka_unit_test(test_monitor_selection),
	full_model_test(test_counting_filters),
	full_model_test(test_scale_applies_with_sclen),
	full_model_test(test_short_counter_wraps_with_status_and_ofsr),
	full_model_test(test_long_counter_wraps_at_44_bits),
	cmocka_unit_test(test_long_counter_wraps_at_63_bits),
	cmocka_unit_test(test_nrdy_hardware_managed),
	cmocka_unit_test(test_nrdy_software_managed_probe),
	full_model_test(test_injected_faults),
	cmocka_unit_test(test_capture_event),
	full_model_test(test_errcodes),
	cmocka_unit_test(test_ris_errors_without_has_ris),
	full_model_test(test_esr_overwrite_and_clear),
	cmocka_unit_test(test_esr_invisible_without_has_esr),
	full_model_test(test_bad_accesses_refused_and_counted),
	cmocka_unit_test(test_64bit_access_to_32bit_pairs),
	full_model_test(test_bus_sim_forwards),
	cmocka_unit_test(test_large_partid_and_monitor_spaces),
	cmocka_unit_test(test_random_config_round_trips),
	cmocka_unit_test(test_random_counting),
	cmocka_unit_test(test_id_registers_describe_the_new_controls),
	cmocka_unit_test(test_new_rejects_impossible_narrowing),
	cmocka_unit_test(test_controls_reset_and_round_trip),
	cmocka_unit_test(test_prop_and_pbm_reach_the_traffic_side),
	cmocka_unit_test(test_preload_is_what_an_earlier_owner_left),
	narrowing_model_test(test_narrowing_used_as_the_kernel_does),
	narrowing_model_test(test_narrowing_used_the_old_way_raises_errors),
	narrowing_model_test(test_narrowing_errors),
	narrowing_model_test(test_narrowing_preload),
	cmocka_unit_test(test_limits_act_delay_ticks_after_the_write),
	cmocka_unit_test(test_many_delayed_writes),
})
