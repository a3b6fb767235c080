/* core/mpam_regs: the register map against shared/reference/mpam-msc.md sections A and C, the
 * bandwidth fixed point against Arm's reference vectors, and the register codecs by round trip. */
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

#include "backends/mpam/mpam_regs.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void expect_u64(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		fail_msg("%s: got 0x%" PRIx64 ", want 0x%" PRIx64, what, got, want);
}

/* ---- A.1 offsets ---- */

static void test_offsets(void **state)
{
	static const struct {
		const char *name;
		unsigned got, want;
	} t[] = {
		{ "MPAMF_IDR", MPAMF_IDR, 0x000 },
		{ "MPAMF_SIDR", MPAMF_SIDR, 0x008 },
		{ "MPAMF_IIDR", MPAMF_IIDR, 0x018 },
		{ "MPAMF_AIDR", MPAMF_AIDR, 0x020 },
		{ "MPAMF_IMPL_IDR", MPAMF_IMPL_IDR, 0x028 },
		{ "MPAMF_CPOR_IDR", MPAMF_CPOR_IDR, 0x030 },
		{ "MPAMF_CCAP_IDR", MPAMF_CCAP_IDR, 0x038 },
		{ "MPAMF_MBW_IDR", MPAMF_MBW_IDR, 0x040 },
		{ "MPAMF_PRI_IDR", MPAMF_PRI_IDR, 0x048 },
		{ "MPAMF_PARTID_NRW_IDR", MPAMF_PARTID_NRW_IDR, 0x050 },
		{ "MPAMF_MSMON_IDR", MPAMF_MSMON_IDR, 0x080 },
		{ "MPAMF_CSUMON_IDR", MPAMF_CSUMON_IDR, 0x088 },
		{ "MPAMF_MBWUMON_IDR", MPAMF_MBWUMON_IDR, 0x090 },
		{ "MPAMF_ERR_MSI_MPAM", MPAMF_ERR_MSI_MPAM, 0x0DC },
		{ "MPAMF_ERR_MSI_ADDR_L", MPAMF_ERR_MSI_ADDR_L, 0x0E0 },
		{ "MPAMF_ERR_MSI_ADDR_H", MPAMF_ERR_MSI_ADDR_H, 0x0E4 },
		{ "MPAMF_ERR_MSI_DATA", MPAMF_ERR_MSI_DATA, 0x0E8 },
		{ "MPAMF_ERR_MSI_ATTR", MPAMF_ERR_MSI_ATTR, 0x0EC },
		{ "MPAMF_ECR", MPAMF_ECR, 0x0F0 },
		{ "MPAMF_ESR", MPAMF_ESR, 0x0F8 },
		{ "MPAMCFG_PART_SEL", MPAMCFG_PART_SEL, 0x100 },
		{ "MPAMCFG_CMAX", MPAMCFG_CMAX, 0x108 },
		{ "MPAMCFG_CMIN", MPAMCFG_CMIN, 0x110 },
		{ "MPAMCFG_CASSOC", MPAMCFG_CASSOC, 0x118 },
		{ "MPAMCFG_MBW_MIN", MPAMCFG_MBW_MIN, 0x200 },
		{ "MPAMCFG_MBW_MAX", MPAMCFG_MBW_MAX, 0x208 },
		{ "MPAMCFG_MBW_WINWD", MPAMCFG_MBW_WINWD, 0x220 },
		{ "MPAMCFG_EN", MPAMCFG_EN, 0x300 },
		{ "MPAMCFG_DIS", MPAMCFG_DIS, 0x310 },
		{ "MPAMCFG_EN_FLAGS", MPAMCFG_EN_FLAGS, 0x320 },
		{ "MPAMCFG_PRI", MPAMCFG_PRI, 0x400 },
		{ "MPAMCFG_MBW_PROP", MPAMCFG_MBW_PROP, 0x500 },
		{ "MPAMCFG_INTPARTID", MPAMCFG_INTPARTID, 0x600 },
		{ "MSMON_CFG_MON_SEL", MSMON_CFG_MON_SEL, 0x800 },
		{ "MSMON_CAPT_EVNT", MSMON_CAPT_EVNT, 0x808 },
		{ "MSMON_CFG_CSU_FLT", MSMON_CFG_CSU_FLT, 0x810 },
		{ "MSMON_CFG_CSU_CTL", MSMON_CFG_CSU_CTL, 0x818 },
		{ "MSMON_CFG_MBWU_FLT", MSMON_CFG_MBWU_FLT, 0x820 },
		{ "MSMON_CFG_MBWU_CTL", MSMON_CFG_MBWU_CTL, 0x828 },
		{ "MSMON_CSU", MSMON_CSU, 0x840 },
		{ "MSMON_CSU_CAPTURE", MSMON_CSU_CAPTURE, 0x848 },
		{ "MSMON_CSU_OFSR", MSMON_CSU_OFSR, 0x858 },
		{ "MSMON_MBWU", MSMON_MBWU, 0x860 },
		{ "MSMON_MBWU_CAPTURE", MSMON_MBWU_CAPTURE, 0x868 },
		{ "MSMON_MBWU_L", MSMON_MBWU_L, 0x880 },
		{ "MSMON_MBWU_L_CAPTURE", MSMON_MBWU_L_CAPTURE, 0x890 },
		{ "MSMON_MBWU_OFSR", MSMON_MBWU_OFSR, 0x898 },
		{ "MSMON_OFLOW_MSI_MPAM", MSMON_OFLOW_MSI_MPAM, 0x8DC },
		{ "MSMON_OFLOW_MSI_ATTR", MSMON_OFLOW_MSI_ATTR, 0x8EC },
		{ "MSMON_OFLOW_SR", MSMON_OFLOW_SR, 0x8F0 },
		{ "MPAMCFG_CPBM(0)", MPAMCFG_CPBM(0), 0x1000 },
		{ "MPAMCFG_CPBM(1023)", MPAMCFG_CPBM(1023), 0x1FFC },
		{ "MPAMCFG_MBW_PBM(0)", MPAMCFG_MBW_PBM(0), 0x2000 },
		{ "MPAMCFG_MBW_PBM(127)", MPAMCFG_MBW_PBM(127), 0x21FC },
	};
	(void)state;
	for (size_t i = 0; i < N_OF(t); i++)
		expect_u64(t[i].name, t[i].got, t[i].want);
}

