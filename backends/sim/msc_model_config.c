/* The configuration registers of the MSC model (msc_model.c): for the configuration MPAMCFG_PART_SEL
 * selects (msc_model_partsel.c), MPAMCFG_MBW_MAX, MBW_MIN, MBW_PROP, MBW_PBM<n>, CMAX, CMIN, CASSOC,
 * PRI and CPBM<n>, and MPAMCFG_INTPARTID with PARTID narrowing; with what the traffic side reads of
 * them, and the state an earlier owner can leave in them.
 *
 * Field widths: MBW_MAX, MBW_MIN, CMAX, CMIN and CASSOC are 16-bit fractions of which the top BWA_WD
 * (CMAX_WD, CASSOC_WD) bits are implemented; STRIDEM1 is a BWA_WD-bit integer (its low bits); INTPRI
 * and DSPRI pri_wd-bit integers. Everything else is RAZ/WI.
 */
#include <errno.h>
#include <stddef.h>

#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/msc_model_internal.h"

/* ---------------------------------------------------------------- fields */

/* The top `wd` bits of a 16-bit fraction. */
static uint16_t fraction_mask(unsigned wd)
{
	return wd ? (uint16_t)MPAM_GENMASK(15, 16 - wd) : 0;
}

static uint16_t bwa_field_mask(const struct msc_model *m)
{
	return fraction_mask(m->p.bwa_wd);
}

static bool has_mbw_max(const struct msc_model *m)
{
	return m->p.bwa_wd && m->p.has_max;
}

static bool has_mbw_min(const struct msc_model *m)
{
	return m->p.bwa_wd && m->p.has_min;
}

static bool has_mbw_prop(const struct msc_model *m)
{
	return m->p.bwa_wd && m->p.has_prop;
}

void msc_model_config_reset(struct partid_cfg *cfg, const struct msc_model *m)
{
	*cfg = (struct partid_cfg){
		.mbw_max = bwa_field_mask(m),
		.pbm_portions = m->p.bwpbm_wd,
		.cmax = fraction_mask(m->p.cmax_wd),
		.cassoc = fraction_mask(m->p.cassoc_wd),
	};
}

/* HARDLIM is read/write only with MAX_LIM 0; MAX_LIM 1 (soft only) reads 0, 2 (hard only) reads 1. */
static bool hardlim_effective(const struct msc_model *m, const struct partid_cfg *cfg)
{
	if (m->p.max_lim == MPAM_MAX_LIM_EITHER)
		return cfg->hardlim;
	return m->p.max_lim == MPAM_MAX_LIM_HARD;
}

static uint32_t mbw_max_read(struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg->mbw_max | (hardlim_effective(m, cfg) ? (uint32_t)MPAMCFG_MBW_MAX_HARDLIM : 0);
}

static void mbw_max_write(struct msc_model *m, struct partid_cfg *cfg, uint32_t value)
{
	cfg->mbw_max = (uint16_t)(value & bwa_field_mask(m));
	if (m->p.max_lim == MPAM_MAX_LIM_EITHER)
		cfg->hardlim = (value & MPAMCFG_MBW_MAX_HARDLIM) != 0;
}

static uint32_t mbw_prop_read(const struct partid_cfg *cfg)
{
	return cfg->stridem1 | (cfg->prop_en ? (uint32_t)MPAMCFG_MBW_PROP_EN : 0);
}

