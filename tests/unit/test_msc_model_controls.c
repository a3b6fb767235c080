/* The MSC register model's controls beyond MBW_MAX/MIN and CPBM (backends/sim/msc_model_config.c,
 * msc_model_partsel.c), through the register interface: MBW_PROP, MBW_PBM, CMAX/CMIN/CASSOC, PARTID
 * narrowing and the errors the Arm ARM gives its wrong accesses, an earlier owner's state and what
 * the traffic side reads of it all. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"

static struct msc_model *new_model(const struct msc_model_params *p)
{
	struct msc_model *m = NULL;

	assert_int_equal(msc_model_new(p, &m), 0);
	return m;
}

static uint32_t rd(struct msc_model *m, uint32_t offset)
{
	uint32_t v = 0xDEADBEEF;

	assert_int_equal(msc_model_read32(m, offset, &v), 0);
	return v;
}

static void wr(struct msc_model *m, uint32_t offset, uint32_t value)
{
	assert_int_equal(msc_model_write32(m, offset, value), 0);
}

static struct mpamf_esr esr_now(const struct msc_model *m)
{
	return mpamf_esr_decode(msc_model_esr(m));
}

/* ESR holds `code` for `partid` on `ris`; acknowledged afterwards. */
static void expect_error(struct msc_model *m, enum mpam_errcode code, uint16_t partid, unsigned ris)
{
	struct mpamf_esr esr = esr_now(m);

	assert_int_equal(esr.errcode, code);
	assert_int_equal(esr.partid_mon, partid);
	assert_int_equal(esr.ris, ris);
	wr(m, MPAMF_ESR, 0);
	assert_true(msc_model_esr(m) == 0);
}

/* Two RIS, 32 request PARTIDs narrowed to 8 intPARTIDs, every bandwidth and cache control. */
static struct msc_model_params narrowing_params(void)
{
	struct msc_model_params p;

	msc_model_params_default(&p);
	p.partid_max = 31;
	p.has_ris = true;
	p.ris_max = 1;
	p.has_extd_esr = true;
	p.has_partid_nrw = true;
	p.intpartid_max = 7;
	p.has_prop = true;
	p.bwpbm_wd = 40;
	p.cmax_wd = 8;
	p.has_cmin = true;
	p.cassoc_wd = 4;
	p.pri_wd = 3;
	return p;
}

/* ---------------------------------------------------------------- ID registers */