/* ---- A.2-A.5: every codec field at its documented bits ----
 * For each field: the struct with only that field at its largest value encodes to exactly the bits
 * the reference gives, and those bits decode back to that field (and nothing else). */

#define FIELD_CASE(type, encode, decode, field, value, bits, ...)                               \
	do {                                                                                    \
		struct type x_ = { __VA_ARGS__ };                                               \
		struct type d_;                                                                 \
		x_.field = value;                                                               \
		expect_u64(#type "." #field " encodes", encode(&x_), bits);                     \
		d_ = decode(bits);                                                              \
		expect_u64(#type "." #field " decodes", (uint64_t)d_.field, (uint64_t)(value)); \
		expect_u64(#type "." #field " alone", encode(&d_), bits);                       \
	} while (0)

#define IDR(field, value, bits) FIELD_CASE(mpamf_idr, mpamf_idr_encode, mpamf_idr_decode, field, value, bits, 0)
/* The high word is defined only with EXT set, so its fields are checked together with bit 28. */
#define IDR_EXT(field, value, bits) \
	FIELD_CASE(mpamf_idr, mpamf_idr_encode, mpamf_idr_decode, field, value, (bits) | MPAM_BIT(28), .ext = true)

static void test_idr_fields(void **state)
{
	(void)state;
	IDR(partid_max, 0xFFFF, 0xFFFF);
	IDR(pmg_max, 0xFF, 0xFF0000);
	IDR(has_ccap_part, true, MPAM_BIT(24));
	IDR(has_cpor_part, true, MPAM_BIT(25));
	IDR(has_mbw_part, true, MPAM_BIT(26));
	IDR(has_pri_part, true, MPAM_BIT(27));
	IDR(ext, true, MPAM_BIT(28));
	IDR(has_impl_idr, true, MPAM_BIT(29));
	IDR(has_msmon, true, MPAM_BIT(30));
	IDR(has_partid_nrw, true, MPAM_BIT(31));
	IDR_EXT(has_ris, true, MPAM_BIT(32));
	IDR_EXT(no_impl_part, true, MPAM_BIT(36));
	IDR_EXT(no_impl_msmon, true, MPAM_BIT(37));
	IDR_EXT(has_extd_esr, true, MPAM_BIT(38));
	IDR_EXT(has_esr, true, MPAM_BIT(39));
	IDR_EXT(has_err_msi, true, MPAM_BIT(40));
	IDR_EXT(sp4, true, MPAM_BIT(41));
	IDR_EXT(has_endis, true, MPAM_BIT(42));
	IDR_EXT(has_nfu, true, MPAM_BIT(43));
	IDR_EXT(has_in_tl, true, MPAM_BIT(44));
	IDR_EXT(has_out_tl, true, MPAM_BIT(45));
	IDR_EXT(has_default_partid, true, MPAM_BIT(46));
	IDR_EXT(ris_max, 0xF, UINT64_C(0x0F00000000000000));
}

static void test_idr_high_word_needs_ext(void **state)
{
	/* Bits 63:32 mean nothing without EXT: a 32-bit IDR read may return anything there. */
	struct mpamf_idr d = mpamf_idr_decode(UINT64_C(0xFFFFFFFF00000000) | 63);
	struct mpamf_idr e;

	(void)state;
	assert_false(d.ext);
	assert_int_equal(d.partid_max, 63);
	assert_false(d.has_ris || d.has_esr || d.has_extd_esr || d.has_default_partid);
	assert_int_equal(d.ris_max, 0);
	/* And encoding a non-EXT IDR drops them. */
	e = (struct mpamf_idr){ .has_ris = true, .ris_max = 3, .partid_max = 1 };
	expect_u64("non-EXT encode", mpamf_idr_encode(&e), 1);
	/* The Arm TRM MSC of reference section E: 64 PARTIDs, 2 PMGs, CPOR and MBW, EXT and ESR. */
	d = mpamf_idr_decode(63 | (1 << 16) | MPAM_BIT(25) | MPAM_BIT(26) | MPAM_BIT(28) | MPAM_BIT(39));
	assert_int_equal(d.partid_max, 63);
	assert_int_equal(d.pmg_max, 1);
	assert_true(d.has_cpor_part && d.has_mbw_part && d.ext && d.has_esr);
	assert_false(d.has_msmon || d.has_ris);
}

#define MBW(field, value, bits) \
	FIELD_CASE(mpamf_mbw_idr, mpamf_mbw_idr_encode, mpamf_mbw_idr_decode, field, value, bits, 0)

static void test_mbw_idr_fields(void **state)
{
	struct mpamf_mbw_idr grace;

	(void)state;
	MBW(bwa_wd, 0x3F, 0x3F);
	MBW(max_lim, 3, 0x300);
	MBW(has_min, true, MPAM_BIT(10));
	MBW(has_max, true, MPAM_BIT(11));
	MBW(has_pbm, true, MPAM_BIT(12));
	MBW(has_prop, true, MPAM_BIT(13));
	MBW(windwr, true, MPAM_BIT(14));
	MBW(bwpbm_wd, 0x1FFF, 0x1FFF0000);
	/* The dump of section E: BWA_WD=7, MIN and MAX, no PBM. */
	grace = mpamf_mbw_idr_decode(0x00000C07);
	assert_int_equal(grace.bwa_wd, 7);
	assert_true(grace.has_min && grace.has_max);
	assert_false(grace.has_pbm || grace.has_prop);
	assert_int_equal(grace.max_lim, 0);
}

#define MSMON(field, value, bits) \
	FIELD_CASE(mpamf_msmon_idr, mpamf_msmon_idr_encode, mpamf_msmon_idr_decode, field, value, bits, 0)

static void test_msmon_idr_fields(void **state)
{
	(void)state;
	MSMON(msmon_csu, true, MPAM_BIT(16));
	MSMON(msmon_mbwu, true, MPAM_BIT(17));
	MSMON(msmon_csa, true, MPAM_BIT(18));
	MSMON(has_tl_monitoring, 3, 0x0C000000);
	MSMON(has_oflow_sr, true, MPAM_BIT(28));
	MSMON(has_oflw_msi, true, MPAM_BIT(29));
	MSMON(no_hw_oflw_intr, true, MPAM_BIT(30));
	MSMON(has_local_capt_evnt, true, MPAM_BIT(31));
}

#define MBWUMON(field, value, bits) \
	FIELD_CASE(mpamf_mbwumon_idr, mpamf_mbwumon_idr_encode, mpamf_mbwumon_idr_decode, field, value, bits, 0)

static void test_mbwumon_idr_fields(void **state)
{
	(void)state;
	MBWUMON(num_mon, 0xFFFF, 0xFFFF);
	MBWUMON(scale, 0x1F, 0x1F0000);
	MBWUMON(no_match_pmg, true, MPAM_BIT(22));
	MBWUMON(no_match_partid, true, MPAM_BIT(23));
	MBWUMON(has_oflow_capt, true, MPAM_BIT(24));
	MBWUMON(has_cevnt_oflw, true, MPAM_BIT(25));
	MBWUMON(has_ofsr, true, MPAM_BIT(26));
	MBWUMON(has_oflow_lnkg, true, MPAM_BIT(27));
	MBWUMON(has_rwbw, true, MPAM_BIT(28));
	MBWUMON(lwd, true, MPAM_BIT(29));
	MBWUMON(has_long, true, MPAM_BIT(30));
	MBWUMON(has_capture, true, MPAM_BIT(31));
}

#define ESR(field, value, bits) FIELD_CASE(mpamf_esr, mpamf_esr_encode, mpamf_esr_decode, field, value, bits, 0)

static void test_esr_fields(void **state)
{
	(void)state;
	ESR(partid_mon, 0xFFFF, 0xFFFF);
	ESR(pmg, 0xFF, 0xFF0000);
	ESR(errcode, 0xF, 0x0F000000);
	ESR(ovrwr, true, MPAM_BIT(31));
	ESR(ris, 0xF, UINT64_C(0xF00000000));
}

#define CTL(field, value, bits) \
	FIELD_CASE(msmon_mbwu_ctl, msmon_mbwu_ctl_encode, msmon_mbwu_ctl_decode, field, value, bits, 0)

static void test_mbwu_ctl_fields(void **state)
{
	(void)state;
	CTL(type, 0xFF, 0xFF);
	CTL(oflow_lnkg, 7, 0x700);
	CTL(oflow_capt_l, true, MPAM_BIT(13));
	CTL(oflow_intr_l, true, MPAM_BIT(14));
	CTL(oflow_status_l, true, MPAM_BIT(15));
	CTL(match_partid, true, MPAM_BIT(16));
	CTL(match_pmg, true, MPAM_BIT(17));
	CTL(cevnt_oflw, true, MPAM_BIT(18));
	CTL(sclen, true, MPAM_BIT(19));
	CTL(subtype, 7, 0x700000);
	CTL(oflow_capt, true, MPAM_BIT(23));
	CTL(oflow_frz, true, MPAM_BIT(24));
	CTL(oflow_intr, true, MPAM_BIT(25));
	CTL(oflow_status, true, MPAM_BIT(26));
	CTL(capt_reset, true, MPAM_BIT(27));
	CTL(capt_evnt, 7, 0x70000000);
	CTL(en, true, MPAM_BIT(31));
	expect_u64("TYPE MBWU", MSMON_CFG_CTL_TYPE_MBWU, 0x42);
	expect_u64("TYPE CSU", MSMON_CFG_CTL_TYPE_CSU, 0x43);
}

#define FLT(field, value, bits) \
	FIELD_CASE(msmon_mbwu_flt, msmon_mbwu_flt_encode, msmon_mbwu_flt_decode, field, value, bits, 0)

static void test_mbwu_flt_and_selectors(void **state)
{
	(void)state;
	FLT(partid, 0xFFFF, 0xFFFF);
	FLT(pmg, 0xFF, 0xFF0000);
	FLT(rwbw, 3, 0xC0000000);
	expect_u64("RWBW reads", msmon_mbwu_flt_encode(&(struct msmon_mbwu_flt){ .rwbw = MPAM_RWBW_READS }),
		   0x80000000);
	expect_u64("PART_SEL", mpamcfg_part_sel(0xF, 0xFFFF), 0x0F00FFFF);
	expect_u64("PART_SEL ris 2", mpamcfg_part_sel(2, 5), 0x02000005);
	expect_u64("MON_SEL", msmon_cfg_mon_sel(0xF, 0xFFFF), 0x0F00FFFF);
	expect_u64("MON_SEL ris 1", msmon_cfg_mon_sel(1, 0x20), 0x01000020);
	expect_u64("PART_SEL INTERNAL", MPAMCFG_PART_SEL_INTERNAL, MPAM_BIT(16));
	expect_u64("MBW_MAX HARDLIM", MPAMCFG_MBW_MAX_HARDLIM, MPAM_BIT(31));
	expect_u64("INTPARTID INTERNAL", MPAMCFG_INTPARTID_INTERNAL, MPAM_BIT(16));
	expect_u64("MBWU VALUE", MSMON_MBWU_VALUE, 0x7FFFFFFF);
	expect_u64("MBWU NRDY", MSMON_MBWU_NRDY, MPAM_BIT(31));
	expect_u64("MBWU_L NRDY", MSMON_MBWU_L_NRDY, MPAM_BIT(63));
	expect_u64("MBWU_L VALUE 44", MSMON_MBWU_L_VALUE_44, (UINT64_C(1) << 44) - 1);
	expect_u64("MBWU_L VALUE 63", MSMON_MBWU_L_VALUE_63, (UINT64_C(1) << 63) - 1);
	expect_u64("OFLOW_SR MBWU", MSMON_OFLOW_SR_MBWU_OFLOW_PND, MPAM_BIT(30));
}

static void test_errcode_names(void **state)
{
	(void)state;
	assert_string_equal(mpam_errcode_name(MPAM_ERR_NONE), "none");
	assert_string_equal(mpam_errcode_name(1), "PARTID_SEL out of range");
	assert_string_equal(mpam_errcode_name(7), "unexpected INTERNAL");
	assert_string_equal(mpam_errcode_name(11), "RIS has no monitor");
	for (unsigned c = 12; c <= 16; c++)
		assert_string_equal(mpam_errcode_name(c), "reserved");
	assert_string_equal(mpam_errcode_name(~0u), "reserved");
}

/* ---- round trips with seeded random values ---- */

static uint64_t rng_state;

/* xorshift64*: a seeded, reproducible source (a printed seed reproduces a failure). */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(0x2545F4914F6CDD1D);
}

static void seed_rng(const char *test)
{
	const char *env = getenv("MPAM_REGS_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);

	printf("%s: seed %" PRIu64 " (rerun with MPAM_REGS_SEED=%" PRIu64 ")\n", test, seed, seed);
	rng_state = seed | 1; /* xorshift must not start at 0 */
}

/* Each field's value in range, straight from a register, so decode(encode(x)) == x is exact. */
#define EQ(a, b, f)                                                                                     \
	do {                                                                                            \
		if ((a).f != (b).f)                                                                     \
			fail_msg("%s: field " #f " 0x%" PRIx64 " != 0x%" PRIx64, what, (uint64_t)(a).f, \
				 (uint64_t)(b).f);                                                      \
	} while (0)

static void idr_equal(const char *what, struct mpamf_idr a, struct mpamf_idr b)
{
	EQ(a, b, partid_max);
	EQ(a, b, pmg_max);
	EQ(a, b, has_ccap_part);
	EQ(a, b, has_cpor_part);
	EQ(a, b, has_mbw_part);
	EQ(a, b, has_pri_part);
	EQ(a, b, ext);
	EQ(a, b, has_impl_idr);
	EQ(a, b, has_msmon);
	EQ(a, b, has_partid_nrw);
	EQ(a, b, has_ris);
	EQ(a, b, no_impl_part);
	EQ(a, b, no_impl_msmon);
	EQ(a, b, has_extd_esr);
	EQ(a, b, has_esr);
	EQ(a, b, has_err_msi);
	EQ(a, b, sp4);
	EQ(a, b, has_endis);
	EQ(a, b, has_nfu);
	EQ(a, b, has_in_tl);
	EQ(a, b, has_out_tl);
	EQ(a, b, has_default_partid);
	EQ(a, b, ris_max);
}

static void mbw_idr_equal(const char *what, struct mpamf_mbw_idr a, struct mpamf_mbw_idr b)
{
	EQ(a, b, bwa_wd);
	EQ(a, b, max_lim);
	EQ(a, b, has_min);
	EQ(a, b, has_max);
	EQ(a, b, has_pbm);
	EQ(a, b, has_prop);
	EQ(a, b, windwr);
	EQ(a, b, bwpbm_wd);
}

static void msmon_idr_equal(const char *what, struct mpamf_msmon_idr a, struct mpamf_msmon_idr b)
{
	EQ(a, b, msmon_csu);
	EQ(a, b, msmon_mbwu);
	EQ(a, b, msmon_csa);
	EQ(a, b, has_tl_monitoring);
	EQ(a, b, has_oflow_sr);
	EQ(a, b, has_oflw_msi);
	EQ(a, b, no_hw_oflw_intr);
	EQ(a, b, has_local_capt_evnt);
}

static void mbwumon_idr_equal(const char *what, struct mpamf_mbwumon_idr a, struct mpamf_mbwumon_idr b)
{
	EQ(a, b, num_mon);
	EQ(a, b, scale);
	EQ(a, b, no_match_pmg);
	EQ(a, b, no_match_partid);
	EQ(a, b, has_oflow_capt);
	EQ(a, b, has_cevnt_oflw);
	EQ(a, b, has_ofsr);
	EQ(a, b, has_oflow_lnkg);
	EQ(a, b, has_rwbw);
	EQ(a, b, lwd);
	EQ(a, b, has_long);
	EQ(a, b, has_capture);
}

static void esr_equal(const char *what, struct mpamf_esr a, struct mpamf_esr b)
{
	EQ(a, b, partid_mon);
	EQ(a, b, pmg);
	EQ(a, b, errcode);
	EQ(a, b, ovrwr);
	EQ(a, b, ris);
}

static void ctl_equal(const char *what, struct msmon_mbwu_ctl a, struct msmon_mbwu_ctl b)
{
	EQ(a, b, type);
	EQ(a, b, oflow_lnkg);
	EQ(a, b, oflow_capt_l);
	EQ(a, b, oflow_intr_l);
	EQ(a, b, oflow_status_l);
	EQ(a, b, match_partid);
	EQ(a, b, match_pmg);
	EQ(a, b, cevnt_oflw);
	EQ(a, b, sclen);
	EQ(a, b, subtype);
	EQ(a, b, oflow_capt);
	EQ(a, b, oflow_frz);
	EQ(a, b, oflow_intr);
	EQ(a, b, oflow_status);
	EQ(a, b, capt_reset);
	EQ(a, b, capt_evnt);
	EQ(a, b, en);
}

static void flt_equal(const char *what, struct msmon_mbwu_flt a, struct msmon_mbwu_flt b)
{
	EQ(a, b, partid);
	EQ(a, b, pmg);
	EQ(a, b, rwbw);
}

/* The defined bits of each register, assembled from the reference's field list (A.2-A.5). */
#define IDR_LOW_DEFINED	    UINT64_C(0xFFFFFFFF)
#define IDR_EXT_DEFINED	    (IDR_LOW_DEFINED | MPAM_BIT(32) | MPAM_GENMASK(46, 36) | MPAM_GENMASK(59, 56))
#define MBW_IDR_DEFINED	    (MPAM_GENMASK(5, 0) | MPAM_GENMASK(14, 8) | MPAM_GENMASK(28, 16))
#define MSMON_IDR_DEFINED   (MPAM_GENMASK(18, 16) | MPAM_GENMASK(31, 26))
#define MBWUMON_IDR_DEFINED (MPAM_GENMASK(20, 0) | MPAM_GENMASK(31, 22))
#define ESR_DEFINED	    (MPAM_GENMASK(27, 0) | MPAM_BIT(31) | MPAM_GENMASK(35, 32))
#define CTL_DEFINED	    (MPAM_GENMASK(10, 0) | MPAM_GENMASK(31, 13))
#define FLT_DEFINED	    (MPAM_GENMASK(23, 0) | MPAM_GENMASK(31, 30))

enum {
	ROUNDS = 20000
};

static void test_idr_round_trip(void **state)
{
	(void)state;
	seed_rng("test_idr_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t r = rnd();
		uint64_t defined = (r & MPAMF_IDR_EXT) ? IDR_EXT_DEFINED : IDR_LOW_DEFINED;
		struct mpamf_idr x = mpamf_idr_decode(r);

		expect_u64("IDR encode(decode(r))", mpamf_idr_encode(&x), r & defined);
		idr_equal("IDR decode(encode(x))", mpamf_idr_decode(mpamf_idr_encode(&x)), x);
	}
}

static void test_mbw_idr_round_trip(void **state)
{
	(void)state;
	seed_rng("test_mbw_idr_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t r = (uint32_t)rnd();
		struct mpamf_mbw_idr x = mpamf_mbw_idr_decode(r);

		expect_u64("MBW_IDR encode(decode(r))", mpamf_mbw_idr_encode(&x), r & MBW_IDR_DEFINED);
		mbw_idr_equal("MBW_IDR decode(encode(x))", mpamf_mbw_idr_decode(mpamf_mbw_idr_encode(&x)), x);
	}
}

static void test_msmon_idr_round_trip(void **state)
{
	(void)state;
	seed_rng("test_msmon_idr_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t r = (uint32_t)rnd();
		struct mpamf_msmon_idr x = mpamf_msmon_idr_decode(r);

		expect_u64("MSMON_IDR encode(decode(r))", mpamf_msmon_idr_encode(&x), r & MSMON_IDR_DEFINED);
		msmon_idr_equal("MSMON_IDR decode(encode(x))", mpamf_msmon_idr_decode(mpamf_msmon_idr_encode(&x)), x);
	}
}

static void test_mbwumon_idr_round_trip(void **state)
{
	(void)state;
	seed_rng("test_mbwumon_idr_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t r = (uint32_t)rnd();
		struct mpamf_mbwumon_idr x = mpamf_mbwumon_idr_decode(r);

		expect_u64("MBWUMON_IDR encode(decode(r))", mpamf_mbwumon_idr_encode(&x), r & MBWUMON_IDR_DEFINED);
		mbwumon_idr_equal("MBWUMON_IDR decode(encode(x))",
				  mpamf_mbwumon_idr_decode(mpamf_mbwumon_idr_encode(&x)), x);
	}
}

static void test_esr_round_trip(void **state)
{
	(void)state;
	seed_rng("test_esr_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t r = rnd();
		struct mpamf_esr x = mpamf_esr_decode(r);

		expect_u64("ESR encode(decode(r))", mpamf_esr_encode(&x), r & ESR_DEFINED);
		esr_equal("ESR decode(encode(x))", mpamf_esr_decode(mpamf_esr_encode(&x)), x);
	}
}

static void test_ctl_round_trip(void **state)
{
	(void)state;
	seed_rng("test_ctl_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t r = (uint32_t)rnd();
		struct msmon_mbwu_ctl x = msmon_mbwu_ctl_decode(r);

		expect_u64("MBWU_CTL encode(decode(r))", msmon_mbwu_ctl_encode(&x), r & CTL_DEFINED);
		ctl_equal("MBWU_CTL decode(encode(x))", msmon_mbwu_ctl_decode(msmon_mbwu_ctl_encode(&x)), x);
	}
}

static void test_flt_round_trip(void **state)
{
	(void)state;
	seed_rng("test_flt_round_trip");
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t r = (uint32_t)rnd();
		struct msmon_mbwu_flt x = msmon_mbwu_flt_decode(r);

		expect_u64("MBWU_FLT encode(decode(r))", msmon_mbwu_flt_encode(&x), r & FLT_DEFINED);
		flt_equal("MBWU_FLT decode(encode(x))", msmon_mbwu_flt_decode(msmon_mbwu_flt_encode(&x)), x);
	}
}

/* ---- C: bandwidth fixed point ---- */

/* The unshifted w-bit value v of a 16-bit field. */
static uint32_t band(uint16_t field, unsigned w)
{
	return (uint32_t)field >> (16 - w);
}

static void test_mbw_max_arm_vectors(void **state)
{
	/* Section C's checked vectors (pc, w -> v), v unshifted, then the spec's w=8 examples. */
	static const struct {
		unsigned pc, w;
		uint32_t v;
	} t[] = {
		{ 1, 8, 0x01 },	    { 1, 12, 0x027 }, { 1, 16, 0x28e },	 { 25, 8, 0x3f },    { 25, 12, 0x3ff },
		{ 25, 16, 0x3fff }, { 33, 8, 0x53 },  { 33, 12, 0x546 }, { 33, 16, 0x5479 }, { 35, 8, 0x58 },
		{ 88, 16, 0xe146 }, { 95, 8, 0xf2 },  { 95, 12, 0xf32 }, { 95, 16, 0xf332 }, { 25, 8, 0x3F },
		{ 50, 8, 0x7F },    { 80, 8, 0xCB },  { 100, 8, 0xFF },
	};
	char what[64];

	(void)state;
	for (size_t i = 0; i < N_OF(t); i++) {
		snprintf(what, sizeof(what), "MBW_MAX(%u%%, w=%u)", t[i].pc, t[i].w);
		expect_u64(what, mpam_mbw_max_from_percent(t[i].pc, t[i].w), (uint64_t)t[i].v << (16 - t[i].w));
	}
	/* 100% is all ones in the implemented bits, for every width. */
	for (unsigned w = 1; w <= 16; w++) {
		snprintf(what, sizeof(what), "MBW_MAX(100%%, w=%u)", w);
		expect_u64(what, mpam_mbw_max_from_percent(100, w), (((UINT64_C(1) << w) - 1) << (16 - w)));
	}
}

/* Arm's rule, checked by its defining property over every (pct, w) rather than its formula: the
 * chosen band's top never exceeds the request, and the next band's top would. */
static void test_mbw_max_never_exceeds(void **state)
{
	char what[64];

	(void)state;
	for (unsigned w = 1; w <= 16; w++) {
		uint64_t bands = UINT64_C(1) << w;

		for (unsigned p = 0; p <= 100; p++) {
			uint16_t f = mpam_mbw_max_from_percent(p, w);
			uint64_t v = band(f, w);

			snprintf(what, sizeof(what), "MBW_MAX(%u%%, w=%u) low bits", p, w);
			expect_u64(what, f & ((1u << (16 - w)) - 1), 0);
			if (p * bands >= 100 && !(mpam_mbw_max_fraction(f, w) <= p / 100.0))
				fail_msg("MBW_MAX(%u%%, w=%u) = 0x%x allows %.6f", p, w, f,
					 mpam_mbw_max_fraction(f, w));
			if (p * bands < 100)
				expect_u64("below one band: the smallest", v, 0);
			else if (v + 1 < bands && !((v + 2) * 100 > p * bands))
				fail_msg("MBW_MAX(%u%%, w=%u) = 0x%x is not the largest band under the request", p, w,
					 f);
		}
	}
}

/* The MIN rule in both directions: the band's bottom reaches the request (never short), and the
 * band below would not (never more than needed); only the top band's cap can stop it. */
static void test_mbw_min_ceil(void **state)
{
	(void)state;
	for (unsigned w = 1; w <= 16; w++) {
		uint64_t bands = UINT64_C(1) << w;

		for (unsigned p = 0; p <= 100; p++) {
			uint16_t f = mpam_mbw_min_from_percent(p, w);
			uint64_t v = band(f, w);

			expect_u64("MBW_MIN low bits", f & ((1u << (16 - w)) - 1), 0);
			if (v == bands - 1 && v * 100 < p * bands)
				continue; /* capped: 1 - 2^-w is the largest writable MIN */
			if (v * 100 < p * bands || mpam_mbw_min_fraction(f, w) < p / 100.0 ||
			    mpam_mbw_min_to_percent(f, w) < p)
				fail_msg("MBW_MIN(%u%%, w=%u) = 0x%x is short of the request", p, w, f);
			if (v > 0 && (v - 1) * 100 >= p * bands)
				fail_msg("MBW_MIN(%u%%, w=%u) = 0x%x is not the smallest band", p, w, f);
		}
		expect_u64("MBW_MIN(0%)", mpam_mbw_min_from_percent(0, w), 0);
		expect_u64("MBW_MIN(100%) capped", mpam_mbw_min_from_percent(100, w), (bands - 1) << (16 - w));
	}
	/* Hand-worked: w=8, 25% is exactly band 64; 1% needs ceil(2.56) = 3. */
	expect_u64("MBW_MIN(25%, 8)", mpam_mbw_min_from_percent(25, 8), 0x4000);
	expect_u64("MBW_MIN(1%, 8)", mpam_mbw_min_from_percent(1, 8), 0x0300);
	expect_u64("MBW_MIN(33%, 16)", mpam_mbw_min_from_percent(33, 16), 0x547B);
}

static void test_clamping(void **state)
{
	(void)state;
	expect_u64("pct > 100 is 100", mpam_mbw_max_from_percent(250, 8), 0xFF00);
	expect_u64("min pct > 100 is 100", mpam_mbw_min_from_percent(250, 8), 0xFF00);
	expect_u64("w 0 is 1", mpam_mbw_max_from_percent(100, 0), 0x8000);
	expect_u64("w 17 is 16", mpam_mbw_max_from_percent(100, 17), 0xFFFF);
	expect_u64("0% max", mpam_mbw_max_from_percent(0, 8), 0);
}

static void test_mbw_max_to_percent(void **state)
{
	static const struct {
		uint16_t field;
		unsigned w, pct;
	} t[] = {
		{ 0x3F00, 8, 25 }, { 0x7F00, 8, 50 },  { 0xCB00, 8, 80 },   { 0xFF00, 8, 100 },
		{ 0x0100, 8, 1 },  { 0x0000, 8, 0 },   { 0x0000, 3, 13 }, /* 12.5 rounds up, like DIV_ROUND_CLOSEST */
		{ 0x0000, 1, 50 }, { 0x8000, 1, 100 }, { 0xFFFF, 16, 100 }, { 0x3FFF, 8, 25 }, /* RAZ bits ignored */
	};

	(void)state;
	for (size_t i = 0; i < N_OF(t); i++)
		expect_u64("mbw_max_to_percent", mpam_mbw_max_to_percent(t[i].field, t[i].w), t[i].pct);
	/* Round-to-nearest over every band of every width: |2^w r - 100(v+1)| <= 2^(w-1), halves up. */
	for (unsigned w = 1; w <= 16; w++) {
		int64_t bands = INT64_C(1) << w;

		for (int64_t v = 0; v < bands; v++) {
			int64_t r = mpam_mbw_max_to_percent((uint16_t)(v << (16 - w)), w);
			int64_t diff = bands * r - 100 * (v + 1);

			if (diff * 2 > bands || diff * 2 <= -bands)
				fail_msg("mbw_max_to_percent(v=%" PRId64 ", w=%u) = %" PRId64, v, w, r);
		}
	}
	/* From 8 bits up a band is under half a percent, so what schemata shows is what was asked for. */
	for (unsigned w = 8; w <= 16; w++)
		for (unsigned p = 0; p <= 100; p++)
			expect_u64("percent round trip", mpam_mbw_max_to_percent(mpam_mbw_max_from_percent(p, w), w),
				   p);
}

static void test_fractions(void **state)
{
	(void)state;
	assert_true(mpam_mbw_max_fraction(0x3F00, 8) == 0.25);
	assert_true(mpam_mbw_max_fraction(0xFF00, 8) == 1.0);
	assert_true(mpam_mbw_max_fraction(0x0000, 1) == 0.5);
	assert_true(mpam_mbw_min_fraction(0x4000, 8) == 0.25);
	assert_true(mpam_mbw_min_fraction(0x0000, 16) == 0.0);
	assert_true(mpam_mbw_min_fraction(0xFFFF, 16) == 65535.0 / 65536.0);
	expect_u64("min_to_percent", mpam_mbw_min_to_percent(0x4000, 8), 25);
	expect_u64("min_to_percent 0", mpam_mbw_min_to_percent(0, 3), 0);
}

static void test_granularity(void **state)
{
	static const unsigned gran[17] = { [1] = 50, [2] = 25, [3] = 13, [4] = 7, [5] = 4, [6] = 2 };
	static const unsigned minbw[17] = { [1] = 50, [2] = 25, [3] = 13, [4] = 6, [5] = 3, [6] = 2, [7] = 1 };

	(void)state;
	for (unsigned w = 1; w <= 16; w++) {
		expect_u64("bandwidth_gran", mpam_bandwidth_gran_percent(w), w >= 7 ? 1 : gran[w]);
		expect_u64("min_bandwidth", mpam_min_bandwidth_percent(w), minbw[w]);
		/* min_bandwidth is what raw 0 displays. */
		expect_u64("min_bandwidth is raw 0", mpam_min_bandwidth_percent(w), mpam_mbw_max_to_percent(0, w));
	}
}

static void test_counter_width(void **state)
{
	(void)state;
	assert_int_equal(mpam_mbwu_counter_bits(false, false), 31);
	assert_int_equal(mpam_mbwu_counter_bits(false, true), 31); /* LWD means nothing without HAS_LONG */
	assert_int_equal(mpam_mbwu_counter_bits(true, false), 44);
	assert_int_equal(mpam_mbwu_counter_bits(true, true), 63);
	expect_u64("mask 31", mpam_counter_mask(31), MSMON_MBWU_VALUE);
	expect_u64("mask 44", mpam_counter_mask(44), MSMON_MBWU_L_VALUE_44);
	expect_u64("mask 63", mpam_counter_mask(63), MSMON_MBWU_L_VALUE_63);
	expect_u64("mask 64", mpam_counter_mask(64), UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_idr_fields),
		cmocka_unit_test(test_idr_high_word_needs_ext),
		cmocka_unit_test(test_mbw_idr_fields),
		cmocka_unit_test(test_msmon_idr_fields),
		cmocka_unit_test(test_mbwumon_idr_fields),
		cmocka_unit_test(test_esr_fields),
		cmocka_unit_test(test_mbwu_ctl_fields),
		cmocka_unit_test(test_mbwu_flt_and_selectors),
		cmocka_unit_test(test_errcode_names),
		cmocka_unit_test(test_idr_round_trip),
		cmocka_unit_test(test_mbw_idr_round_trip),
		cmocka_unit_test(test_msmon_idr_round_trip),
		cmocka_unit_test(test_mbwumon_idr_round_trip),
		cmocka_unit_test(test_esr_round_trip),
		cmocka_unit_test(test_ctl_round_trip),
		cmocka_unit_test(test_flt_round_trip),
		cmocka_unit_test(test_mbw_max_arm_vectors),
		cmocka_unit_test(test_mbw_max_never_exceeds),
		cmocka_unit_test(test_mbw_min_ceil),
		cmocka_unit_test(test_clamping),
		cmocka_unit_test(test_mbw_max_to_percent),
		cmocka_unit_test(test_fractions),
		cmocka_unit_test(test_granularity),
		cmocka_unit_test(test_counter_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
