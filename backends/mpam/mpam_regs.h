/* Arm MPAM MSC register map, from Arm IHI 0099 B.a (the MPAM Memory System Component Specification:
 * §9.4 Table 9-8 for the offsets, the MPAMF_*, MPAMCFG_* and MSMON_* register descriptions for the
 * fields, §9.3 for the bandwidth fractions), checked against Linux's drivers/resctrl/mpam_internal.h,
 * which agrees.
 *
 * Offsets are from the base of the non-secure MSC page. Fields are masks (bit ranges given in the
 * comments); mpam_field_get/mpam_field_prep move a value in or out of a field. The few registers the
 * driver and the model decode as a whole have a struct with a pure decode/encode pair. */
#ifndef MPAMD_CORE_MPAM_REGS_H
#define MPAMD_CORE_MPAM_REGS_H

#include <stdbool.h>
#include <stdint.h>

#define MPAM_BIT(n)	     (UINT64_C(1) << (n))
#define MPAM_GENMASK(hi, lo) (((~UINT64_C(0)) >> (63 - (hi))) & ~((UINT64_C(1) << (lo)) - 1))

static inline uint64_t mpam_field_get(uint64_t mask, uint64_t reg)
{
	return (reg & mask) >> __builtin_ctzll(mask);
}

static inline uint64_t mpam_field_prep(uint64_t mask, uint64_t value)
{
	return (value << __builtin_ctzll(mask)) & mask;
}

/* ---- offsets (IHI 0099 §9.4, Table 9-8) ---- */
#define MPAMF_IDR	     0x000 /* 64 bits when EXT=1 */
#define MPAMF_SIDR	     0x008
#define MPAMF_IIDR	     0x018
#define MPAMF_AIDR	     0x020
#define MPAMF_IMPL_IDR	     0x028
#define MPAMF_CPOR_IDR	     0x030
#define MPAMF_CCAP_IDR	     0x038
#define MPAMF_MBW_IDR	     0x040
#define MPAMF_PRI_IDR	     0x048
#define MPAMF_PARTID_NRW_IDR 0x050
#define MPAMF_MSMON_IDR	     0x080
#define MPAMF_CSUMON_IDR     0x088
#define MPAMF_MBWUMON_IDR    0x090
#define MPAMF_ERR_MSI_MPAM   0x0DC
#define MPAMF_ERR_MSI_ADDR_L 0x0E0
#define MPAMF_ERR_MSI_ADDR_H 0x0E4
#define MPAMF_ERR_MSI_DATA   0x0E8
#define MPAMF_ERR_MSI_ATTR   0x0EC
#define MPAMF_ECR	     0x0F0
#define MPAMF_ESR	     0x0F8 /* 64 bits; the high word only with HAS_EXTD_ESR */
#define MPAMCFG_PART_SEL     0x100
#define MPAMCFG_CMAX	     0x108
#define MPAMCFG_CMIN	     0x110
#define MPAMCFG_CASSOC	     0x118
#define MPAMCFG_MBW_MIN	     0x200
#define MPAMCFG_MBW_MAX	     0x208
#define MPAMCFG_MBW_WINWD    0x220
#define MPAMCFG_EN	     0x300
#define MPAMCFG_DIS	     0x310
#define MPAMCFG_EN_FLAGS     0x320
#define MPAMCFG_PRI	     0x400
#define MPAMCFG_MBW_PROP     0x500
#define MPAMCFG_INTPARTID    0x600
#define MSMON_CFG_MON_SEL    0x800
#define MSMON_CAPT_EVNT	     0x808
#define MSMON_CFG_CSU_FLT    0x810
#define MSMON_CFG_CSU_CTL    0x818
#define MSMON_CFG_MBWU_FLT   0x820
#define MSMON_CFG_MBWU_CTL   0x828
#define MSMON_CSU	     0x840
#define MSMON_CSU_CAPTURE    0x848
#define MSMON_CSU_OFSR	     0x858
#define MSMON_MBWU	     0x860
#define MSMON_MBWU_CAPTURE   0x868
#define MSMON_MBWU_L	     0x880 /* 64 bits */
#define MSMON_MBWU_L_CAPTURE 0x890 /* 64 bits */
#define MSMON_MBWU_OFSR	     0x898
#define MSMON_OFLOW_MSI_MPAM 0x8DC
#define MSMON_OFLOW_MSI_ATTR 0x8EC
#define MSMON_OFLOW_SR	     0x8F0
#define MPAMCFG_CPBM(n)	     (0x1000 + 4 * (n)) /* n <= 1023 */
#define MPAMCFG_MBW_PBM(n)   (0x2000 + 4 * (n)) /* n <= 127 */
#define MPAM_MSC_PAGE_SIZE   0x4000		/* what the simulator implements */

