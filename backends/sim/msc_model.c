/* Register-accurate model of one Arm MPAM MSC (the registers of Arm IHI 0099 B.a, see
 * backends/mpam/mpam_regs.h): creating it,
 * the register map every bus access is dispatched through, the ID registers and the error status.
 * The configuration registers are in msc_model_config.c (and PART_SEL, PARTID narrowing in
 * msc_model_partsel.c, the controls in force behind them in msc_model_delay.c), the monitors in
 * msc_model_monitors.c; the state they share is in msc_model_internal.h.
 *
 * Interpretations where IHI 0099 leaves a choice (each is also stated where it is coded):
 *  - Only registers the model implements raise errors; an unimplemented location is plain RAZ/WI.
 *  - A low-word (or 64-bit) write of MPAMF_ESR with ERRCODE 0 clears the whole ESR, RIS included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/mmio/bus.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/msc_model_internal.h"
#include "backends/mpam/mpam_regs.h"

void msc_model_params_default(struct msc_model_params *p)
{
	*p = (struct msc_model_params){
		.partid_max = 63,
		.pmg_max = 1,
		.bwa_wd = 8,
		.has_min = true,
		.has_max = true,
		.max_lim = 0,
		.cpbm_wd = 16,
		.num_mon = 16,
		.has_long = true,
		.lwd = false,
		.nrdy_ticks = 1,
		.nrdy_hw = true,
		.ext = true,
		.has_esr = true,
		.iidr = 0x43B, /* implementer Arm, product 0 */
		.aidr = MPAMF_AIDR_V1,
	};
}

/* ---------------------------------------------------------------- creation */

static bool params_valid(const struct msc_model_params *p)
{
	return p->bwa_wd <= 16 && p->max_lim <= MPAM_MAX_LIM_HARD && p->cpbm_wd <= 32 * CPBM_MAX_WORDS &&
	       p->bwpbm_wd <= 32 * PBM_MAX_WORDS && p->cmax_wd <= 16 && p->cassoc_wd <= 16 && p->pri_wd <= 16 &&
	       p->ris_max <= 15 && p->scale <= 31 && (!p->has_partid_nrw || p->intpartid_max <= p->partid_max) &&
	       p->limit_delay_ticks <= MSC_MODEL_DELAY_TICKS_MAX;
}

/* calloc that is NULL when there is nothing to hold, and says whether it failed. */
static bool alloc_array(void **ret, size_t count, size_t size)
{
	*ret = count ? calloc(count, size) : NULL;
	return !count || *ret;
}

static int ris_alloc(struct ris_state *r, const struct msc_model *m)
{
	size_t nr_partids = (size_t)m->p.partid_max + 1;
	size_t monitored = m->p.num_mon ? nr_partids : 0;

	bool ok = alloc_array((void **)&r->cfg, m->nr_cfgs, sizeof(*r->cfg)) &&
		  alloc_array((void **)&r->cpbm_flipped, (size_t)m->nr_cfgs * m->cpbm_words, sizeof(uint32_t)) &&
		  alloc_array((void **)&r->pbm_flipped, (size_t)m->nr_cfgs * m->pbm_words, sizeof(uint32_t)) &&
		  alloc_array((void **)&r->intpartid_of, m->p.has_partid_nrw ? nr_partids : 0,
			      sizeof(*r->intpartid_of)) &&
		  alloc_array((void **)&r->mon, m->p.num_mon, sizeof(*r->mon)) &&
		  alloc_array((void **)&r->by_partid, monitored, sizeof(*r->by_partid));
	return ok ? 0 : -ENOMEM;
}

int msc_model_new(const struct msc_model_params *params, struct msc_model **ret)
{
	struct msc_model *m;

	if (!params || !params_valid(params))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->p = *params;
	m->unit_shift = params->iidr == MPAM_IIDR_NVIDIA_T241 ? 6 : 0;
	m->long_bits = mpam_mbwu_counter_bits(true, params->lwd);
	m->nr_ris = params->has_ris ? (unsigned)params->ris_max + 1 : 1;
	m->nr_cfgs = (params->has_partid_nrw ? params->intpartid_max : params->partid_max) + 1u;
	m->cpbm_words = (params->cpbm_wd + 31u) / 32u;
	m->pbm_words = (params->bwpbm_wd + 31u) / 32u;
	m->ris = calloc(m->nr_ris, sizeof(*m->ris));
	for (unsigned r = 0; m->ris && r < m->nr_ris; r++) {
		if (ris_alloc(&m->ris[r], m) < 0) {
			msc_model_free(m);
			return -ENOMEM;
		}
		for (size_t id = 0; id < m->nr_cfgs; id++)
			msc_model_config_reset(&m->ris[r].cfg[id], m);
	}
	if (!m->ris || msc_model_delay_init(m) < 0) {
		msc_model_free(m);
		return -ENOMEM;
	}
	*ret = m;
	return 0;
}

