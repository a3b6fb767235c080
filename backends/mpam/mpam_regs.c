#include "backends/mpam/mpam_regs.h"

#define GET(mask, reg)	 mpam_field_get(mask, reg)
#define FLAG(mask, reg)	 (((reg) & (mask)) != 0)
#define PUT(mask, value) mpam_field_prep(mask, (uint64_t)(value))

const char *mpam_errcode_name(unsigned code)
{
	static const char *const names[] = {
		[MPAM_ERR_NONE] = "none",
		[MPAM_ERR_PARTID_SEL_RANGE] = "PARTID_SEL out of range",
		[MPAM_ERR_REQ_PARTID_RANGE] = "request PARTID out of range",
		[MPAM_ERR_MSMONCFG_ID_RANGE] = "MSMONCFG ID out of range",
		[MPAM_ERR_REQ_PMG_RANGE] = "request PMG out of range",
		[MPAM_ERR_MONITOR_RANGE] = "monitor selector out of range",
		[MPAM_ERR_INTPARTID_RANGE] = "intPARTID out of range",
		[MPAM_ERR_UNEXPECTED_INTERNAL] = "unexpected INTERNAL",
		[MPAM_ERR_UNDEF_RIS_PART_SEL] = "undefined RIS in PART_SEL",
		[MPAM_ERR_RIS_NO_CONTROL] = "RIS has no control",
		[MPAM_ERR_UNDEF_RIS_MON_SEL] = "undefined RIS in MON_SEL",
		[MPAM_ERR_RIS_NO_MONITOR] = "RIS has no monitor",
	};
	if (code < sizeof(names) / sizeof(names[0]))
		return names[code];
	return "reserved";
}

struct mpamf_idr mpamf_idr_decode(uint64_t r)
{
	struct mpamf_idr d = {
		.partid_max = (uint16_t)GET(MPAMF_IDR_PARTID_MAX, r),
		.pmg_max = (uint8_t)GET(MPAMF_IDR_PMG_MAX, r),
		.has_ccap_part = FLAG(MPAMF_IDR_HAS_CCAP_PART, r),
		.has_cpor_part = FLAG(MPAMF_IDR_HAS_CPOR_PART, r),
		.has_mbw_part = FLAG(MPAMF_IDR_HAS_MBW_PART, r),
		.has_pri_part = FLAG(MPAMF_IDR_HAS_PRI_PART, r),
		.ext = FLAG(MPAMF_IDR_EXT, r),
		.has_impl_idr = FLAG(MPAMF_IDR_HAS_IMPL_IDR, r),
		.has_msmon = FLAG(MPAMF_IDR_HAS_MSMON, r),
		.has_partid_nrw = FLAG(MPAMF_IDR_HAS_PARTID_NRW, r),
	};
	if (!d.ext)
		return d; /* bits 63:32 are not defined */
	d.has_ris = FLAG(MPAMF_IDR_HAS_RIS, r);
	d.no_impl_part = FLAG(MPAMF_IDR_NO_IMPL_PART, r);
	d.no_impl_msmon = FLAG(MPAMF_IDR_NO_IMPL_MSMON, r);
	d.has_extd_esr = FLAG(MPAMF_IDR_HAS_EXTD_ESR, r);
	d.has_esr = FLAG(MPAMF_IDR_HAS_ESR, r);
	d.has_err_msi = FLAG(MPAMF_IDR_HAS_ERR_MSI, r);
	d.sp4 = FLAG(MPAMF_IDR_SP4, r);
	d.has_endis = FLAG(MPAMF_IDR_HAS_ENDIS, r);
	d.has_nfu = FLAG(MPAMF_IDR_HAS_NFU, r);
	d.has_in_tl = FLAG(MPAMF_IDR_HAS_IN_TL, r);
	d.has_out_tl = FLAG(MPAMF_IDR_HAS_OUT_TL, r);
	d.has_default_partid = FLAG(MPAMF_IDR_HAS_DEFAULT_PARTID, r);
	d.ris_max = (uint8_t)GET(MPAMF_IDR_RIS_MAX, r);
	return d;
}