/* ---- ID registers (MPAMF_*) ---- */
#define MPAMF_IDR_PARTID_MAX	     MPAM_GENMASK(15, 0)
#define MPAMF_IDR_PMG_MAX	     MPAM_GENMASK(23, 16)
#define MPAMF_IDR_HAS_CCAP_PART	     MPAM_BIT(24)
#define MPAMF_IDR_HAS_CPOR_PART	     MPAM_BIT(25)
#define MPAMF_IDR_HAS_MBW_PART	     MPAM_BIT(26)
#define MPAMF_IDR_HAS_PRI_PART	     MPAM_BIT(27)
#define MPAMF_IDR_EXT		     MPAM_BIT(28)
#define MPAMF_IDR_HAS_IMPL_IDR	     MPAM_BIT(29)
#define MPAMF_IDR_HAS_MSMON	     MPAM_BIT(30)
#define MPAMF_IDR_HAS_PARTID_NRW     MPAM_BIT(31)
#define MPAMF_IDR_HAS_RIS	     MPAM_BIT(32)
#define MPAMF_IDR_NO_IMPL_PART	     MPAM_BIT(36)
#define MPAMF_IDR_NO_IMPL_MSMON	     MPAM_BIT(37)
#define MPAMF_IDR_HAS_EXTD_ESR	     MPAM_BIT(38)
#define MPAMF_IDR_HAS_ESR	     MPAM_BIT(39)
#define MPAMF_IDR_HAS_ERR_MSI	     MPAM_BIT(40)
#define MPAMF_IDR_SP4		     MPAM_BIT(41)
#define MPAMF_IDR_HAS_ENDIS	     MPAM_BIT(42)
#define MPAMF_IDR_HAS_NFU	     MPAM_BIT(43)
#define MPAMF_IDR_HAS_IN_TL	     MPAM_BIT(44)
#define MPAMF_IDR_HAS_OUT_TL	     MPAM_BIT(45)
#define MPAMF_IDR_HAS_DEFAULT_PARTID MPAM_BIT(46)
#define MPAMF_IDR_RIS_MAX	     MPAM_GENMASK(59, 56)

#define MPAMF_MSMON_IDR_MSMON_CSU	    MPAM_BIT(16)
#define MPAMF_MSMON_IDR_MSMON_MBWU	    MPAM_BIT(17)
#define MPAMF_MSMON_IDR_MSMON_CSA	    MPAM_BIT(18)
#define MPAMF_MSMON_IDR_HAS_TL_MONITORING   MPAM_GENMASK(27, 26)
#define MPAMF_MSMON_IDR_HAS_OFLOW_SR	    MPAM_BIT(28)
#define MPAMF_MSMON_IDR_HAS_OFLW_MSI	    MPAM_BIT(29)
#define MPAMF_MSMON_IDR_NO_HW_OFLW_INTR	    MPAM_BIT(30)
#define MPAMF_MSMON_IDR_HAS_LOCAL_CAPT_EVNT MPAM_BIT(31)

