/* backends/mpam/mpam_regs: the register map against Arm IHI 0099 B.a (Table 9-8 and the register
 * descriptions), the bandwidth fixed point against Arm's reference vectors (as Linux's
 * drivers/resctrl/test_mpam_resctrl.c carries them), and the register codecs by round trip. */
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
#include "tests/util/test_main.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void expect_u64(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		fail_msg("%s: got 0x%" PRIx64 ", want 0x%" PRIx64, what, got, want);
}

/* ---- offsets (IHI 0099 Table 9-8) ---- */

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

/* ---- every codec field at its documented bits ----
 * For each field: the struct with only that field at its largest value encodes to exactly the bits
 * IHI 0099 gives, and those bits decode back to that field (and nothing else). */

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

/* Each register's fields: X(field, largest value, bits it encodes to). The IDR's high word is defined
 * only with EXT set, so its fields (XEXT) are checked together with bit 28. */
/* clang-format off */
#define IDR_FIELDS(X, XEXT) \
	X(partid_max, 0xFFFF, 0xFFFF) X(pmg_max, 0xFF, 0xFF0000) X(has_ccap_part, true, MPAM_BIT(24)) \
	X(has_cpor_part, true, MPAM_BIT(25)) X(has_mbw_part, true, MPAM_BIT(26)) \
	X(has_pri_part, true, MPAM_BIT(27)) X(ext, true, MPAM_BIT(28)) X(has_impl_idr, true, MPAM_BIT(29)) \
	X(has_msmon, true, MPAM_BIT(30)) X(has_partid_nrw, true, MPAM_BIT(31)) XEXT(has_ris, true, MPAM_BIT(32)) \
	XEXT(no_impl_part, true, MPAM_BIT(36)) XEXT(no_impl_msmon, true, MPAM_BIT(37)) \
	XEXT(has_extd_esr, true, MPAM_BIT(38)) XEXT(has_esr, true, MPAM_BIT(39)) \
	XEXT(has_err_msi, true, MPAM_BIT(40)) XEXT(sp4, true, MPAM_BIT(41)) XEXT(has_endis, true, MPAM_BIT(42)) \
	XEXT(has_nfu, true, MPAM_BIT(43)) XEXT(has_in_tl, true, MPAM_BIT(44)) XEXT(has_out_tl, true, MPAM_BIT(45)) \
	XEXT(has_default_partid, true, MPAM_BIT(46)) XEXT(ris_max, 0xF, UINT64_C(0x0F00000000000000))
#define MBW_IDR_FIELDS(X) \
	X(bwa_wd, 0x3F, 0x3F) X(max_lim, 3, 0x300) X(has_min, true, MPAM_BIT(10)) X(has_max, true, MPAM_BIT(11)) \
	X(has_pbm, true, MPAM_BIT(12)) X(has_prop, true, MPAM_BIT(13)) X(windwr, true, MPAM_BIT(14)) \
	X(bwpbm_wd, 0x1FFF, 0x1FFF0000)
#define MSMON_IDR_FIELDS(X) \
	X(msmon_csu, true, MPAM_BIT(16)) X(msmon_mbwu, true, MPAM_BIT(17)) X(msmon_csa, true, MPAM_BIT(18)) \
	X(has_tl_monitoring, 3, 0x0C000000) X(has_oflow_sr, true, MPAM_BIT(28)) \
	X(has_oflw_msi, true, MPAM_BIT(29)) X(no_hw_oflw_intr, true, MPAM_BIT(30)) \
	X(has_local_capt_evnt, true, MPAM_BIT(31))
#define MBWUMON_IDR_FIELDS(X) \
	X(num_mon, 0xFFFF, 0xFFFF) X(scale, 0x1F, 0x1F0000) X(no_match_pmg, true, MPAM_BIT(22)) \
	X(no_match_partid, true, MPAM_BIT(23)) X(has_oflow_capt, true, MPAM_BIT(24)) \
	X(has_cevnt_oflw, true, MPAM_BIT(25)) X(has_ofsr, true, MPAM_BIT(26)) X(has_oflow_lnkg, true, MPAM_BIT(27)) \
	X(has_rwbw, true, MPAM_BIT(28)) X(lwd, true, MPAM_BIT(29)) X(has_long, true, MPAM_BIT(30)) \
	X(has_capture, true, MPAM_BIT(31))
#define ESR_FIELDS(X) \
	X(partid_mon, 0xFFFF, 0xFFFF) X(pmg, 0xFF, 0xFF0000) X(errcode, 0xF, 0x0F000000) \
	X(ovrwr, true, MPAM_BIT(31)) X(ris, 0xF, UINT64_C(0xF00000000))