static void test_id_registers_describe_the_new_controls(void **state)
{
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = new_model(&p);

	(void)state;
	struct mpamf_idr idr = mpamf_idr_decode(rd(m, MPAMF_IDR) | (uint64_t)rd(m, MPAMF_IDR + 4) << 32);
	assert_true(idr.has_partid_nrw && idr.has_ccap_part && idr.has_mbw_part);
	assert_int_equal(idr.partid_max, 31); /* the request PARTIDs */
	assert_int_equal(mpam_field_get(MPAMF_PARTID_NRW_IDR_INTPARTID_MAX, rd(m, MPAMF_PARTID_NRW_IDR)), 7);
	struct mpamf_mbw_idr mbw = mpamf_mbw_idr_decode(rd(m, MPAMF_MBW_IDR));
	assert_true(mbw.has_prop && mbw.has_pbm);
	assert_int_equal(mbw.bwpbm_wd, 40);
	uint32_t ccap = rd(m, MPAMF_CCAP_IDR);
	assert_int_equal(mpam_field_get(MPAMF_CCAP_IDR_CMAX_WD, ccap), 8);
	assert_int_equal(mpam_field_get(MPAMF_CCAP_IDR_CASSOC_WD, ccap), 4);
	assert_true((ccap & MPAMF_CCAP_IDR_HAS_CMIN) && (ccap & MPAMF_CCAP_IDR_HAS_CASSOC));
	assert_false(ccap & MPAMF_CCAP_IDR_NO_CMAX);
	msc_model_free(m);

	/* The defaults have none of them: the registers are RAZ/WI. */
	msc_model_params_default(&p);
	m = new_model(&p);
	assert_false(mpamf_idr_decode(rd(m, MPAMF_IDR)).has_partid_nrw);
	assert_int_equal(rd(m, MPAMF_PARTID_NRW_IDR), 0);
	assert_int_equal(rd(m, MPAMF_CCAP_IDR), 0);
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 3));
	wr(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 5);
	wr(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 1);
	assert_int_equal(rd(m, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(rd(m, MPAMCFG_INTPARTID), 0);
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
	msc_model_params_default(&p);
	p.has_prop = true;
	p.bwpbm_wd = 40;
	p.cmax_wd = 8;
	p.has_cmin = true;
	p.cassoc_wd = 4;
	m = new_model(&p);
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 9));
	/* Reset: PROP off, every portion, CMAX and CASSOC at 100%, CMIN 0. */
	assert_int_equal(rd(m, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(rd(m, MPAMCFG_MBW_PBM(0)), 0xFFFFFFFF);
	assert_int_equal(rd(m, MPAMCFG_MBW_PBM(1)), 0xFF);
	assert_int_equal(rd(m, MPAMCFG_MBW_PBM(2)), 0); /* beyond BWPBM_WD: RAZ/WI */
	assert_int_equal(rd(m, MPAMCFG_CMAX), 0xFF00);
	assert_int_equal(rd(m, MPAMCFG_CMIN), 0);
	assert_int_equal(rd(m, MPAMCFG_CASSOC), 0xF000);
	/* Implemented bits only: STRIDEM1 is BWA_WD (8) bits, the fractions their top bits. */
	wr(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 0x1234);
	assert_int_equal(rd(m, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 0x34);
	wr(m, MPAMCFG_MBW_PBM(1), 0xFFFF0F0F);
	assert_int_equal(rd(m, MPAMCFG_MBW_PBM(1)), 0x0F);
	wr(m, MPAMCFG_CMAX, 0xFFFF);
	wr(m, MPAMCFG_CMIN, 0x1234);
	wr(m, MPAMCFG_CASSOC, 0x1234);
	assert_int_equal(rd(m, MPAMCFG_CMAX), 0xFF00);
	assert_int_equal(rd(m, MPAMCFG_CMIN), 0x1200);
	assert_int_equal(rd(m, MPAMCFG_CASSOC), 0x1000);
	/* Another PARTID kept its reset values. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 8));
	assert_int_equal(rd(m, MPAMCFG_MBW_PROP), 0);
	assert_int_equal(rd(m, MPAMCFG_MBW_PBM(1)), 0xFF);
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
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 5));
	wr(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 3);
	wr(m, MPAMCFG_MBW_PBM(0), 0x000000FF); /* 8 of 40 portions, the second word still full */
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 0.25);
	assert_true(lim.pbm_share == (8.0 + 8.0) / 40.0);
	wr(m, MPAMCFG_MBW_PROP, 3); /* disabled: the stride no longer counts */
	wr(m, MPAMCFG_MBW_PBM(1), 0);
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 1.0);
	assert_true(lim.pbm_share == 8.0 / 40.0);
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
		wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(r, 3));
		assert_int_equal(rd(m, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 3);
		wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(r, 4));
		assert_int_equal(rd(m, MPAMCFG_MBW_PBM(0)), 0x3);
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
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = new_model(&p);

	(void)state;
	/* At reset every request PARTID reaches intPARTID 0. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 20));
	assert_int_equal(rd(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 0);
	wr(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 6);
	assert_int_equal(rd(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 6);
	wr(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(1, 6));
	assert_int_equal(rd(m, MPAMCFG_PART_SEL), mpamcfg_int_part_sel(1, 6)); /* INTERNAL is kept */
	wr(m, MPAMCFG_MBW_MAX, 0x4000);
	wr(m, MPAMCFG_MBW_PROP, (uint32_t)MPAMCFG_MBW_PROP_EN | 1);
	assert_int_equal(rd(m, MPAMCFG_MBW_MAX), 0x4000);
	assert_true(msc_model_esr(m) == 0);
	/* Request PARTID 20 on RIS 1 now has intPARTID 6's controls; RIS 0 kept its own map. */
	assert_int_equal(msc_model_mbw_max(m, 1, 20), 0x4000);
	struct msc_model_limits lim;
	msc_model_traffic_limits(m, 1, 20, &lim);
	assert_true(lim.prop_share == 0.5);
	assert_int_equal(msc_model_mbw_max(m, 0, 20), 0xFF00);
	/* Another request PARTID mapped to the same intPARTID shares its configuration. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 31));
	wr(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 6);
	assert_int_equal(msc_model_mbw_max(m, 1, 31), 0x4000);
	assert_true(msc_model_esr(m) == 0);
	assert_true(msc_model_error_count(m) == 0);
	msc_model_free(m);
}

/* A driver that ignores narrowing selects request PARTIDs with INTERNAL clear: every configuration
 * access is an intPARTID_Range error (Arm ARM, MPAMCFG_PART_SEL.INTERNAL) and changes nothing. */