uint64_t mpamf_idr_encode(const struct mpamf_idr *d)
{
	uint64_t r = PUT(MPAMF_IDR_PARTID_MAX, d->partid_max) | PUT(MPAMF_IDR_PMG_MAX, d->pmg_max) |
		     PUT(MPAMF_IDR_HAS_CCAP_PART, d->has_ccap_part) | PUT(MPAMF_IDR_HAS_CPOR_PART, d->has_cpor_part) |
		     PUT(MPAMF_IDR_HAS_MBW_PART, d->has_mbw_part) | PUT(MPAMF_IDR_HAS_PRI_PART, d->has_pri_part) |
		     PUT(MPAMF_IDR_EXT, d->ext) | PUT(MPAMF_IDR_HAS_IMPL_IDR, d->has_impl_idr) |
		     PUT(MPAMF_IDR_HAS_MSMON, d->has_msmon) | PUT(MPAMF_IDR_HAS_PARTID_NRW, d->has_partid_nrw);

	if (!d->ext)
		return r;
	return r | PUT(MPAMF_IDR_HAS_RIS, d->has_ris) | PUT(MPAMF_IDR_NO_IMPL_PART, d->no_impl_part) |
	       PUT(MPAMF_IDR_NO_IMPL_MSMON, d->no_impl_msmon) | PUT(MPAMF_IDR_HAS_EXTD_ESR, d->has_extd_esr) |
	       PUT(MPAMF_IDR_HAS_ESR, d->has_esr) | PUT(MPAMF_IDR_HAS_ERR_MSI, d->has_err_msi) |
	       PUT(MPAMF_IDR_SP4, d->sp4) | PUT(MPAMF_IDR_HAS_ENDIS, d->has_endis) |
	       PUT(MPAMF_IDR_HAS_NFU, d->has_nfu) | PUT(MPAMF_IDR_HAS_IN_TL, d->has_in_tl) |
	       PUT(MPAMF_IDR_HAS_OUT_TL, d->has_out_tl) | PUT(MPAMF_IDR_HAS_DEFAULT_PARTID, d->has_default_partid) |
	       PUT(MPAMF_IDR_RIS_MAX, d->ris_max);
}

struct mpamf_mbw_idr mpamf_mbw_idr_decode(uint32_t r)
{
	return (struct mpamf_mbw_idr){
		.bwa_wd = (uint8_t)GET(MPAMF_MBW_IDR_BWA_WD, r),
		.max_lim = (uint8_t)GET(MPAMF_MBW_IDR_MAX_LIM, r),
		.has_min = FLAG(MPAMF_MBW_IDR_HAS_MIN, r),
		.has_max = FLAG(MPAMF_MBW_IDR_HAS_MAX, r),
		.has_pbm = FLAG(MPAMF_MBW_IDR_HAS_PBM, r),
		.has_prop = FLAG(MPAMF_MBW_IDR_HAS_PROP, r),
		.windwr = FLAG(MPAMF_MBW_IDR_WINDWR, r),
		.bwpbm_wd = (uint16_t)GET(MPAMF_MBW_IDR_BWPBM_WD, r),
	};
}

uint32_t mpamf_mbw_idr_encode(const struct mpamf_mbw_idr *d)
{
	return (uint32_t)(PUT(MPAMF_MBW_IDR_BWA_WD, d->bwa_wd) | PUT(MPAMF_MBW_IDR_MAX_LIM, d->max_lim) |
			  PUT(MPAMF_MBW_IDR_HAS_MIN, d->has_min) | PUT(MPAMF_MBW_IDR_HAS_MAX, d->has_max) |
			  PUT(MPAMF_MBW_IDR_HAS_PBM, d->has_pbm) | PUT(MPAMF_MBW_IDR_HAS_PROP, d->has_prop) |
			  PUT(MPAMF_MBW_IDR_WINDWR, d->windwr) | PUT(MPAMF_MBW_IDR_BWPBM_WD, d->bwpbm_wd));
}