#define MPAMF_MBWUMON_IDR_NUM_MON	  MPAM_GENMASK(15, 0)
#define MPAMF_MBWUMON_IDR_SCALE		  MPAM_GENMASK(20, 16)
#define MPAMF_MBWUMON_IDR_NO_MATCH_PMG	  MPAM_BIT(22)
#define MPAMF_MBWUMON_IDR_NO_MATCH_PARTID MPAM_BIT(23)
#define MPAMF_MBWUMON_IDR_HAS_OFLOW_CAPT  MPAM_BIT(24)
#define MPAMF_MBWUMON_IDR_HAS_CEVNT_OFLW  MPAM_BIT(25)
#define MPAMF_MBWUMON_IDR_HAS_OFSR	  MPAM_BIT(26)
#define MPAMF_MBWUMON_IDR_HAS_OFLOW_LNKG  MPAM_BIT(27)
#define MPAMF_MBWUMON_IDR_HAS_RWBW	  MPAM_BIT(28)
#define MPAMF_MBWUMON_IDR_LWD		  MPAM_BIT(29) /* 0: 44-bit long counter, 1: 63-bit */
#define MPAMF_MBWUMON_IDR_HAS_LONG	  MPAM_BIT(30)
#define MPAMF_MBWUMON_IDR_HAS_CAPTURE	  MPAM_BIT(31)

#define MPAMF_CSUMON_IDR_NUM_MON	 MPAM_GENMASK(15, 0)
#define MPAMF_CSUMON_IDR_NO_MATCH_PMG	 MPAM_BIT(22)
#define MPAMF_CSUMON_IDR_NO_MATCH_PARTID MPAM_BIT(23)
#define MPAMF_CSUMON_IDR_HAS_OFLOW_CAPT	 MPAM_BIT(24)
#define MPAMF_CSUMON_IDR_HAS_CEVNT_OFLW	 MPAM_BIT(25)
#define MPAMF_CSUMON_IDR_HAS_OFSR	 MPAM_BIT(26)
#define MPAMF_CSUMON_IDR_HAS_OFLOW_LNKG	 MPAM_BIT(27)
#define MPAMF_CSUMON_IDR_HAS_XCL	 MPAM_BIT(29)
#define MPAMF_CSUMON_IDR_CSU_RO		 MPAM_BIT(30)
#define MPAMF_CSUMON_IDR_HAS_CAPTURE	 MPAM_BIT(31)

#define MPAMF_MBW_IDR_BWA_WD   MPAM_GENMASK(5, 0)
#define MPAMF_MBW_IDR_MAX_LIM  MPAM_GENMASK(9, 8) /* enum mpam_max_lim */
#define MPAMF_MBW_IDR_HAS_MIN  MPAM_BIT(10)
#define MPAMF_MBW_IDR_HAS_MAX  MPAM_BIT(11)
#define MPAMF_MBW_IDR_HAS_PBM  MPAM_BIT(12)
#define MPAMF_MBW_IDR_HAS_PROP MPAM_BIT(13)
#define MPAMF_MBW_IDR_WINDWR   MPAM_BIT(14)
#define MPAMF_MBW_IDR_BWPBM_WD MPAM_GENMASK(28, 16)

/* MPAMF_MBW_IDR.MAX_LIM: whether MPAMCFG_MBW_MAX.HARDLIM is software's choice. */
enum mpam_max_lim {
	MPAM_MAX_LIM_EITHER = 0, /* HARDLIM is read/write */
	MPAM_MAX_LIM_SOFT = 1,	 /* soft limits only: HARDLIM reads 0 */
	MPAM_MAX_LIM_HARD = 2,	 /* hard limits only: HARDLIM reads 1 */
};

#define MPAMF_CPOR_IDR_CPBM_WD MPAM_GENMASK(15, 0) /* 1..32768 */

#define MPAMF_CCAP_IDR_CMAX_WD		MPAM_GENMASK(5, 0)
#define MPAMF_CCAP_IDR_CASSOC_WD	MPAM_GENMASK(12, 8)
#define MPAMF_CCAP_IDR_HAS_CASSOC	MPAM_BIT(28)
#define MPAMF_CCAP_IDR_HAS_CMIN		MPAM_BIT(29)
#define MPAMF_CCAP_IDR_NO_CMAX		MPAM_BIT(30)
#define MPAMF_CCAP_IDR_HAS_CMAX_SOFTLIM MPAM_BIT(31)