void msc_model_free(struct msc_model *model)
{
	if (!model)
		return;
	msc_model_delay_free(model);
	for (unsigned r = 0; model->ris && r < model->nr_ris; r++) {
		free(model->ris[r].cfg);
		free(model->ris[r].cpbm_flipped);
		free(model->ris[r].pbm_flipped);
		free(model->ris[r].intpartid_of);
		free(model->ris[r].mon);
		free(model->ris[r].by_partid);
	}
	free(model->ris);
	free(model);
}

const struct msc_model_params *msc_model_params(const struct msc_model *model)
{
	return &model->p;
}

/* ---------------------------------------------------------------- errors */

/* For tests (a fault) and for every access or request the model finds in error. */
void msc_model_raise_error(struct msc_model *m, unsigned errcode, uint16_t partid_mon, uint8_t pmg, unsigned ris)
{
	struct mpamf_esr esr = {
		.partid_mon = partid_mon,
		.pmg = pmg,
		.errcode = (uint8_t)errcode,
		/* A new error while one is pending overwrites it and says so. */
		.ovrwr = mpam_field_get(MPAMF_ESR_ERRCODE, m->esr) != MPAM_ERR_NONE,
		/* The RIS field only exists in the extended (high) word. */
		.ris = m->p.has_extd_esr ? (uint8_t)ris : 0,
	};

	m->esr = mpamf_esr_encode(&esr);
	m->errors++;
}

static uint64_t esr_implemented_bits(const struct msc_model *m)
{
	uint64_t bits = MPAMF_ESR_PARTID_MON | MPAMF_ESR_PMG | MPAMF_ESR_ERRCODE | MPAMF_ESR_OVRWR;

	return m->p.has_extd_esr ? bits | MPAMF_ESR_RIS : bits;
}

/* `mask` says which bytes the access covers. Writing ERRCODE 0 is how software acknowledges an
 * error (IHI 0099 §8.2.1), and clears the whole register. */
static void esr_write(struct msc_model *m, uint64_t value, uint64_t mask)
{
	if (!m->p.has_esr)
		return;
	mask &= esr_implemented_bits(m);
	m->esr = (m->esr & ~mask) | (value & mask);
	if ((mask & MPAMF_ESR_ERRCODE) && mpam_field_get(MPAMF_ESR_ERRCODE, m->esr) == MPAM_ERR_NONE)
		m->esr = 0;
}

/* ---------------------------------------------------------------- ID registers */

/* With RIS, the per-RIS ID registers describe the RIS selected by PART_SEL.RIS. Every RIS of this
 * model has the same features, so the selection does not change what they read. */
static uint64_t idr_value(const struct msc_model *m)
{
	struct mpamf_idr idr = {
		.partid_max = m->p.partid_max,
		.pmg_max = m->p.pmg_max,
		.has_ccap_part = m->p.cmax_wd > 0 || m->p.cassoc_wd > 0,
		.has_cpor_part = m->p.cpbm_wd > 0,
		.has_mbw_part = m->p.bwa_wd > 0 || m->p.bwpbm_wd > 0,
		.has_pri_part = m->p.pri_wd > 0,
		.has_partid_nrw = m->p.has_partid_nrw,
		.ext = m->p.ext,
		.has_msmon = m->p.num_mon > 0,
		.has_ris = m->p.has_ris,
		.ris_max = m->p.has_ris ? m->p.ris_max : 0,
		.has_extd_esr = m->p.has_extd_esr,
		.has_esr = m->p.has_esr,
	};

	return mpamf_idr_encode(&idr); /* leaves bits 63:32 zero when EXT is clear */
}

static uint32_t mbw_idr_value(const struct msc_model *m)
{
	struct mpamf_mbw_idr idr = {
		.bwa_wd = m->p.bwa_wd,
		.max_lim = m->p.max_lim,
		.has_min = m->p.has_min,
		.has_max = m->p.has_max,
		.has_prop = m->p.has_prop,
		.has_pbm = m->p.bwpbm_wd > 0,
		.bwpbm_wd = m->p.bwpbm_wd,
	};

	return m->p.bwa_wd || m->p.bwpbm_wd ? mpamf_mbw_idr_encode(&idr) : 0;
}

static uint32_t cpor_idr_value(const struct msc_model *m)
{
	return (uint32_t)mpam_field_prep(MPAMF_CPOR_IDR_CPBM_WD, m->p.cpbm_wd);
}