struct mpamf_msmon_idr mpamf_msmon_idr_decode(uint32_t r)
{
	return (struct mpamf_msmon_idr){
		.msmon_csu = FLAG(MPAMF_MSMON_IDR_MSMON_CSU, r),
		.msmon_mbwu = FLAG(MPAMF_MSMON_IDR_MSMON_MBWU, r),
		.msmon_csa = FLAG(MPAMF_MSMON_IDR_MSMON_CSA, r),
		.has_tl_monitoring = (uint8_t)GET(MPAMF_MSMON_IDR_HAS_TL_MONITORING, r),
		.has_oflow_sr = FLAG(MPAMF_MSMON_IDR_HAS_OFLOW_SR, r),
		.has_oflw_msi = FLAG(MPAMF_MSMON_IDR_HAS_OFLW_MSI, r),
		.no_hw_oflw_intr = FLAG(MPAMF_MSMON_IDR_NO_HW_OFLW_INTR, r),
		.has_local_capt_evnt = FLAG(MPAMF_MSMON_IDR_HAS_LOCAL_CAPT_EVNT, r),
	};
}

uint32_t mpamf_msmon_idr_encode(const struct mpamf_msmon_idr *d)
{
	return (uint32_t)(PUT(MPAMF_MSMON_IDR_MSMON_CSU, d->msmon_csu) |
			  PUT(MPAMF_MSMON_IDR_MSMON_MBWU, d->msmon_mbwu) |
			  PUT(MPAMF_MSMON_IDR_MSMON_CSA, d->msmon_csa) |
			  PUT(MPAMF_MSMON_IDR_HAS_TL_MONITORING, d->has_tl_monitoring) |
			  PUT(MPAMF_MSMON_IDR_HAS_OFLOW_SR, d->has_oflow_sr) |
			  PUT(MPAMF_MSMON_IDR_HAS_OFLW_MSI, d->has_oflw_msi) |
			  PUT(MPAMF_MSMON_IDR_NO_HW_OFLW_INTR, d->no_hw_oflw_intr) |
			  PUT(MPAMF_MSMON_IDR_HAS_LOCAL_CAPT_EVNT, d->has_local_capt_evnt));
}

struct mpamf_mbwumon_idr mpamf_mbwumon_idr_decode(uint32_t r)
{
	return (struct mpamf_mbwumon_idr){
		.num_mon = (uint16_t)GET(MPAMF_MBWUMON_IDR_NUM_MON, r),
		.scale = (uint8_t)GET(MPAMF_MBWUMON_IDR_SCALE, r),
		.no_match_pmg = FLAG(MPAMF_MBWUMON_IDR_NO_MATCH_PMG, r),
		.no_match_partid = FLAG(MPAMF_MBWUMON_IDR_NO_MATCH_PARTID, r),
		.has_oflow_capt = FLAG(MPAMF_MBWUMON_IDR_HAS_OFLOW_CAPT, r),
		.has_cevnt_oflw = FLAG(MPAMF_MBWUMON_IDR_HAS_CEVNT_OFLW, r),
		.has_ofsr = FLAG(MPAMF_MBWUMON_IDR_HAS_OFSR, r),
		.has_oflow_lnkg = FLAG(MPAMF_MBWUMON_IDR_HAS_OFLOW_LNKG, r),
		.has_rwbw = FLAG(MPAMF_MBWUMON_IDR_HAS_RWBW, r),
		.lwd = FLAG(MPAMF_MBWUMON_IDR_LWD, r),
		.has_long = FLAG(MPAMF_MBWUMON_IDR_HAS_LONG, r),
		.has_capture = FLAG(MPAMF_MBWUMON_IDR_HAS_CAPTURE, r),
	};
}

uint32_t mpamf_mbwumon_idr_encode(const struct mpamf_mbwumon_idr *d)
{
	return (uint32_t)(PUT(MPAMF_MBWUMON_IDR_NUM_MON, d->num_mon) | PUT(MPAMF_MBWUMON_IDR_SCALE, d->scale) |
			  PUT(MPAMF_MBWUMON_IDR_NO_MATCH_PMG, d->no_match_pmg) |
			  PUT(MPAMF_MBWUMON_IDR_NO_MATCH_PARTID, d->no_match_partid) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_OFLOW_CAPT, d->has_oflow_capt) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_CEVNT_OFLW, d->has_cevnt_oflw) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_OFSR, d->has_ofsr) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_OFLOW_LNKG, d->has_oflow_lnkg) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_RWBW, d->has_rwbw) | PUT(MPAMF_MBWUMON_IDR_LWD, d->lwd) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_LONG, d->has_long) |
			  PUT(MPAMF_MBWUMON_IDR_HAS_CAPTURE, d->has_capture));
}