#define MPAMF_PRI_IDR_HAS_INTPRI      MPAM_BIT(0)
#define MPAMF_PRI_IDR_INTPRI_0_IS_LOW MPAM_BIT(1)
#define MPAMF_PRI_IDR_INTPRI_WD	      MPAM_GENMASK(9, 4)
#define MPAMF_PRI_IDR_HAS_DSPRI	      MPAM_BIT(16)
#define MPAMF_PRI_IDR_DSPRI_0_IS_LOW  MPAM_BIT(17)
#define MPAMF_PRI_IDR_DSPRI_WD	      MPAM_GENMASK(25, 20)

#define MPAMF_PARTID_NRW_IDR_INTPARTID_MAX MPAM_GENMASK(15, 0)

#define MPAMF_AIDR_ARCH_MINOR_REV MPAM_GENMASK(3, 0)
#define MPAMF_AIDR_ARCH_MAJOR_REV MPAM_GENMASK(7, 4)
#define MPAMF_AIDR_V1		  0x10 /* MPAM v1.0 */

#define MPAMF_IIDR_IMPLEMENTER MPAM_GENMASK(11, 0) /* Arm is 0x43B */
#define MPAMF_IIDR_REVISION    MPAM_GENMASK(15, 12)
#define MPAMF_IIDR_VARIANT     MPAM_GENMASK(19, 16)
#define MPAMF_IIDR_PRODUCT_ID  MPAM_GENMASK(31, 20)

/* MPAMF_IIDR of parts with known errata (all four fields). */
#define MPAM_IIDR_NVIDIA_T241 0x2410036bu /* NVIDIA Grace: product 0x241, variant 0, revision 0, 0x36B */
#define MPAM_IIDR_ARM_CMN_650 0x0000043bu /* Arm CMN-650: product 0, variant 0, revision 0, Arm */

/* ---- configuration registers (MPAMCFG_*) ---- */
#define MPAMCFG_PART_SEL_PARTID_SEL	MPAM_GENMASK(15, 0)
#define MPAMCFG_PART_SEL_INTERNAL	MPAM_BIT(16)
#define MPAMCFG_PART_SEL_INGRESS_TL	MPAM_BIT(17)
#define MPAMCFG_PART_SEL_DEFAULT_PARTID MPAM_BIT(18)
#define MPAMCFG_PART_SEL_RIS		MPAM_GENMASK(27, 24)

#define MPAMCFG_CMAX_CMAX     MPAM_GENMASK(15, 0)
#define MPAMCFG_CMAX_SOFTLIM  MPAM_BIT(31)
#define MPAMCFG_CMIN_CMIN     MPAM_GENMASK(15, 0)
#define MPAMCFG_CASSOC_CASSOC MPAM_GENMASK(15, 0)

#define MPAMCFG_MBW_MIN_MIN	MPAM_GENMASK(15, 0)
#define MPAMCFG_MBW_MAX_MAX	MPAM_GENMASK(15, 0)
#define MPAMCFG_MBW_MAX_HARDLIM MPAM_BIT(31)

#define MPAMCFG_PRI_INTPRI MPAM_GENMASK(15, 0)
#define MPAMCFG_PRI_DSPRI  MPAM_GENMASK(31, 16)

#define MPAMCFG_MBW_PROP_STRIDEM1 MPAM_GENMASK(15, 0)
#define MPAMCFG_MBW_PROP_EN	  MPAM_BIT(31)

#define MPAMCFG_INTPARTID_INTPARTID MPAM_GENMASK(15, 0)
#define MPAMCFG_INTPARTID_INTERNAL  MPAM_BIT(16)

/* ---- monitor registers (MSMON_*) ---- */
#define MSMON_CFG_MON_SEL_MON_SEL MPAM_GENMASK(15, 0)
#define MSMON_CFG_MON_SEL_RIS	  MPAM_GENMASK(27, 24)

#define MSMON_CFG_MBWU_FLT_PARTID MPAM_GENMASK(15, 0)
#define MSMON_CFG_MBWU_FLT_PMG	  MPAM_GENMASK(23, 16)
#define MSMON_CFG_MBWU_FLT_RWBW	  MPAM_GENMASK(31, 30)