/* CMAX (and CMIN) when cmax_wd is set, CASSOC when cassoc_wd is; no soft CMAX limit. */
static uint32_t ccap_idr_value(const struct msc_model *m)
{
	return (uint32_t)(mpam_field_prep(MPAMF_CCAP_IDR_CMAX_WD, m->p.cmax_wd) |
			  mpam_field_prep(MPAMF_CCAP_IDR_CASSOC_WD, m->p.cassoc_wd) |
			  (m->p.cassoc_wd ? MPAMF_CCAP_IDR_HAS_CASSOC : 0) |
			  (m->p.cmax_wd && m->p.has_cmin ? MPAMF_CCAP_IDR_HAS_CMIN : 0) |
			  (m->p.cmax_wd ? 0 : MPAMF_CCAP_IDR_NO_CMAX));
}

static uint32_t pri_idr_value(const struct msc_model *m)
{
	if (!m->p.pri_wd)
		return 0;
	/* Both priorities exist, pri_wd bits each, and 0 is the lowest priority. */
	return (uint32_t)(MPAMF_PRI_IDR_HAS_INTPRI | MPAMF_PRI_IDR_INTPRI_0_IS_LOW |
			  mpam_field_prep(MPAMF_PRI_IDR_INTPRI_WD, m->p.pri_wd) | MPAMF_PRI_IDR_HAS_DSPRI |
			  MPAMF_PRI_IDR_DSPRI_0_IS_LOW | mpam_field_prep(MPAMF_PRI_IDR_DSPRI_WD, m->p.pri_wd));
}

static uint32_t msmon_idr_value(const struct msc_model *m)
{
	struct mpamf_msmon_idr idr = {
		.msmon_mbwu = true,
		.has_oflow_sr = m->p.has_oflow_sr,
		.has_local_capt_evnt = m->p.has_capture,
	};

	return m->p.num_mon ? mpamf_msmon_idr_encode(&idr) : 0;
}

static uint32_t mbwumon_idr_value(const struct msc_model *m)
{
	struct mpamf_mbwumon_idr idr = {
		.num_mon = m->p.num_mon,
		.scale = m->p.scale,
		.has_ofsr = m->p.has_ofsr,
		.has_rwbw = m->p.has_rwbw,
		.lwd = m->p.has_long && m->p.lwd,
		.has_long = m->p.has_long,
		.has_capture = m->p.has_capture,
	};

	return m->p.num_mon ? mpamf_mbwumon_idr_encode(&idr) : 0;
}

/* ---------------------------------------------------------------- register dispatch */

static bool is_monitor_offset(uint32_t offset)
{
	return offset >= MSMON_CFG_MON_SEL && offset < MSMON_OFLOW_SR + 4;
}

/* Registers 64 bits wide (IHI 0099 Table 9-8): a 64-bit access acts on the whole register. */
static bool is_wide_reg(uint32_t offset)
{
	return offset == MPAMF_IDR || offset == MPAMF_ESR || offset == MSMON_MBWU_L || offset == MSMON_MBWU_L_CAPTURE;
}

static uint64_t wide_read(struct msc_model *m, uint32_t offset)
{
	switch (offset) {
	case MPAMF_IDR:
		return idr_value(m);
	case MPAMF_ESR:
		return m->p.has_esr ? m->esr & esr_implemented_bits(m) : 0;
	default:
		return msc_model_monitor_wide_read(m, offset);
	}
}

static void wide_write(struct msc_model *m, uint32_t offset, uint64_t value, uint64_t mask)
{
	switch (offset) {
	case MPAMF_ESR:
		esr_write(m, value, mask);
		break;
	case MPAMF_IDR:
		break; /* read-only */
	default:
		msc_model_monitor_wide_write(m, offset, value, mask);
		break;
	}
}

static uint32_t narrow_id_read(const struct msc_model *m, uint32_t offset)
{
	switch (offset) {
	case MPAMF_IIDR:
		return m->p.iidr;
	case MPAMF_AIDR:
		return m->p.aidr;
	case MPAMF_CPOR_IDR:
		return cpor_idr_value(m);
	case MPAMF_CCAP_IDR:
		return m->p.cmax_wd || m->p.cassoc_wd ? ccap_idr_value(m) : 0;
	case MPAMF_PARTID_NRW_IDR:
		return m->p.has_partid_nrw
			       ? (uint32_t)mpam_field_prep(MPAMF_PARTID_NRW_IDR_INTPARTID_MAX, m->p.intpartid_max)
			       : 0;
	case MPAMF_MBW_IDR:
		return mbw_idr_value(m);
	case MPAMF_PRI_IDR:
		return pri_idr_value(m);
	case MPAMF_MSMON_IDR:
		return msmon_idr_value(m);
	case MPAMF_MBWUMON_IDR:
		return mbwumon_idr_value(m);
	default:
		return 0;
	}
}