#define CTL_FIELDS(X) \
	X(type, 0xFF, 0xFF) X(oflow_lnkg, 7, 0x700) X(oflow_capt_l, true, MPAM_BIT(13)) \
	X(oflow_intr_l, true, MPAM_BIT(14)) X(oflow_status_l, true, MPAM_BIT(15)) \
	X(match_partid, true, MPAM_BIT(16)) X(match_pmg, true, MPAM_BIT(17)) X(cevnt_oflw, true, MPAM_BIT(18)) \
	X(sclen, true, MPAM_BIT(19)) X(subtype, 7, 0x700000) X(oflow_capt, true, MPAM_BIT(23)) \
	X(oflow_frz, true, MPAM_BIT(24)) X(oflow_intr, true, MPAM_BIT(25)) X(oflow_status, true, MPAM_BIT(26)) \
	X(capt_reset, true, MPAM_BIT(27)) X(capt_evnt, 7, 0x70000000) X(en, true, MPAM_BIT(31))
#define FLT_FIELDS(X) X(partid, 0xFFFF, 0xFFFF) X(pmg, 0xFF, 0xFF0000) X(rwbw, 3, 0xC0000000)
/* clang-format on */

/* One field's case (FIELD_CASE) in each register's codec. */
#define IDR(field, value, bits) FIELD_CASE(mpamf_idr, mpamf_idr_encode, mpamf_idr_decode, field, value, bits, 0);
#define IDR_EXT(field, value, bits) \
	FIELD_CASE(mpamf_idr, mpamf_idr_encode, mpamf_idr_decode, field, value, (bits) | MPAM_BIT(28), .ext = true);
#define MBW(field, value, bits) \
	FIELD_CASE(mpamf_mbw_idr, mpamf_mbw_idr_encode, mpamf_mbw_idr_decode, field, value, bits, 0);
#define MSMON(field, value, bits) \
	FIELD_CASE(mpamf_msmon_idr, mpamf_msmon_idr_encode, mpamf_msmon_idr_decode, field, value, bits, 0);
#define MBWUMON(field, value, bits) \
	FIELD_CASE(mpamf_mbwumon_idr, mpamf_mbwumon_idr_encode, mpamf_mbwumon_idr_decode, field, value, bits, 0);
#define ESR(field, value, bits) FIELD_CASE(mpamf_esr, mpamf_esr_encode, mpamf_esr_decode, field, value, bits, 0);
#define CTL(field, value, bits) \
	FIELD_CASE(msmon_mbwu_ctl, msmon_mbwu_ctl_encode, msmon_mbwu_ctl_decode, field, value, bits, 0);
#define FLT(field, value, bits) \
	FIELD_CASE(msmon_mbwu_flt, msmon_mbwu_flt_encode, msmon_mbwu_flt_decode, field, value, bits, 0);

/* A test of every field of a register that needs no more. */
#define FIELDS_TEST(test, fields, field_case) \
	static void test(void **state)        \
	{                                     \
		(void)state;                  \
		fields(field_case)            \
	}

static void test_idr_fields(void **state)
{
	(void)state;
	IDR_FIELDS(IDR, IDR_EXT)
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
	/* The MPAMF_IDR reset value of the MSC in Arm's document 107721 (an MSC on a utility bus): 64
	 * PARTIDs, 2 PMGs, CPOR and MBW, EXT and ESR. */
	d = mpamf_idr_decode(63 | (1 << 16) | MPAM_BIT(25) | MPAM_BIT(26) | MPAM_BIT(28) | MPAM_BIT(39));
	assert_int_equal(d.partid_max, 63);
	assert_int_equal(d.pmg_max, 1);
	assert_true(d.has_cpor_part && d.has_mbw_part && d.ext && d.has_esr);
	assert_false(d.has_msmon || d.has_ris);
}

static void test_mbw_idr_fields(void **state)
{
	struct mpamf_mbw_idr grace;

	(void)state;
	MBW_IDR_FIELDS(MBW)
	/* A value a platform reports: BWA_WD=7, MIN and MAX, no PBM. */
	grace = mpamf_mbw_idr_decode(0x00000C07);
	assert_int_equal(grace.bwa_wd, 7);
	assert_true(grace.has_min && grace.has_max);
	assert_false(grace.has_pbm || grace.has_prop);
	assert_int_equal(grace.max_lim, 0);
}

FIELDS_TEST(test_msmon_idr_fields, MSMON_IDR_FIELDS, MSMON)

FIELDS_TEST(test_mbwumon_idr_fields, MBWUMON_IDR_FIELDS, MBWUMON)

FIELDS_TEST(test_esr_fields, ESR_FIELDS, ESR)

