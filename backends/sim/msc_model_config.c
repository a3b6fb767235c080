/* The configuration registers of the MSC model (msc_model.c): MPAMCFG_PART_SEL and, for the PARTID
 * and RIS it selects, MPAMCFG_MBW_MAX, MBW_MIN, PRI and CPBM<n>, with what the traffic side reads of
 * them.
 *
 * Interpretation where the reference leaves a choice: MPAMCFG_* access checks run in the order
 * RIS (8), INTERNAL (7), PARTID_SEL (1); the first that fails is the error raised.
 */
#include <stddef.h>

#include "backends/sim/msc_model.h"
#include "backends/sim/msc_model_internal.h"
#include "backends/mpam/mpam_regs.h"

/* ---------------------------------------------------------------- the selected configuration */

static uint16_t bwa_field_mask(const struct msc_model *m)
{
	/* The top BWA_WD bits of the 16-bit fraction are implemented; the rest are RAZ/WI. */
	return m->p.bwa_wd ? (uint16_t)MPAM_GENMASK(15, 16 - m->p.bwa_wd) : 0;
}

void msc_model_config_reset(struct partid_cfg *cfg, const struct msc_model *m)
{
	*cfg = (struct partid_cfg){ .mbw_max = bwa_field_mask(m) }; /* MAX 100%, everything else 0 */
}

/* The configuration MPAMCFG_PART_SEL selects, or NULL (after raising the error) when the selection
 * is invalid; an invalid access then has no effect and reads 0. */
static struct partid_cfg *selected_cfg(struct msc_model *m, unsigned *ret_ris, uint16_t *ret_partid)
{
	unsigned ris = (unsigned)mpam_field_get(MPAMCFG_PART_SEL_RIS, m->part_sel);
	uint16_t partid = (uint16_t)mpam_field_get(MPAMCFG_PART_SEL_PARTID_SEL, m->part_sel);

	if (!ris_exists(m, ris)) {
		msc_model_raise_error(m, MPAM_ERR_UNDEF_RIS_PART_SEL, partid, 0, ris);
		return NULL;
	}
	/* No PARTID narrowing here, so INTERNAL must be 0 for every MPAMCFG access. */
	if (m->part_sel & MPAMCFG_PART_SEL_INTERNAL) {
		msc_model_raise_error(m, MPAM_ERR_UNEXPECTED_INTERNAL, partid, 0, ris);
		return NULL;
	}
	if (partid > m->p.partid_max) {
		msc_model_raise_error(m, MPAM_ERR_PARTID_SEL_RANGE, partid, 0, ris);
		return NULL;
	}
	*ret_ris = ris;
	*ret_partid = partid;
	return &m->ris[ris].cfg[partid];
}

static bool has_mbw_max(const struct msc_model *m)
{
	return m->p.bwa_wd && m->p.has_max;
}

static bool has_mbw_min(const struct msc_model *m)
{
	return m->p.bwa_wd && m->p.has_min;
}

/* HARDLIM is read/write only with MAX_LIM 0; MAX_LIM 1 (soft only) reads 0, 2 (hard only) reads 1. */
static bool hardlim_effective(const struct msc_model *m, const struct partid_cfg *cfg)
{
	if (m->p.max_lim == 0)
		return cfg->hardlim;
	return m->p.max_lim == 2;
}

static uint32_t mbw_max_read(struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg->mbw_max | (hardlim_effective(m, cfg) ? (uint32_t)MPAMCFG_MBW_MAX_HARDLIM : 0);
}

static void mbw_max_write(struct msc_model *m, struct partid_cfg *cfg, uint32_t value)
{
	cfg->mbw_max = (uint16_t)(value & bwa_field_mask(m));
	if (m->p.max_lim == 0)
		cfg->hardlim = (value & MPAMCFG_MBW_MAX_HARDLIM) != 0;
}

static uint16_t pri_mask(const struct msc_model *m)
{
	return (uint16_t)mpam_counter_mask(m->p.pri_wd);
}

static uint32_t pri_read(const struct partid_cfg *cfg)
{
	return (uint32_t)(mpam_field_prep(MPAMCFG_PRI_INTPRI, cfg->intpri) |
			  mpam_field_prep(MPAMCFG_PRI_DSPRI, cfg->dspri));
}

static void pri_write(const struct msc_model *m, struct partid_cfg *cfg, uint32_t value)
{
	cfg->intpri = (uint16_t)(mpam_field_get(MPAMCFG_PRI_INTPRI, value) & pri_mask(m));
	cfg->dspri = (uint16_t)(mpam_field_get(MPAMCFG_PRI_DSPRI, value) & pri_mask(m));
}

/* Implemented bits of CPBM word `word`: portions 32*word .. 32*word+31 below CPBM_WD. */
static uint32_t cpbm_word_mask(const struct msc_model *m, unsigned word)
{
	unsigned first = 32 * word;

	if (first >= m->p.cpbm_wd)
		return 0;
	return (uint32_t)mpam_counter_mask(m->p.cpbm_wd - first >= 32 ? 32 : m->p.cpbm_wd - first);
}