static uint32_t narrow_read(struct msc_model *m, uint32_t offset)
{
	uint32_t wide = offset & ~UINT32_C(7);
	enum cfg_reg reg;
	unsigned word = 0;

	if (is_wide_reg(wide))
		return (uint32_t)(wide_read(m, wide) >> (offset == wide ? 0 : 32));
	reg = msc_model_config_reg_at(m, offset, &word);
	if (reg != CFG_NONE)
		return msc_model_config_read(m, reg, word);
	if (is_monitor_offset(offset))
		return msc_model_monitor_read(m, offset);
	switch (offset) {
	case MPAMF_ECR:
		return m->p.has_esr ? m->ecr : 0;
	case MPAMCFG_PART_SEL:
		return m->part_sel;
	default:
		return narrow_id_read(m, offset);
	}
}

static void narrow_write(struct msc_model *m, uint32_t offset, uint32_t value)
{
	uint32_t wide = offset & ~UINT32_C(7);
	enum cfg_reg reg;
	unsigned word = 0;

	if (is_wide_reg(wide)) {
		bool high = offset != wide;
		wide_write(m, wide, high ? (uint64_t)value << 32 : value, high ? HIGH_WORD : LOW_WORD);
		return;
	}
	reg = msc_model_config_reg_at(m, offset, &word);
	if (reg != CFG_NONE) {
		msc_model_config_write(m, reg, word, value);
		return;
	}
	if (is_monitor_offset(offset)) {
		msc_model_monitor_write(m, offset, value);
		return;
	}
	switch (offset) {
	case MPAMF_ECR:
		if (m->p.has_esr)
			m->ecr = value & (uint32_t)MPAMF_ECR_INTEN;
		break;
	case MPAMCFG_PART_SEL:
		msc_model_config_select(m, value);
		break;
	default:
		break; /* ID registers are read-only; everything else is RAZ/WI */
	}
}

/* ---------------------------------------------------------------- bus entry points */

/* Fail loudly: a driver that reaches outside the page or misaligns is broken, and the test that
 * drives it should see why. */
static int refuse(struct msc_model *m, const char *what, unsigned width, uint32_t offset)
{
	const char *why = offset % width ? "is not naturally aligned" : "lies outside the MSC page";

	m->bad_accesses++;
	fprintf(stderr, "msc_model: refused %u-bit %s at offset 0x%x: it %s (page size 0x%x)\n", width * 8, what,
		offset, why, (unsigned)MPAM_MSC_PAGE_SIZE);
	return -EFAULT;
}

int msc_model_read32(struct msc_model *model, uint32_t offset, uint32_t *ret)
{
	if (!bus_access_ok(MPAM_MSC_PAGE_SIZE, offset, 4))
		return refuse(model, "read", 4, offset);
	*ret = narrow_read(model, offset);
	return 0;
}

int msc_model_write32(struct msc_model *model, uint32_t offset, uint32_t value)
{
	if (!bus_access_ok(MPAM_MSC_PAGE_SIZE, offset, 4))
		return refuse(model, "write", 4, offset);
	narrow_write(model, offset, value);
	return 0;
}

int msc_model_read64(struct msc_model *model, uint32_t offset, uint64_t *ret)
{
	uint64_t low, high;

	if (!bus_access_ok(MPAM_MSC_PAGE_SIZE, offset, 8))
		return refuse(model, "read", 8, offset);
	if (is_wide_reg(offset)) {
		*ret = wide_read(model, offset);
		return 0;
	}
	/* Two 32-bit registers: low word first, as two 32-bit accesses would. */
	low = narrow_read(model, offset);
	high = narrow_read(model, offset + 4);
	*ret = low | high << 32;
	return 0;
}

int msc_model_write64(struct msc_model *model, uint32_t offset, uint64_t value)
{
	if (!bus_access_ok(MPAM_MSC_PAGE_SIZE, offset, 8))
		return refuse(model, "write", 8, offset);
	if (is_wide_reg(offset)) {
		wide_write(model, offset, value, ~UINT64_C(0));
		return 0;
	}
	narrow_write(model, offset, (uint32_t)value);
	narrow_write(model, offset + 4, (uint32_t)(value >> 32));
	return 0;
}

/* ---------------------------------------------------------------- inspection */

uint64_t msc_model_esr(const struct msc_model *model)
{
	return model->esr;
}

uint64_t msc_model_error_count(const struct msc_model *model)
{
	return model->errors;
}

uint64_t msc_model_bad_accesses(const struct msc_model *model)
{
	return model->bad_accesses;
}