static void test_narrowing_used_the_old_way_raises_errors(void **state)
{
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = new_model(&p);

	(void)state;
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 3));
	wr(m, MPAMCFG_MBW_MAX, 0x4000);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 3, 1);
	assert_int_equal(rd(m, MPAMCFG_MBW_MAX), 0);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 3, 1);
	wr(m, MPAMCFG_CPBM(0), 0xF);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 3, 1);
	assert_int_equal(msc_model_mbw_max(m, 1, 3), 0xFF00); /* no effect on anything */
	assert_true(msc_model_error_count(m) == 3);
	msc_model_free(m);
}

static void test_narrowing_errors(void **state)
{
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = new_model(&p);

	(void)state;
	/* 6: an intPARTID beyond INTPARTID_MAX, selected for a configuration register. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(0, 8));
	wr(m, MPAMCFG_MBW_MIN, 0x1000);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 8, 0);
	/* 7: MPAMCFG_INTPARTID reached with INTERNAL set, read or written. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(1, 2));
	assert_int_equal(rd(m, MPAMCFG_INTPARTID), 0);
	expect_error(m, MPAM_ERR_UNEXPECTED_INTERNAL, 2, 1);
	wr(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 2);
	expect_error(m, MPAM_ERR_UNEXPECTED_INTERNAL, 2, 1);
	/* 6: an intPARTID out of range, or the INTERNAL bit clear in the value: no mapping is written. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(1, 2));
	wr(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 8);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 2, 1);
	wr(m, MPAMCFG_INTPARTID, 5);
	expect_error(m, MPAM_ERR_INTPARTID_RANGE, 2, 1);
	assert_int_equal(rd(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 0);
	/* 1: a request PARTID beyond PARTID_MAX; 8: a RIS that is not there. */
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 32));
	wr(m, MPAMCFG_INTPARTID, (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 1);
	expect_error(m, MPAM_ERR_PARTID_SEL_RANGE, 32, 0);
	wr(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(2, 1));
	wr(m, MPAMCFG_MBW_MAX, 0);
	expect_error(m, MPAM_ERR_UNDEF_RIS_PART_SEL, 1, 2);
	assert_true(msc_model_error_count(m) == 7);
	msc_model_free(m);
}

/* Preloading a PARTID on a narrowing MSC maps it to the intPARTID of its number, as firmware that
 * gave it controls of its own would have; one beyond INTPARTID_MAX cannot be. */
static void test_narrowing_preload(void **state)
{
	struct msc_model_params p = narrowing_params();
	struct msc_model *m = new_model(&p);
	struct msc_model_limits lim;

	(void)state;
	assert_int_equal(msc_model_preload_mbw_prop(m, 5, 1), 0);
	wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 5));
	assert_int_equal(rd(m, MPAMCFG_INTPARTID), (uint32_t)MPAMCFG_INTPARTID_INTERNAL | 5);
	wr(m, MPAMCFG_PART_SEL, mpamcfg_int_part_sel(0, 5));
	assert_int_equal(rd(m, MPAMCFG_MBW_PROP), (uint32_t)MPAMCFG_MBW_PROP_EN | 1);
	msc_model_traffic_limits(m, 0, 5, &lim);
	assert_true(lim.prop_share == 0.5);
	msc_model_traffic_limits(m, 0, 6, &lim); /* still on intPARTID 0 */
	assert_true(lim.prop_share == 1.0);
	assert_int_equal(msc_model_preload_mbw_prop(m, 9, 1), -EINVAL);
	assert_true(msc_model_esr(m) == 0);
	msc_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_registers_describe_the_new_controls),
		cmocka_unit_test(test_new_rejects_impossible_narrowing),
		cmocka_unit_test(test_controls_reset_and_round_trip),
		cmocka_unit_test(test_prop_and_pbm_reach_the_traffic_side),
		cmocka_unit_test(test_preload_is_what_an_earlier_owner_left),
		cmocka_unit_test(test_narrowing_used_as_the_kernel_does),
		cmocka_unit_test(test_narrowing_used_the_old_way_raises_errors),
		cmocka_unit_test(test_narrowing_errors),
		cmocka_unit_test(test_narrowing_preload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