static void mbw_prop_write(const struct msc_model *m, struct partid_cfg *cfg, uint32_t value)
{
	cfg->stridem1 = (uint16_t)(value & mpam_counter_mask(m->p.bwa_wd));
	cfg->prop_en = (value & MPAMCFG_MBW_PROP_EN) != 0;
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

/* Implemented bits of word `word` of a `width`-bit bitmap: bits 32*word .. 32*word+31 below it. */
static uint32_t bitmap_word_mask(unsigned width, unsigned word)
{
	unsigned first = 32 * word;

	if (first >= width)
		return 0;
	return (uint32_t)mpam_counter_mask(width - first >= 32 ? 32 : width - first);
}

static uint32_t *cpbm_slot(struct msc_model *m, unsigned ris, unsigned index, unsigned word)
{
	return &m->ris[ris].cpbm_flipped[(size_t)index * m->cpbm_words + word];
}

static uint32_t *pbm_slot(struct msc_model *m, unsigned ris, unsigned index, unsigned word)
{
	return &m->ris[ris].pbm_flipped[(size_t)index * m->pbm_words + word];
}

static uint32_t pbm_word_mask(const struct msc_model *m, unsigned word)
{
	return bitmap_word_mask(m->p.bwpbm_wd, word);
}

void msc_model_config_write_pbm(struct msc_model *m, unsigned ris, unsigned index, unsigned word, uint32_t value)
{
	uint32_t mask = pbm_word_mask(m, word);
	uint32_t *slot = pbm_slot(m, ris, index, word);
	struct partid_cfg *cfg = &m->ris[ris].cfg[index];

	cfg->pbm_portions -= (uint16_t)__builtin_popcount((*slot ^ mask) & mask);
	*slot = (value ^ mask) & mask;
	cfg->pbm_portions += (uint16_t)__builtin_popcount(value & mask);
}

/* ---------------------------------------------------------------- registers */

static enum cfg_reg bitmap_reg_at(const struct msc_model *m, uint32_t offset, unsigned *ret_word)
{
	if (offset >= MPAMCFG_CPBM(0) && offset < MPAMCFG_CPBM(CPBM_MAX_WORDS)) {
		*ret_word = (offset - MPAMCFG_CPBM(0)) / 4;
		/* Words beyond CPBM_WD are unimplemented locations, not errors. */
		return *ret_word < m->cpbm_words ? CFG_CPBM : CFG_NONE;
	}
	if (offset >= MPAMCFG_MBW_PBM(0) && offset < MPAMCFG_MBW_PBM(PBM_MAX_WORDS)) {
		*ret_word = (offset - MPAMCFG_MBW_PBM(0)) / 4;
		return *ret_word < m->pbm_words ? CFG_MBW_PBM : CFG_NONE;
	}
	return CFG_NONE;
}

/* The register at `offset` when the model has it. */
static bool implemented(const struct msc_model *m, enum cfg_reg reg)
{
	switch (reg) {
	case CFG_MBW_MAX:
		return has_mbw_max(m);
	case CFG_MBW_MIN:
		return has_mbw_min(m);
	case CFG_MBW_PROP:
		return has_mbw_prop(m);
	case CFG_CMAX:
		return m->p.cmax_wd > 0;
	case CFG_CMIN:
		return m->p.cmax_wd > 0 && m->p.has_cmin;
	case CFG_CASSOC:
		return m->p.cassoc_wd > 0;
	case CFG_PRI:
		return m->p.pri_wd > 0;
	case CFG_INTPARTID:
		return m->p.has_partid_nrw;
	default:
		return false;
	}
}

enum cfg_reg msc_model_config_reg_at(const struct msc_model *m, uint32_t offset, unsigned *ret_word)
{
	static const struct {
		uint32_t offset;
		enum cfg_reg reg;
	} regs[] = {
		{ MPAMCFG_MBW_MAX, CFG_MBW_MAX },   { MPAMCFG_MBW_MIN, CFG_MBW_MIN },
		{ MPAMCFG_MBW_PROP, CFG_MBW_PROP }, { MPAMCFG_CMAX, CFG_CMAX },
		{ MPAMCFG_CMIN, CFG_CMIN },	    { MPAMCFG_CASSOC, CFG_CASSOC },
		{ MPAMCFG_PRI, CFG_PRI },	    { MPAMCFG_INTPARTID, CFG_INTPARTID },
	};

	if (offset >= MPAMCFG_CPBM(0))
		return bitmap_reg_at(m, offset, ret_word);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].offset == offset)
			return implemented(m, regs[i].reg) ? regs[i].reg : CFG_NONE;
	return CFG_NONE;
}