struct mpamf_esr mpamf_esr_decode(uint64_t r)
{
	return (struct mpamf_esr){
		.partid_mon = (uint16_t)GET(MPAMF_ESR_PARTID_MON, r),
		.pmg = (uint8_t)GET(MPAMF_ESR_PMG, r),
		.errcode = (uint8_t)GET(MPAMF_ESR_ERRCODE, r),
		.ovrwr = FLAG(MPAMF_ESR_OVRWR, r),
		.ris = (uint8_t)GET(MPAMF_ESR_RIS, r),
	};
}

uint64_t mpamf_esr_encode(const struct mpamf_esr *d)
{
	return PUT(MPAMF_ESR_PARTID_MON, d->partid_mon) | PUT(MPAMF_ESR_PMG, d->pmg) |
	       PUT(MPAMF_ESR_ERRCODE, d->errcode) | PUT(MPAMF_ESR_OVRWR, d->ovrwr) | PUT(MPAMF_ESR_RIS, d->ris);
}

struct msmon_mbwu_ctl msmon_mbwu_ctl_decode(uint32_t r)
{
	return (struct msmon_mbwu_ctl){
		.type = (uint8_t)GET(MSMON_CFG_CTL_TYPE, r),
		.oflow_lnkg = (uint8_t)GET(MSMON_CFG_CTL_OFLOW_LNKG, r),
		.oflow_capt_l = FLAG(MSMON_CFG_CTL_OFLOW_CAPT_L, r),
		.oflow_intr_l = FLAG(MSMON_CFG_CTL_OFLOW_INTR_L, r),
		.oflow_status_l = FLAG(MSMON_CFG_CTL_OFLOW_STATUS_L, r),
		.match_partid = FLAG(MSMON_CFG_CTL_MATCH_PARTID, r),
		.match_pmg = FLAG(MSMON_CFG_CTL_MATCH_PMG, r),
		.cevnt_oflw = FLAG(MSMON_CFG_CTL_CEVNT_OFLW, r),
		.sclen = FLAG(MSMON_CFG_CTL_SCLEN, r),
		.subtype = (uint8_t)GET(MSMON_CFG_CTL_SUBTYPE, r),
		.oflow_capt = FLAG(MSMON_CFG_CTL_OFLOW_CAPT, r),
		.oflow_frz = FLAG(MSMON_CFG_CTL_OFLOW_FRZ, r),
		.oflow_intr = FLAG(MSMON_CFG_CTL_OFLOW_INTR, r),
		.oflow_status = FLAG(MSMON_CFG_CTL_OFLOW_STATUS, r),
		.capt_reset = FLAG(MSMON_CFG_CTL_CAPT_RESET, r),
		.capt_evnt = (uint8_t)GET(MSMON_CFG_CTL_CAPT_EVNT, r),
		.en = FLAG(MSMON_CFG_CTL_EN, r),
	};
}

uint32_t msmon_mbwu_ctl_encode(const struct msmon_mbwu_ctl *d)
{
	return (uint32_t)(PUT(MSMON_CFG_CTL_TYPE, d->type) | PUT(MSMON_CFG_CTL_OFLOW_LNKG, d->oflow_lnkg) |
			  PUT(MSMON_CFG_CTL_OFLOW_CAPT_L, d->oflow_capt_l) |
			  PUT(MSMON_CFG_CTL_OFLOW_INTR_L, d->oflow_intr_l) |
			  PUT(MSMON_CFG_CTL_OFLOW_STATUS_L, d->oflow_status_l) |
			  PUT(MSMON_CFG_CTL_MATCH_PARTID, d->match_partid) |
			  PUT(MSMON_CFG_CTL_MATCH_PMG, d->match_pmg) | PUT(MSMON_CFG_CTL_CEVNT_OFLW, d->cevnt_oflw) |
			  PUT(MSMON_CFG_CTL_SCLEN, d->sclen) | PUT(MSMON_CFG_CTL_SUBTYPE, d->subtype) |
			  PUT(MSMON_CFG_CTL_OFLOW_CAPT, d->oflow_capt) | PUT(MSMON_CFG_CTL_OFLOW_FRZ, d->oflow_frz) |
			  PUT(MSMON_CFG_CTL_OFLOW_INTR, d->oflow_intr) |
			  PUT(MSMON_CFG_CTL_OFLOW_STATUS, d->oflow_status) |
			  PUT(MSMON_CFG_CTL_CAPT_RESET, d->capt_reset) | PUT(MSMON_CFG_CTL_CAPT_EVNT, d->capt_evnt) |
			  PUT(MSMON_CFG_CTL_EN, d->en));
}