static uint32_t *cpbm_slot(struct msc_model *m, unsigned ris, uint16_t partid, unsigned word)
{
	return &m->ris[ris].cpbm_flipped[(size_t)partid * m->cpbm_words + word];
}

/* ---------------------------------------------------------------- registers */

enum cfg_reg msc_model_config_reg_at(const struct msc_model *m, uint32_t offset, unsigned *ret_word)
{
	if (offset >= MPAMCFG_CPBM(0) && offset < MPAMCFG_CPBM(CPBM_MAX_WORDS)) {
		*ret_word = (offset - MPAMCFG_CPBM(0)) / 4;
		/* Words beyond CPBM_WD are unimplemented locations, not errors. */
		return *ret_word < m->cpbm_words ? CFG_CPBM : CFG_NONE;
	}
	switch (offset) {
	case MPAMCFG_MBW_MAX:
		return has_mbw_max(m) ? CFG_MBW_MAX : CFG_NONE;
	case MPAMCFG_MBW_MIN:
		return has_mbw_min(m) ? CFG_MBW_MIN : CFG_NONE;
	case MPAMCFG_PRI:
		return m->p.pri_wd ? CFG_PRI : CFG_NONE;
	default:
		return CFG_NONE;
	}
}

uint32_t msc_model_config_read(struct msc_model *m, enum cfg_reg reg, unsigned word)
{
	unsigned ris;
	uint16_t partid;
	struct partid_cfg *cfg = selected_cfg(m, &ris, &partid);

	if (!cfg)
		return 0;
	switch (reg) {
	case CFG_MBW_MAX:
		return mbw_max_read(m, cfg);
	case CFG_MBW_MIN:
		return cfg->mbw_min;
	case CFG_PRI:
		return pri_read(cfg);
	case CFG_CPBM:
		return *cpbm_slot(m, ris, partid, word) ^ cpbm_word_mask(m, word);
	case CFG_NONE:
		break;
	}
	return 0;
}

void msc_model_config_write(struct msc_model *m, enum cfg_reg reg, unsigned word, uint32_t value)
{
	unsigned ris;
	uint16_t partid;
	struct partid_cfg *cfg = selected_cfg(m, &ris, &partid);

	if (!cfg)
		return;
	switch (reg) {
	case CFG_MBW_MAX:
		mbw_max_write(m, cfg, value);
		break;
	case CFG_MBW_MIN:
		cfg->mbw_min = (uint16_t)(value & bwa_field_mask(m));
		break;
	case CFG_PRI:
		pri_write(m, cfg, value);
		break;
	case CFG_CPBM:
		*cpbm_slot(m, ris, partid, word) = (value ^ cpbm_word_mask(m, word)) & cpbm_word_mask(m, word);
		break;
	case CFG_NONE:
		break;
	}
}

void msc_model_config_select(struct msc_model *m, uint32_t value)
{
	/* INGRESS_TL and DEFAULT_PARTID are RAZ/WI (no TL, no default PARTID). RIS is kept even
	 * without HAS_RIS so that a wrong selection raises error 8 on the next MPAMCFG access. */
	m->part_sel =
		value & (uint32_t)(MPAMCFG_PART_SEL_PARTID_SEL | MPAMCFG_PART_SEL_INTERNAL | MPAMCFG_PART_SEL_RIS);
}

/* ---------------------------------------------------------------- inspection */

/* For the traffic model, a control that does not exist (or a RIS/PARTID out of range) reads as
 * the value that limits nothing: MAX 0xFFFF, MIN 0, HARDLIM clear. */
static const struct partid_cfg *cfg_of(const struct msc_model *m, unsigned ris, uint16_t partid)
{
	if (!ris_exists(m, ris) || partid > m->p.partid_max)
		return NULL;
	return &m->ris[ris].cfg[partid];
}

static uint16_t mbw_max_of(const struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg && has_mbw_max(m) ? cfg->mbw_max : 0xFFFF;
}

static uint16_t mbw_min_of(const struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg && has_mbw_min(m) ? cfg->mbw_min : 0;
}

uint16_t msc_model_mbw_max(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	return mbw_max_of(model, cfg_of(model, ris, partid));
}

void msc_model_mbw_limits(const struct msc_model *model, unsigned ris, uint16_t partid, uint16_t *ret_max,
			  uint16_t *ret_min)
{
	const struct partid_cfg *cfg = cfg_of(model, ris, partid);

	*ret_max = mbw_max_of(model, cfg);
	*ret_min = mbw_min_of(model, cfg);
}

uint16_t msc_model_mbw_min(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	return mbw_min_of(model, cfg_of(model, ris, partid));
}

bool msc_model_mbw_hardlim(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	const struct partid_cfg *cfg = cfg_of(model, ris, partid);

	return cfg && has_mbw_max(model) && hardlim_effective(model, cfg);
}