static uint32_t cfg_read(struct msc_model *m, enum cfg_reg reg, unsigned word, unsigned ris, unsigned index)
{
	const struct partid_cfg *cfg = &m->ris[ris].cfg[index];

	switch (reg) {
	case CFG_MBW_MAX:
		return mbw_max_read(m, cfg);
	case CFG_MBW_MIN:
		return cfg->mbw_min;
	case CFG_MBW_PROP:
		return mbw_prop_read(cfg);
	case CFG_MBW_PBM:
		return *pbm_slot(m, ris, index, word) ^ pbm_word_mask(m, word);
	case CFG_CMAX:
		return cfg->cmax;
	case CFG_CMIN:
		return cfg->cmin;
	case CFG_CASSOC:
		return cfg->cassoc;
	case CFG_PRI:
		return pri_read(cfg);
	case CFG_CPBM:
		return *cpbm_slot(m, ris, index, word) ^ bitmap_word_mask(m->p.cpbm_wd, word);
	default:
		return 0;
	}
}

static void cfg_write(struct msc_model *m, enum cfg_reg reg, unsigned word, unsigned ris, unsigned index,
		      uint32_t value)
{
	struct partid_cfg *cfg = &m->ris[ris].cfg[index];
	uint32_t cpbm_mask = bitmap_word_mask(m->p.cpbm_wd, word);

	switch (reg) {
	case CFG_MBW_MAX:
		mbw_max_write(m, cfg, value);
		break;
	case CFG_MBW_MIN:
		cfg->mbw_min = (uint16_t)(value & bwa_field_mask(m));
		break;
	case CFG_MBW_PROP:
		mbw_prop_write(m, cfg, value);
		break;
	case CFG_MBW_PBM:
		msc_model_config_write_pbm(m, ris, index, word, value);
		break;
	case CFG_CMAX:
		cfg->cmax = (uint16_t)(value & fraction_mask(m->p.cmax_wd));
		break;
	case CFG_CMIN:
		cfg->cmin = (uint16_t)(value & fraction_mask(m->p.cmax_wd));
		break;
	case CFG_CASSOC:
		cfg->cassoc = (uint16_t)(value & fraction_mask(m->p.cassoc_wd));
		break;
	case CFG_PRI:
		pri_write(m, cfg, value);
		break;
	case CFG_CPBM:
		*cpbm_slot(m, ris, index, word) = (value ^ cpbm_mask) & cpbm_mask;
		break;
	default:
		break;
	}
	if (reg == CFG_MBW_MAX || reg == CFG_MBW_MIN || reg == CFG_MBW_PROP || reg == CFG_MBW_PBM)
		msc_model_delay_written(m, ris, index); /* the controls the traffic obeys */
}

uint32_t msc_model_config_read(struct msc_model *m, enum cfg_reg reg, unsigned word)
{
	unsigned ris, index;

	if (reg == CFG_INTPARTID)
		return msc_model_intpartid_read(m);
	return msc_model_selected_cfg(m, &ris, &index) ? cfg_read(m, reg, word, ris, index) : 0;
}

void msc_model_config_write(struct msc_model *m, enum cfg_reg reg, unsigned word, uint32_t value)
{
	unsigned ris, index;

	if (reg == CFG_INTPARTID)
		msc_model_intpartid_write(m, value);
	else if (msc_model_selected_cfg(m, &ris, &index))
		cfg_write(m, reg, word, ris, index, value);
}

/* ---------------------------------------------------------------- an earlier owner's state */

/* The configuration request PARTID `partid` gets on `ris` once an earlier owner gave it one of its
 * own: with narrowing, the intPARTID of the same number. NULL when out of range. */