struct msmon_mbwu_flt msmon_mbwu_flt_decode(uint32_t r)
{
	return (struct msmon_mbwu_flt){
		.partid = (uint16_t)GET(MSMON_CFG_MBWU_FLT_PARTID, r),
		.pmg = (uint8_t)GET(MSMON_CFG_MBWU_FLT_PMG, r),
		.rwbw = (uint8_t)GET(MSMON_CFG_MBWU_FLT_RWBW, r),
	};
}

uint32_t msmon_mbwu_flt_encode(const struct msmon_mbwu_flt *d)
{
	return (uint32_t)(PUT(MSMON_CFG_MBWU_FLT_PARTID, d->partid) | PUT(MSMON_CFG_MBWU_FLT_PMG, d->pmg) |
			  PUT(MSMON_CFG_MBWU_FLT_RWBW, d->rwbw));
}

/* ---- fixed point ---- */

static unsigned clamp_wd(unsigned w)
{
	return w < 1 ? 1 : (w > 16 ? 16 : w);
}

static unsigned clamp_pct(unsigned pct)
{
	return pct > 100 ? 100 : pct;
}

static uint16_t place(uint32_t v, unsigned w)
{
	return (uint16_t)(v << (16 - w));
}

uint16_t mpam_mbw_max_from_percent(unsigned pct, unsigned bwa_wd)
{
	unsigned w = clamp_wd(bwa_wd);
	uint32_t v = (uint32_t)(((uint64_t)clamp_pct(pct) << w) / 100);

	if (v < 1)
		v = 1;
	return place(v - 1, w);
}

uint16_t mpam_mbw_min_from_percent(unsigned pct, unsigned bwa_wd)
{
	unsigned w = clamp_wd(bwa_wd);
	uint32_t v = (uint32_t)((((uint64_t)clamp_pct(pct) << w) + 99) / 100);
	uint32_t top = (UINT32_C(1) << w) - 1;

	return place(v > top ? top : v, w);
}

static uint32_t band_index(uint16_t field, unsigned w)
{
	return (uint32_t)field >> (16 - w);
}

/* round_nearest(num / den) for non-negative integers, halves rounding up. */
static unsigned div_round_nearest(uint64_t num, uint64_t den)
{
	return (unsigned)((num + den / 2) / den);
}

unsigned mpam_mbw_max_to_percent(uint16_t field, unsigned bwa_wd)
{
	unsigned w = clamp_wd(bwa_wd);

	return div_round_nearest(((uint64_t)band_index(field, w) + 1) * 100, UINT64_C(1) << w);
}

unsigned mpam_mbw_min_to_percent(uint16_t field, unsigned bwa_wd)
{
	unsigned w = clamp_wd(bwa_wd);

	return div_round_nearest((uint64_t)band_index(field, w) * 100, UINT64_C(1) << w);
}

double mpam_mbw_max_fraction(uint16_t field, unsigned bwa_wd)
{
	unsigned w = clamp_wd(bwa_wd);

	return (double)(band_index(field, w) + 1) / (double)(UINT32_C(1) << w);
}

double mpam_mbw_min_fraction(uint16_t field, unsigned bwa_wd)
{
	unsigned w = clamp_wd(bwa_wd);

	return (double)band_index(field, w) / (double)(UINT32_C(1) << w);
}

unsigned mpam_min_bandwidth_percent(unsigned bwa_wd)
{
	return div_round_nearest(100, UINT64_C(1) << clamp_wd(bwa_wd));
}

unsigned mpam_bandwidth_gran_percent(unsigned bwa_wd)
{
	uint64_t den = UINT64_C(1) << clamp_wd(bwa_wd);

	return (unsigned)((100 + den - 1) / den);
}

unsigned mpam_mbwu_counter_bits(bool has_long, bool lwd)
{
	if (!has_long)
		return 31;
	return lwd ? 63 : 44;
}