#define MSMON_CFG_CSU_FLT_PARTID MPAM_GENMASK(15, 0)
#define MSMON_CFG_CSU_FLT_PMG	 MPAM_GENMASK(23, 16)
#define MSMON_CFG_CSU_FLT_XCL	 MPAM_BIT(31)

#define MSMON_CFG_CTL_TYPE	      MPAM_GENMASK(7, 0)
#define MSMON_CFG_CTL_OFLOW_LNKG      MPAM_GENMASK(10, 8)
#define MSMON_CFG_CTL_OFLOW_CAPT_L    MPAM_BIT(13)
#define MSMON_CFG_CTL_OFLOW_INTR_L    MPAM_BIT(14)
#define MSMON_CFG_CTL_OFLOW_STATUS_L  MPAM_BIT(15)
#define MSMON_CFG_CTL_MATCH_PARTID    MPAM_BIT(16)
#define MSMON_CFG_CTL_MATCH_PMG	      MPAM_BIT(17)
#define MSMON_CFG_CTL_CEVNT_OFLW      MPAM_BIT(18)
#define MSMON_CFG_CTL_SCLEN	      MPAM_BIT(19)
#define MSMON_CFG_CTL_SUBTYPE	      MPAM_GENMASK(22, 20)
#define MSMON_CFG_CTL_OFLOW_CAPT      MPAM_BIT(23)
#define MSMON_CFG_CTL_OFLOW_FRZ	      MPAM_BIT(24)
#define MSMON_CFG_CTL_OFLOW_INTR      MPAM_BIT(25)
#define MSMON_CFG_CTL_OFLOW_STATUS    MPAM_BIT(26)
#define MSMON_CFG_CTL_CAPT_RESET      MPAM_BIT(27)
#define MSMON_CFG_CTL_CAPT_EVNT	      MPAM_GENMASK(30, 28)
#define MSMON_CFG_CTL_EN	      MPAM_BIT(31)
#define MSMON_CFG_CTL_TYPE_MBWU	      0x42
#define MSMON_CFG_CTL_TYPE_CSU	      0x43
#define MSMON_CFG_CTL_CAPT_EVNT_LOCAL 7 /* capture on MSMON_CAPT_EVNT */

#define MSMON_CAPT_EVNT_NOW MPAM_BIT(0)
#define MSMON_CAPT_EVNT_ALL MPAM_BIT(1)

#define MSMON_MBWU_VALUE      MPAM_GENMASK(30, 0)
#define MSMON_MBWU_NRDY	      MPAM_BIT(31)
#define MSMON_MBWU_L_NRDY     MPAM_BIT(63)
#define MSMON_MBWU_L_VALUE_44 MPAM_GENMASK(43, 0)
#define MSMON_MBWU_L_VALUE_63 MPAM_GENMASK(62, 0)

#define MSMON_OFLOW_SR_RIS_PND	      MPAM_GENMASK(15, 0)
#define MSMON_OFLOW_SR_CSA_OFLOW_PND  MPAM_BIT(29)
#define MSMON_OFLOW_SR_MBWU_OFLOW_PND MPAM_BIT(30)
#define MSMON_OFLOW_SR_CSU_OFLOW_PND  MPAM_BIT(31)

/* MSMON_MBWU_OFSR bit i is monitor (MON_SEL & 0xFFE0) + i of the selected RIS. */
#define MSMON_MBWU_OFSR_GROUP_MASK 0xFFE0u

/* MSMON_CFG_MBWU_FLT.RWBW values (only with HAS_RWBW). */
enum mpam_rwbw {
	MPAM_RWBW_ALL = 0,
	MPAM_RWBW_WRITES = 1,
	MPAM_RWBW_READS = 2,
};