static void test_mbwu_ctl_fields(void **state)
{
	(void)state;
	CTL_FIELDS(CTL)
	expect_u64("TYPE MBWU", MSMON_CFG_CTL_TYPE_MBWU, 0x42);
	expect_u64("TYPE CSU", MSMON_CFG_CTL_TYPE_CSU, 0x43);
}

static void test_mbwu_flt_and_selectors(void **state)
{
	(void)state;
	FLT_FIELDS(FLT)
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
#define FIELD_EQUAL(f, value, bits) \
	if (a.f != b.f)             \
		fail_msg("%s: field " #f " 0x%" PRIx64 " != 0x%" PRIx64, what, (uint64_t)a.f, (uint64_t)b.f);
#define EQUAL_FN(name, type, fields)                                     \
	static void name(const char *what, struct type a, struct type b) \
	{                                                                \
		fields(FIELD_EQUAL)                                      \
	}

#define IDR_FIELDS_EQUAL(X) IDR_FIELDS(X, X)
EQUAL_FN(idr_equal, mpamf_idr, IDR_FIELDS_EQUAL)
EQUAL_FN(mbw_idr_equal, mpamf_mbw_idr, MBW_IDR_FIELDS)
EQUAL_FN(msmon_idr_equal, mpamf_msmon_idr, MSMON_IDR_FIELDS)
EQUAL_FN(mbwumon_idr_equal, mpamf_mbwumon_idr, MBWUMON_IDR_FIELDS)
EQUAL_FN(esr_equal, mpamf_esr, ESR_FIELDS)
EQUAL_FN(ctl_equal, msmon_mbwu_ctl, CTL_FIELDS)
EQUAL_FN(flt_equal, msmon_mbwu_flt, FLT_FIELDS)

/* The defined bits of each register, assembled from IHI 0099's field lists. */
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

/* ROUNDS random register values r of type rtype: encode(decode(r)) keeps exactly the defined bits, and
 * decode(encode(x)) gives every field back. */
#define ROUND_TRIP_TEST(test, reg, type, rtype, decode, encode, equal, defined)         \
	static void test(void **state)                                                  \
	{                                                                               \
		(void)state;                                                            \
		seed_rng(#test);                                                        \
		for (int i = 0; i < ROUNDS; i++) {                                      \
			rtype r = (rtype)rnd();                                         \
			struct type x = decode(r);                                      \
                                                                                        \
			expect_u64(reg " encode(decode(r))", encode(&x), r &(defined)); \
			equal(reg " decode(encode(x))", decode(encode(&x)), x);         \
		}                                                                       \
	}

ROUND_TRIP_TEST(test_idr_round_trip, "IDR", mpamf_idr, uint64_t, mpamf_idr_decode, mpamf_idr_encode, idr_equal,
		(r & MPAMF_IDR_EXT) ? IDR_EXT_DEFINED : IDR_LOW_DEFINED)
ROUND_TRIP_TEST(test_mbw_idr_round_trip, "MBW_IDR", mpamf_mbw_idr, uint32_t, mpamf_mbw_idr_decode, mpamf_mbw_idr_encode,
		mbw_idr_equal, MBW_IDR_DEFINED)
ROUND_TRIP_TEST(test_msmon_idr_round_trip, "MSMON_IDR", mpamf_msmon_idr, uint32_t, mpamf_msmon_idr_decode,
		mpamf_msmon_idr_encode, msmon_idr_equal, MSMON_IDR_DEFINED)
ROUND_TRIP_TEST(test_mbwumon_idr_round_trip, "MBWUMON_IDR", mpamf_mbwumon_idr, uint32_t, mpamf_mbwumon_idr_decode,
		mpamf_mbwumon_idr_encode, mbwumon_idr_equal, MBWUMON_IDR_DEFINED)
ROUND_TRIP_TEST(test_esr_round_trip, "ESR", mpamf_esr, uint64_t, mpamf_esr_decode, mpamf_esr_encode, esr_equal,
		ESR_DEFINED)
ROUND_TRIP_TEST(test_ctl_round_trip, "MBWU_CTL", msmon_mbwu_ctl, uint32_t, msmon_mbwu_ctl_decode, msmon_mbwu_ctl_encode,
		ctl_equal, CTL_DEFINED)
ROUND_TRIP_TEST(test_flt_round_trip, "MBWU_FLT", msmon_mbwu_flt, uint32_t, msmon_mbwu_flt_decode, msmon_mbwu_flt_encode,
		flt_equal, FLT_DEFINED)

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
	for (unsigned p = 0; p <= 100; p++) {
		for (unsigned w = 1; w <= 16; w++) {
			uint64_t bands = UINT64_C(1) << w;
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

TEST_MAIN({
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
})