static struct partid_cfg *preload_cfg(struct msc_model *m, unsigned ris, uint16_t partid, unsigned *ret_index)
{
	if (partid > m->p.partid_max || (m->p.has_partid_nrw && partid > m->p.intpartid_max))
		return NULL;
	if (m->p.has_partid_nrw)
		m->ris[ris].intpartid_of[partid] = partid;
	*ret_index = partid;
	return &m->ris[ris].cfg[partid];
}

int msc_model_preload_mbw_prop(struct msc_model *m, uint16_t partid, uint16_t stridem1)
{
	unsigned index;

	if (!has_mbw_prop(m) || stridem1 > mpam_counter_mask(m->p.bwa_wd))
		return -EINVAL;
	for (unsigned r = 0; r < m->nr_ris; r++) {
		struct partid_cfg *cfg = preload_cfg(m, r, partid, &index);
		if (!cfg)
			return -EINVAL;
		mbw_prop_write(m, cfg, (uint32_t)MPAMCFG_MBW_PROP_EN | stridem1);
		msc_model_delay_settle(m, r, index);
	}
	return 0;
}

int msc_model_preload_mbw_pbm(struct msc_model *m, uint16_t partid, uint64_t portions)
{
	unsigned index;

	if (!m->p.bwpbm_wd)
		return -EINVAL;
	for (unsigned r = 0; r < m->nr_ris; r++) {
		if (!preload_cfg(m, r, partid, &index))
			return -EINVAL;
		for (unsigned w = 0; w < m->pbm_words; w++)
			msc_model_config_write_pbm(m, r, index, w, w < 2 ? (uint32_t)(portions >> (32 * w)) : 0);
		msc_model_delay_settle(m, r, index);
	}
	return 0;
}

/* ---------------------------------------------------------------- inspection */

/* For the traffic model, a control that does not exist (or a RIS/PARTID out of range) reads as
 * the value that limits nothing: MAX 0xFFFF, MIN 0, HARDLIM clear, no PROP, every portion. */
static const struct partid_cfg *cfg_of(const struct msc_model *m, unsigned ris, uint16_t partid)
{
	long index = msc_model_cfg_of_request(m, ris, partid);

	return index < 0 ? NULL : &m->ris[ris].cfg[index];
}

static uint16_t mbw_max_of(const struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg && has_mbw_max(m) ? cfg->mbw_max : 0xFFFF;
}

static uint16_t mbw_min_of(const struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg && has_mbw_min(m) ? cfg->mbw_min : 0;
}

static bool hardlim_of(const struct msc_model *m, const struct partid_cfg *cfg)
{
	return cfg && has_mbw_max(m) && hardlim_effective(m, cfg);
}

uint16_t msc_model_mbw_max(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	return mbw_max_of(model, cfg_of(model, ris, partid));
}

uint16_t msc_model_mbw_min(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	return mbw_min_of(model, cfg_of(model, ris, partid));
}

bool msc_model_mbw_hardlim(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	return hardlim_of(model, cfg_of(model, ris, partid));
}

void msc_model_traffic_limits(const struct msc_model *model, unsigned ris, uint16_t partid,
			      struct msc_model_limits *ret)
{
	long index = msc_model_cfg_of_request(model, ris, partid);
	const struct partid_cfg *cfg = index < 0 ? NULL : msc_model_in_force(model, ris, (unsigned)index);
	bool prop = cfg && has_mbw_prop(model) && cfg->prop_en;

	*ret = (struct msc_model_limits){
		.mbw_max = mbw_max_of(model, cfg),
		.mbw_min = mbw_min_of(model, cfg),
		.hardlim = hardlim_of(model, cfg),
		.prop_share = prop ? 1.0 / ((double)cfg->stridem1 + 1) : 1.0,
		.pbm_share = cfg && model->p.bwpbm_wd ? (double)cfg->pbm_portions / model->p.bwpbm_wd : 1.0,
	};
}