/* ---- errors (MPAMF_ECR, MPAMF_ESR) ---- */
#define MPAMF_ECR_INTEN	     MPAM_BIT(0)
#define MPAMF_ESR_PARTID_MON MPAM_GENMASK(15, 0)
#define MPAMF_ESR_PMG	     MPAM_GENMASK(23, 16)
#define MPAMF_ESR_ERRCODE    MPAM_GENMASK(27, 24)
#define MPAMF_ESR_OVRWR	     MPAM_BIT(31)
#define MPAMF_ESR_RIS	     MPAM_GENMASK(35, 32)

enum mpam_errcode {
	MPAM_ERR_NONE = 0,
	MPAM_ERR_PARTID_SEL_RANGE = 1,
	MPAM_ERR_REQ_PARTID_RANGE = 2,
	MPAM_ERR_MSMONCFG_ID_RANGE = 3,
	MPAM_ERR_REQ_PMG_RANGE = 4,
	MPAM_ERR_MONITOR_RANGE = 5,
	MPAM_ERR_INTPARTID_RANGE = 6,
	MPAM_ERR_UNEXPECTED_INTERNAL = 7,
	MPAM_ERR_UNDEF_RIS_PART_SEL = 8,
	MPAM_ERR_RIS_NO_CONTROL = 9,
	MPAM_ERR_UNDEF_RIS_MON_SEL = 10,
	MPAM_ERR_RIS_NO_MONITOR = 11,
};

/* Human text for an ERRCODE, for logs. */
const char *mpam_errcode_name(unsigned code);

/* ---- decoded registers ---- */

struct mpamf_idr {
	uint16_t partid_max;
	uint8_t pmg_max;
	bool has_ccap_part, has_cpor_part, has_mbw_part, has_pri_part;
	bool ext, has_impl_idr, has_msmon, has_partid_nrw;
	/* Meaningful only when ext is set. */
	bool has_ris, no_impl_part, no_impl_msmon, has_extd_esr, has_esr, has_err_msi, sp4, has_endis, has_nfu,
		has_in_tl, has_out_tl, has_default_partid;
	uint8_t ris_max;
};

struct mpamf_mbw_idr {
	uint8_t bwa_wd;
	uint8_t max_lim;
	bool has_min, has_max, has_pbm, has_prop, windwr;
	uint16_t bwpbm_wd;
};

struct mpamf_msmon_idr {
	bool msmon_csu, msmon_mbwu, msmon_csa;
	uint8_t has_tl_monitoring;
	bool has_oflow_sr, has_oflw_msi, no_hw_oflw_intr, has_local_capt_evnt;
};

struct mpamf_mbwumon_idr {
	uint16_t num_mon;
	uint8_t scale;
	bool no_match_pmg, no_match_partid, has_oflow_capt, has_cevnt_oflw, has_ofsr, has_oflow_lnkg, has_rwbw, lwd,
		has_long, has_capture;
};

struct mpamf_esr {
	uint16_t partid_mon;
	uint8_t pmg;
	uint8_t errcode;
	bool ovrwr;
	uint8_t ris;
};

struct msmon_mbwu_ctl {
	uint8_t type;
	uint8_t oflow_lnkg;
	bool oflow_capt_l, oflow_intr_l, oflow_status_l, match_partid, match_pmg, cevnt_oflw, sclen;
	uint8_t subtype;
	bool oflow_capt, oflow_frz, oflow_intr, oflow_status, capt_reset;
	uint8_t capt_evnt;
	bool en;
};

struct msmon_mbwu_flt {
	uint16_t partid;
	uint8_t pmg;
	uint8_t rwbw; /* enum mpam_rwbw */
};

struct mpamf_idr mpamf_idr_decode(uint64_t reg);
uint64_t mpamf_idr_encode(const struct mpamf_idr *idr);
struct mpamf_mbw_idr mpamf_mbw_idr_decode(uint32_t reg);
uint32_t mpamf_mbw_idr_encode(const struct mpamf_mbw_idr *idr);
struct mpamf_msmon_idr mpamf_msmon_idr_decode(uint32_t reg);
uint32_t mpamf_msmon_idr_encode(const struct mpamf_msmon_idr *idr);
struct mpamf_mbwumon_idr mpamf_mbwumon_idr_decode(uint32_t reg);
uint32_t mpamf_mbwumon_idr_encode(const struct mpamf_mbwumon_idr *idr);
struct mpamf_esr mpamf_esr_decode(uint64_t reg);
uint64_t mpamf_esr_encode(const struct mpamf_esr *esr);
struct msmon_mbwu_ctl msmon_mbwu_ctl_decode(uint32_t reg);
uint32_t msmon_mbwu_ctl_encode(const struct msmon_mbwu_ctl *ctl);
struct msmon_mbwu_flt msmon_mbwu_flt_decode(uint32_t reg);
uint32_t msmon_mbwu_flt_encode(const struct msmon_mbwu_flt *flt);

static inline uint32_t mpamcfg_part_sel(unsigned ris, uint16_t partid)
{
	return (uint32_t)(mpam_field_prep(MPAMCFG_PART_SEL_RIS, ris) |
			  mpam_field_prep(MPAMCFG_PART_SEL_PARTID_SEL, partid));
}

/* PART_SEL of an intPARTID (PARTID narrowing): every MPAMCFG_* register but MPAMCFG_INTPARTID is
 * reached this way on an MSC with HAS_PARTID_NRW. */
static inline uint32_t mpamcfg_int_part_sel(unsigned ris, uint16_t intpartid)
{
	return mpamcfg_part_sel(ris, intpartid) | (uint32_t)MPAMCFG_PART_SEL_INTERNAL;
}

static inline uint32_t msmon_cfg_mon_sel(unsigned ris, uint16_t mon)
{
	return (uint32_t)(mpam_field_prep(MSMON_CFG_MON_SEL_RIS, ris) |
			  mpam_field_prep(MSMON_CFG_MON_SEL_MON_SEL, mon));
}

/* ---- bandwidth fixed point (IHI 0099 §9.3, MPAMCFG_MBW_MIN and _MAX; Linux's
 * drivers/resctrl/mpam_resctrl.c for resctrl's view) ----
 * A BWA_WD = w bit value v in the top w bits of the 16-bit field stands for the band
 * (v/2^w, (v+1)/2^w]. MBW_MAX uses Arm's rule (a maximum is never exceeded):
 *   v = max(floor(pct * 2^w / 100), 1) - 1;  100% gives all ones.
 * MBW_MIN uses the smallest v whose lower bound reaches the request (a minimum is never short):
 *   v = min(ceil(pct * 2^w / 100), 2^w - 1).
 * Both return the 16-bit register field (v shifted into the top w bits). pct is clamped to 0..100,
 * w to 1..16. */
uint16_t mpam_mbw_max_from_percent(unsigned pct, unsigned bwa_wd);
uint16_t mpam_mbw_min_from_percent(unsigned pct, unsigned bwa_wd);
/* What resctrl displays for a MAX field: round_nearest((v + 1) * 100 / 2^w). */
unsigned mpam_mbw_max_to_percent(uint16_t field, unsigned bwa_wd);
/* A MIN field as a percentage: round_nearest(v * 100 / 2^w), the bottom of its band. */
unsigned mpam_mbw_min_to_percent(uint16_t field, unsigned bwa_wd);
/* The share of bandwidth a field allows, as a fraction: MAX enforces the top of its band,
 * MIN guarantees the bottom. */
double mpam_mbw_max_fraction(uint16_t field, unsigned bwa_wd);
double mpam_mbw_min_fraction(uint16_t field, unsigned bwa_wd);
/* resctrl's view of a w-bit control: min_bandwidth = round(100 / 2^w), bandwidth_gran = ceil(100 / 2^w). */
unsigned mpam_min_bandwidth_percent(unsigned bwa_wd);
unsigned mpam_bandwidth_gran_percent(unsigned bwa_wd);

/* ---- counters (MSMON_MBWU, MSMON_MBWU_L; the width as Linux's mpam_ris_hw_probe() picks it) ---- */
/* 63 with HAS_LONG and LWD, 44 with HAS_LONG alone, else 31. */
unsigned mpam_mbwu_counter_bits(bool has_long, bool lwd);
static inline uint64_t mpam_counter_mask(unsigned bits)
{
	return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

#endif
