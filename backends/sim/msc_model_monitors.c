/* Register-accurate model of one Arm MPAM MSC (shared/reference/mpam-msc.md A.1-A.5).
 *
 * State kept per RIS: one configuration per PARTID (MBW_MAX/MIN, PRI, CPBM) and one MBWU monitor
 * state per monitor index. Each monitor holds a single count (of bytes, or of 64-byte units on a part
 * that counts those: NVIDIA T241); MSMON_MBWU (31-bit, optionally scaled) and MSMON_MBWU_L (44/63-bit,
 * never scaled) are two views of it, so no bytes are lost to scaling and both views agree.
 *
 * Interpretations where the reference leaves a choice (each is also stated where it is coded):
 *  - MPAMCFG_* access checks run in the order RIS (8), INTERNAL (7), PARTID_SEL (1); the first that
 *    fails is the error raised. Monitor register checks: MON_SEL.RIS (10), then MON_SEL (5).
 *  - Only registers the model implements raise errors; an unimplemented location is plain RAZ/WI.
 *  - "FLT or CTL written with a different value" compares the configuration bits only: the
 *    OFLOW_STATUS(_L) bits are status, so clearing them (Linux B.3 step 7) does not set NRDY.
 *  - MSMON_CAPT_EVNT.ALL is treated as NOW: there is only one MSC here to broadcast to.
 *  - MSMON_MBWU_OFSR bit i mirrors CTL.OFLOW_STATUS of monitor (MON_SEL & 0xFFE0) + i; the access
 *    raises error 5 only when that group's first monitor does not exist.
 *  - CTL bits for features the ID registers do not advertise (OFLOW_LNKG, OFLOW_CAPT(_L),
 *    CEVNT_OFLW, OFLOW_FRZ, SUBTYPE; CAPT_* without capture; *_L without a long counter) are RAZ/WI.
 *  - A low-word (or 64-bit) write of MPAMF_ESR with ERRCODE 0 clears the whole ESR, RIS included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/mmio/bus.h"
#include "backends/sim/msc_model.h"
#include "backends/mpam/mpam_regs.h"

/* MPAMF_PRI_IDR fields (Linux mpam_internal.h); backends/mpam/mpam_regs.h does not describe this register. */
#define PRI_IDR_HAS_INTPRI	MPAM_BIT(0)
#define PRI_IDR_INTPRI_0_IS_LOW MPAM_BIT(1)
#define PRI_IDR_INTPRI_WD	MPAM_GENMASK(9, 4)
#define PRI_IDR_HAS_DSPRI	MPAM_BIT(16)
#define PRI_IDR_DSPRI_0_IS_LOW	MPAM_BIT(17)
#define PRI_IDR_DSPRI_WD	MPAM_GENMASK(25, 20)

#define CPBM_MAX_WORDS 1024u /* MPAMCFG_CPBM<n>, n <= 1023 */
#define LOW_WORD       UINT64_C(0x00000000FFFFFFFF)
#define HIGH_WORD      UINT64_C(0xFFFFFFFF00000000)

/* Configuration of one PARTID in one RIS. CPBM words live in ris_state.cpbm_flipped. */
struct partid_cfg {
	uint16_t mbw_max; /* MAX field, implemented bits only */
	uint16_t mbw_min;
	bool hardlim; /* the stored bit; MAX_LIM may force what reads back */
	uint16_t intpri, dspri;
};

struct mbwu_mon {
	uint32_t flt; /* implemented FLT bits */
	uint32_t ctl; /* implemented CTL bits, TYPE excluded (it is constant) */
	/* The one underlying count, modulo 2^64, in counting units: bytes, or 64-byte units on a part
	 * that counts those; `residue` holds the bytes short of a whole unit. */
	uint64_t count;
	unsigned residue;
	uint32_t capture;    /* MSMON_MBWU_CAPTURE as captured, NRDY included */
	uint64_t capture_l;  /* MSMON_MBWU_L_CAPTURE as captured, NRDY included */
	bool nrdy;	     /* not ready: counts nothing, reads show NRDY */
	unsigned nrdy_ticks; /* ticks left before hardware clears nrdy (nrdy_hw only) */
	/* Its place in the RIS's monitor index (see ris_state): the next monitor of the same list + 1
	 * (0: last), and the PARTID + 1 whose list holds it (0: the wildcard list, or none). */
	uint32_t index_next;
	uint32_t index_partid;
};

struct ris_state {
	struct partid_cfg *cfg; /* partid_max + 1 entries */
	/* CPBM words XOR their reset value (all implemented bits set), so calloc'ed memory is the
	 * reset state and untouched PARTIDs cost no resident memory. */
	uint32_t *cpbm_flipped; /* (partid_max + 1) * cpbm_words */
	struct mbwu_mon *mon;	/* num_mon entries */
	unsigned oflow_pending; /* monitors with OFLOW_STATUS or OFLOW_STATUS_L set */
	/* The monitor index: which enabled monitors can count a PARTID's traffic, so that counting one
	 * PARTID costs the monitors that filter on it, not all of them (a host with a monitor per
	 * partition would otherwise cost partitions x monitors per tick). by_partid[id] heads the list
	 * of monitors matching PARTID id (+ 1, 0: none), `wildcard` that of enabled monitors matching
	 * every PARTID. Rebuilt before the next count after any FLT or CTL change of this RIS. */
	uint32_t *by_partid; /* partid_max + 1 entries */
	uint32_t wildcard;
	bool index_stale;
};

struct msc_model {
	struct msc_model_params p;
	unsigned unit_shift; /* a counting unit is 2^unit_shift bytes (the part's) */
	unsigned long_bits;  /* the long counter's width (44 or 63) */
	unsigned nr_ris;     /* ris_max + 1 with RIS, else 1 */
	unsigned cpbm_words; /* 32-bit CPBM words that have implemented bits */
	struct ris_state *ris;
	uint32_t part_sel; /* PARTID_SEL, INTERNAL and RIS as written */
	uint32_t mon_sel;  /* MON_SEL and RIS as written */
	uint32_t ecr;
	uint64_t esr; /* what hardware holds, visible or not */
	uint64_t errors;
	unsigned nrdy_hold; /* ticks left of a fault that holds every monitor not ready */
	uint64_t bad_accesses;
	unsigned long nrdy_counting; /* monitors whose NRDY countdown is running */
};

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
	return p->bwa_wd <= 16 && p->max_lim <= 2 && p->cpbm_wd <= 32 * CPBM_MAX_WORDS && p->pri_wd <= 16 &&
	       p->ris_max <= 15 && p->scale <= 31;
}

static int ris_alloc(struct ris_state *r, const struct msc_model *m)
{
	size_t nr_partids = (size_t)m->p.partid_max + 1;

	r->cfg = calloc(nr_partids, sizeof(*r->cfg));
	r->cpbm_flipped = m->cpbm_words ? calloc(nr_partids * m->cpbm_words, sizeof(uint32_t)) : NULL;
	r->mon = m->p.num_mon ? calloc(m->p.num_mon, sizeof(*r->mon)) : NULL;
	r->by_partid = m->p.num_mon ? calloc(nr_partids, sizeof(*r->by_partid)) : NULL;
	if (!r->cfg || (m->cpbm_words && !r->cpbm_flipped) || (m->p.num_mon && (!r->mon || !r->by_partid)))
		return -ENOMEM;
	return 0;
}

static uint16_t bwa_field_mask(const struct msc_model *m)
{
	/* The top BWA_WD bits of the 16-bit fraction are implemented; the rest are RAZ/WI. */
	return m->p.bwa_wd ? (uint16_t)MPAM_GENMASK(15, 16 - m->p.bwa_wd) : 0;
}

static void partid_cfg_reset(struct partid_cfg *cfg, const struct msc_model *m)
{
	*cfg = (struct partid_cfg){ .mbw_max = bwa_field_mask(m) }; /* MAX 100%, everything else 0 */
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
	m->cpbm_words = (params->cpbm_wd + 31u) / 32u;
	m->ris = calloc(m->nr_ris, sizeof(*m->ris));
	for (unsigned r = 0; m->ris && r < m->nr_ris; r++) {
		if (ris_alloc(&m->ris[r], m) < 0) {
			msc_model_free(m);
			return -ENOMEM;
		}
		for (size_t id = 0; id <= params->partid_max; id++)
			partid_cfg_reset(&m->ris[r].cfg[id], m);
	}
	if (!m->ris) {
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
	for (unsigned r = 0; model->ris && r < model->nr_ris; r++) {
		free(model->ris[r].cfg);
		free(model->ris[r].cpbm_flipped);
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
 * error (A.5), and clears the whole register. */
static void esr_write(struct msc_model *m, uint64_t value, uint64_t mask)
{
	if (!m->p.has_esr)
		return;
	mask &= esr_implemented_bits(m);
	m->esr = (m->esr & ~mask) | (value & mask);
	if ((mask & MPAMF_ESR_ERRCODE) && mpam_field_get(MPAMF_ESR_ERRCODE, m->esr) == MPAM_ERR_NONE)
		m->esr = 0;
}

static bool ris_exists(const struct msc_model *m, unsigned ris)
{
	return ris < m->nr_ris;
}

/* ---------------------------------------------------------------- ID registers */

/* With RIS, the per-RIS ID registers describe the RIS selected by PART_SEL.RIS. Every RIS of this
 * model has the same features, so the selection does not change what they read. */
static uint64_t idr_value(const struct msc_model *m)
{
	struct mpamf_idr idr = {
		.partid_max = m->p.partid_max,
		.pmg_max = m->p.pmg_max,
		.has_cpor_part = m->p.cpbm_wd > 0,
		.has_mbw_part = m->p.bwa_wd > 0,
		.has_pri_part = m->p.pri_wd > 0,
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
	};

	return m->p.bwa_wd ? mpamf_mbw_idr_encode(&idr) : 0;
}

static uint32_t cpor_idr_value(const struct msc_model *m)
{
	return (uint32_t)mpam_field_prep(MPAMF_CPOR_IDR_CPBM_WD, m->p.cpbm_wd);
}

static uint32_t pri_idr_value(const struct msc_model *m)
{
	if (!m->p.pri_wd)
		return 0;
	/* Both priorities exist, pri_wd bits each, and 0 is the lowest priority. */
	return (uint32_t)(PRI_IDR_HAS_INTPRI | PRI_IDR_INTPRI_0_IS_LOW |
			  mpam_field_prep(PRI_IDR_INTPRI_WD, m->p.pri_wd) | PRI_IDR_HAS_DSPRI | PRI_IDR_DSPRI_0_IS_LOW |
			  mpam_field_prep(PRI_IDR_DSPRI_WD, m->p.pri_wd));
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

/* ---------------------------------------------------------------- configuration registers */

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

/* Which MPAMCFG register an offset is, when the model implements it. */
enum cfg_reg {
	CFG_NONE,
	CFG_MBW_MAX,
	CFG_MBW_MIN,
	CFG_PRI,
	CFG_CPBM,
};

static enum cfg_reg cfg_reg_at(const struct msc_model *m, uint32_t offset, unsigned *ret_word)
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

static uint32_t cfg_read(struct msc_model *m, enum cfg_reg reg, unsigned word)
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

static void cfg_write(struct msc_model *m, enum cfg_reg reg, unsigned word, uint32_t value)
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

static void part_sel_write(struct msc_model *m, uint32_t value)
{
	/* INGRESS_TL and DEFAULT_PARTID are RAZ/WI (no TL, no default PARTID). RIS is kept even
	 * without HAS_RIS so that a wrong selection raises error 8 on the next MPAMCFG access. */
	m->part_sel =
		value & (uint32_t)(MPAMCFG_PART_SEL_PARTID_SEL | MPAMCFG_PART_SEL_INTERNAL | MPAMCFG_PART_SEL_RIS);
}

/* ---------------------------------------------------------------- monitors: views and status */

static unsigned short_view_shift(const struct msc_model *m, const struct mbwu_mon *mon)
{
	return (mon->ctl & MSMON_CFG_CTL_SCLEN) ? m->p.scale : 0;
}

static unsigned long_bits(const struct msc_model *m)
{
	return m->long_bits;
}

/* MSMON_MBWU: the byte count in units of 2^SCALE bytes when SCLEN, 31 bits, NRDY in bit 31. */
static uint32_t short_view(const struct msc_model *m, const struct mbwu_mon *mon)
{
	uint32_t value = (uint32_t)((mon->count >> short_view_shift(m, mon)) & MSMON_MBWU_VALUE);

	return value | (mon->nrdy || m->nrdy_hold ? (uint32_t)MSMON_MBWU_NRDY : 0);
}

/* MSMON_MBWU_L: the unscaled byte count, 44 or 63 bits, NRDY in bit 63. */
static uint64_t long_view(const struct msc_model *m, const struct mbwu_mon *mon)
{
	return (mon->count & mpam_counter_mask(long_bits(m))) | (mon->nrdy || m->nrdy_hold ? MSMON_MBWU_L_NRDY : 0);
}

static bool oflow_pending(uint32_t ctl)
{
	return (ctl & (MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_OFLOW_STATUS_L)) != 0;
}

/* Every CTL change goes through here so the per-RIS pending-overflow count stays exact, and the
 * monitor index is rebuilt when what it is built from (EN, MATCH_PARTID) changes. */
static void mon_set_ctl(struct ris_state *r, struct mbwu_mon *mon, uint32_t ctl)
{
	const uint32_t indexed = MSMON_CFG_CTL_EN | MSMON_CFG_CTL_MATCH_PARTID;

	if ((mon->ctl & indexed) != (ctl & indexed))
		r->index_stale = true;
	if (oflow_pending(mon->ctl) && !oflow_pending(ctl))
		r->oflow_pending--;
	else if (!oflow_pending(mon->ctl) && oflow_pending(ctl))
		r->oflow_pending++;
	mon->ctl = ctl;
}

static void mon_clear_nrdy(struct msc_model *m, struct mbwu_mon *mon)
{
	if (mon->nrdy_ticks)
		m->nrdy_counting--;
	mon->nrdy_ticks = 0;
	mon->nrdy = false;
}

/* The monitor's settings changed: it needs time to settle (A.4). Hardware-managed NRDY clears
 * after nrdy_ticks ticks; otherwise it stays until software or a capture clears it. */
static void mon_start_nrdy(struct msc_model *m, struct mbwu_mon *mon)
{
	if (!m->p.nrdy_ticks)
		return;
	mon->nrdy = true;
	if (!m->p.nrdy_hw)
		return;
	if (!mon->nrdy_ticks)
		m->nrdy_counting++;
	mon->nrdy_ticks = m->p.nrdy_ticks;
}

/* Software writes NRDY along with a counter value. Hardware that owns NRDY ignores it; otherwise
 * the bit is plain storage (what Linux's probe in B.2 step 5 detects). */
static void mon_write_nrdy(struct msc_model *m, struct mbwu_mon *mon, bool nrdy)
{
	if (m->p.nrdy_hw)
		return;
	mon->nrdy = nrdy;
}

/* True when adding `n` to `count` carries out of its low `bits` bits, i.e. a counter of that width
 * showing those bits wraps. */
static bool carries_out(uint64_t count, uint64_t n, unsigned bits)
{
	uint64_t mask = mpam_counter_mask(bits);

	return n > mask - (count & mask);
}

/* `bytes` of traffic in counting units, the part's remainder kept for the next traffic. */
static uint64_t units_of(const struct msc_model *m, struct mbwu_mon *mon, uint64_t bytes)
{
	uint64_t below_unit = (UINT64_C(1) << m->unit_shift) - 1; /* a unit is a power of two: shifts, no division */
	uint64_t partial = mon->residue + (bytes & below_unit);

	mon->residue = (unsigned)(partial & below_unit);
	return (bytes >> m->unit_shift) + (partial >> m->unit_shift);
}

static void mon_add_bytes(struct msc_model *m, struct ris_state *r, struct mbwu_mon *mon, uint64_t bytes)
{
	uint32_t ctl = mon->ctl;
	uint64_t n = units_of(m, mon, bytes);

	/* The 31-bit view shows count >> shift, so it wraps when the count carries out of 31 + shift bits. */
	if (carries_out(mon->count, n, 31 + short_view_shift(m, mon)))
		ctl |= (uint32_t)MSMON_CFG_CTL_OFLOW_STATUS;
	if (m->p.has_long && carries_out(mon->count, n, long_bits(m)))
		ctl |= (uint32_t)MSMON_CFG_CTL_OFLOW_STATUS_L;
	mon->count += n;
	mon_set_ctl(r, mon, ctl);
}

/* ---------------------------------------------------------------- monitors: registers */

static bool has_monitors(const struct msc_model *m)
{
	return m->p.num_mon > 0;
}

/* The monitor MSMON_CFG_MON_SEL selects, or NULL after raising error 10 or 5. */
static struct mbwu_mon *selected_mon(struct msc_model *m, struct ris_state **ret_ris)
{
	unsigned ris = (unsigned)mpam_field_get(MSMON_CFG_MON_SEL_RIS, m->mon_sel);
	uint16_t mon = (uint16_t)mpam_field_get(MSMON_CFG_MON_SEL_MON_SEL, m->mon_sel);

	if (!ris_exists(m, ris)) {
		msc_model_raise_error(m, MPAM_ERR_UNDEF_RIS_MON_SEL, mon, 0, ris);
		return NULL;
	}
	if (mon >= m->p.num_mon) {
		msc_model_raise_error(m, MPAM_ERR_MONITOR_RANGE, mon, 0, ris);
		return NULL;
	}
	*ret_ris = &m->ris[ris];
	return &m->ris[ris].mon[mon];
}

static uint32_t flt_implemented_bits(const struct msc_model *m)
{
	uint32_t bits = (uint32_t)(MSMON_CFG_MBWU_FLT_PARTID | MSMON_CFG_MBWU_FLT_PMG);

	return m->p.has_rwbw ? bits | (uint32_t)MSMON_CFG_MBWU_FLT_RWBW : bits;
}

static uint32_t ctl_implemented_bits(const struct msc_model *m)
{
	uint64_t bits = MSMON_CFG_CTL_MATCH_PARTID | MSMON_CFG_CTL_MATCH_PMG | MSMON_CFG_CTL_SCLEN |
			MSMON_CFG_CTL_OFLOW_INTR | MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_EN;

	if (m->p.has_long)
		bits |= MSMON_CFG_CTL_OFLOW_INTR_L | MSMON_CFG_CTL_OFLOW_STATUS_L;
	if (m->p.has_capture)
		bits |= MSMON_CFG_CTL_CAPT_RESET | MSMON_CFG_CTL_CAPT_EVNT;
	return (uint32_t)bits;
}

/* CTL bits that configure the monitor, as opposed to report its status. */
static uint32_t ctl_setting_bits(const struct msc_model *m)
{
	return ctl_implemented_bits(m) & ~(uint32_t)(MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_OFLOW_STATUS_L);
}

static void flt_write(struct msc_model *m, struct mbwu_mon *mon, uint32_t value)
{
	struct msmon_mbwu_flt flt = msmon_mbwu_flt_decode(value);
	unsigned ris = (unsigned)mpam_field_get(MSMON_CFG_MON_SEL_RIS, m->mon_sel);
	uint32_t stored = value & flt_implemented_bits(m);

	if (flt.partid > m->p.partid_max || flt.pmg > m->p.pmg_max) {
		msc_model_raise_error(m, MPAM_ERR_MSMONCFG_ID_RANGE, flt.partid, flt.pmg, ris);
		return; /* the write is ignored */
	}
	if (stored != mon->flt) {
		mon_start_nrdy(m, mon);
		m->ris[ris].index_stale = true;
	}
	mon->flt = stored; /* the count is kept: changing the filter does not reset VALUE */
}

static void ctl_write(struct msc_model *m, struct ris_state *r, struct mbwu_mon *mon, uint32_t value)
{
	uint32_t stored = value & ctl_implemented_bits(m);
	bool settings_changed = (stored & ctl_setting_bits(m)) != (mon->ctl & ctl_setting_bits(m));
	bool enabling = !(mon->ctl & MSMON_CFG_CTL_EN) && (stored & MSMON_CFG_CTL_EN);

	if (settings_changed || enabling)
		mon_start_nrdy(m, mon);
	mon_set_ctl(r, mon, stored); /* the count is kept */
}

static uint32_t ctl_read(const struct mbwu_mon *mon)
{
	return mon->ctl | (uint32_t)mpam_field_prep(MSMON_CFG_CTL_TYPE, MSMON_CFG_CTL_TYPE_MBWU);
}

/* Writing MSMON_MBWU sets the 31-bit view: the count becomes value in view units (dropping any
 * sub-unit residue and the bits above the view), and OFLOW_STATUS clears. */
static void short_view_write(struct msc_model *m, struct ris_state *r, struct mbwu_mon *mon, uint32_t value)
{
	mon->count = (uint64_t)(value & MSMON_MBWU_VALUE) << short_view_shift(m, mon);
	mon_write_nrdy(m, mon, (value & MSMON_MBWU_NRDY) != 0);
	mon_set_ctl(r, mon, mon->ctl & ~(uint32_t)MSMON_CFG_CTL_OFLOW_STATUS);
}

/* Writing (part of) MSMON_MBWU_L sets those bits of the long view and clears OFLOW_STATUS_L. */
static void long_view_write(struct msc_model *m, struct ris_state *r, struct mbwu_mon *mon, uint64_t value,
			    uint64_t mask)
{
	uint64_t value_bits = mpam_counter_mask(long_bits(m));
	uint64_t view = long_view(m, mon) & value_bits;

	mon->count = ((view & ~mask) | (value & mask)) & value_bits;
	if (mask & MSMON_MBWU_L_NRDY)
		mon_write_nrdy(m, mon, (value & MSMON_MBWU_L_NRDY) != 0);
	mon_set_ctl(r, mon, mon->ctl & ~(uint32_t)MSMON_CFG_CTL_OFLOW_STATUS_L);
}

/* MSMON_MBWU_OFSR: bit i is OFLOW_STATUS of monitor (MON_SEL & 0xFFE0) + i of the selected RIS. */
static uint32_t ofsr_read(struct msc_model *m)
{
	unsigned ris = (unsigned)mpam_field_get(MSMON_CFG_MON_SEL_RIS, m->mon_sel);
	unsigned first = (unsigned)mpam_field_get(MSMON_CFG_MON_SEL_MON_SEL, m->mon_sel) & MSMON_MBWU_OFSR_GROUP_MASK;
	uint32_t bits = 0;

	if (!ris_exists(m, ris)) {
		msc_model_raise_error(m, MPAM_ERR_UNDEF_RIS_MON_SEL, (uint16_t)first, 0, ris);
		return 0;
	}
	if (first >= m->p.num_mon) {
		msc_model_raise_error(m, MPAM_ERR_MONITOR_RANGE, (uint16_t)first, 0, ris);
		return 0;
	}
	for (unsigned i = 0; i < 32 && first + i < m->p.num_mon; i++)
		if (m->ris[ris].mon[first + i].ctl & MSMON_CFG_CTL_OFLOW_STATUS)
			bits |= UINT32_C(1) << i;
	return bits;
}

static uint32_t oflow_sr_read(const struct msc_model *m)
{
	uint32_t value = 0;

	for (unsigned r = 0; r < m->nr_ris; r++) {
		if (!m->ris[r].oflow_pending)
			continue;
		value |= (uint32_t)MSMON_OFLOW_SR_MBWU_OFLOW_PND;
		if (m->p.has_ris)
			value |= UINT32_C(1) << r; /* RIS_PND<r> */
	}
	return value;
}

/* A local capture event (MSMON_CAPT_EVNT.NOW, or ALL: this MSC is the whole system here). */
static void capture_event(struct msc_model *m)
{
	for (unsigned r = 0; r < m->nr_ris; r++) {
		for (unsigned i = 0; i < m->p.num_mon; i++) {
			struct mbwu_mon *mon = &m->ris[r].mon[i];

			if (mpam_field_get(MSMON_CFG_CTL_CAPT_EVNT, mon->ctl) != MSMON_CFG_CTL_CAPT_EVNT_LOCAL)
				continue;
			mon->capture = short_view(m, mon);
			mon->capture_l = m->p.has_long ? long_view(m, mon) : 0;
			mon_clear_nrdy(m, mon);
			if (mon->ctl & MSMON_CFG_CTL_CAPT_RESET)
				mon->count = 0;
		}
	}
}

/* ---------------------------------------------------------------- register dispatch */

static bool is_monitor_offset(uint32_t offset)
{
	return offset >= MSMON_CFG_MON_SEL && offset < MSMON_OFLOW_SR + 4;
}

/* Registers the selected monitor stands behind, if implemented with the model's features. */
static bool is_selected_mon_reg(const struct msc_model *m, uint32_t offset)
{
	switch (offset) {
	case MSMON_CFG_MBWU_FLT:
	case MSMON_CFG_MBWU_CTL:
	case MSMON_MBWU:
		return true;
	case MSMON_MBWU_CAPTURE:
		return m->p.has_capture;
	case MSMON_MBWU_L: /* 64-bit registers: offset is the base, the caller picks the half */
		return m->p.has_long;
	case MSMON_MBWU_L_CAPTURE:
		return m->p.has_long && m->p.has_capture;
	default:
		return false;
	}
}

static uint64_t mon_reg_read(struct msc_model *m, uint32_t offset)
{
	struct ris_state *r;
	struct mbwu_mon *mon = selected_mon(m, &r);

	if (!mon)
		return 0;
	switch (offset) {
	case MSMON_CFG_MBWU_FLT:
		return mon->flt;
	case MSMON_CFG_MBWU_CTL:
		return ctl_read(mon);
	case MSMON_MBWU:
		return short_view(m, mon);
	case MSMON_MBWU_CAPTURE:
		return mon->capture;
	case MSMON_MBWU_L:
		return long_view(m, mon);
	case MSMON_MBWU_L_CAPTURE:
		return mon->capture_l;
	default:
		return 0;
	}
}

/* `offset` is a register of the selected monitor; for the 64-bit counter, `mask` says which
 * bytes the access covers. */
static void mon_reg_write(struct msc_model *m, uint32_t offset, uint64_t value, uint64_t mask)
{
	struct ris_state *r;
	struct mbwu_mon *mon = selected_mon(m, &r);

	if (!mon)
		return;
	switch (offset) {
	case MSMON_CFG_MBWU_FLT:
		flt_write(m, mon, (uint32_t)value);
		break;
	case MSMON_CFG_MBWU_CTL:
		ctl_write(m, r, mon, (uint32_t)value);
		break;
	case MSMON_MBWU:
		short_view_write(m, r, mon, (uint32_t)value);
		break;
	case MSMON_MBWU_L:
		long_view_write(m, r, mon, value, mask);
		break;
	default:
		break; /* the capture registers are read-only here */
	}
}

/* Registers 64 bits wide (A.1): a 64-bit access acts on the whole register. */
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
		if (!has_monitors(m) || !is_selected_mon_reg(m, offset))
			return 0;
		return mon_reg_read(m, offset);
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
		if (has_monitors(m) && is_selected_mon_reg(m, offset))
			mon_reg_write(m, offset, value, mask);
		break;
	}
}

static uint32_t narrow_monitor_read(struct msc_model *m, uint32_t offset)
{
	if (!has_monitors(m))
		return 0; /* no MSMON: the whole monitor block is RAZ/WI */
	if (is_selected_mon_reg(m, offset))
		return (uint32_t)mon_reg_read(m, offset);
	switch (offset) {
	case MSMON_CFG_MON_SEL:
		return m->mon_sel;
	case MSMON_MBWU_OFSR:
		return m->p.has_ofsr ? ofsr_read(m) : 0;
	case MSMON_OFLOW_SR:
		return m->p.has_oflow_sr ? oflow_sr_read(m) : 0;
	default:
		return 0; /* includes MSMON_CAPT_EVNT, which always reads as zero */
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
	reg = cfg_reg_at(m, offset, &word);
	if (reg != CFG_NONE)
		return cfg_read(m, reg, word);
	if (is_monitor_offset(offset))
		return narrow_monitor_read(m, offset);
	switch (offset) {
	case MPAMF_ECR:
		return m->p.has_esr ? m->ecr : 0;
	case MPAMCFG_PART_SEL:
		return m->part_sel;
	default:
		return narrow_id_read(m, offset);
	}
}

static void narrow_monitor_write(struct msc_model *m, uint32_t offset, uint32_t value)
{
	if (!has_monitors(m))
		return;
	if (is_selected_mon_reg(m, offset)) {
		mon_reg_write(m, offset, value, LOW_WORD);
		return;
	}
	switch (offset) {
	case MSMON_CFG_MON_SEL:
		/* RIS is kept even without HAS_RIS so that a wrong selection raises error 10. */
		m->mon_sel = value & (uint32_t)(MSMON_CFG_MON_SEL_MON_SEL | MSMON_CFG_MON_SEL_RIS);
		break;
	case MSMON_CAPT_EVNT:
		if (m->p.has_capture && (value & (MSMON_CAPT_EVNT_NOW | MSMON_CAPT_EVNT_ALL)))
			capture_event(m);
		break;
	default:
		break;
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
	reg = cfg_reg_at(m, offset, &word);
	if (reg != CFG_NONE) {
		cfg_write(m, reg, word, value);
		return;
	}
	if (is_monitor_offset(offset)) {
		narrow_monitor_write(m, offset, value);
		return;
	}
	switch (offset) {
	case MPAMF_ECR:
		if (m->p.has_esr)
			m->ecr = value & (uint32_t)MPAMF_ECR_INTEN;
		break;
	case MPAMCFG_PART_SEL:
		part_sel_write(m, value);
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

/* ---------------------------------------------------------------- traffic and time */

static bool mon_matches(const struct msc_model *m, const struct mbwu_mon *mon, uint16_t partid, uint8_t pmg)
{
	if (!(mon->ctl & MSMON_CFG_CTL_EN) || mon->nrdy || m->nrdy_hold)
		return false;
	if ((mon->ctl & MSMON_CFG_CTL_MATCH_PARTID) && mpam_field_get(MSMON_CFG_MBWU_FLT_PARTID, mon->flt) != partid)
		return false;
	if ((mon->ctl & MSMON_CFG_CTL_MATCH_PMG) && mpam_field_get(MSMON_CFG_MBWU_FLT_PMG, mon->flt) != pmg)
		return false;
	return true;
}

/* Bytes a monitor counts under its RWBW filter: 01 writes only, 10 reads only, otherwise both
 * (the reserved 11 is treated as 00). RWBW is always 00 without HAS_RWBW. */
static uint64_t bytes_for_filter(const struct mbwu_mon *mon, uint64_t read_bytes, uint64_t write_bytes)
{
	switch (mpam_field_get(MSMON_CFG_MBWU_FLT_RWBW, mon->flt)) {
	case MPAM_RWBW_WRITES:
		return write_bytes;
	case MPAM_RWBW_READS:
		return read_bytes;
	default:
		return read_bytes + write_bytes;
	}
}

/* O(monitors): the lists of the old index are emptied through the monitors that were in them, so a
 * rebuild never walks the PARTID table. Monitors are pushed last to first: each list counts in
 * monitor order. */
static void index_rebuild(const struct msc_model *m, struct ris_state *r)
{
	for (unsigned i = 0; i < m->p.num_mon; i++)
		if (r->mon[i].index_partid)
			r->by_partid[r->mon[i].index_partid - 1] = 0;
	r->wildcard = 0;
	for (unsigned i = m->p.num_mon; i-- > 0;) {
		struct mbwu_mon *mon = &r->mon[i];
		uint32_t *head = &r->wildcard;

		mon->index_partid = 0;
		if (!(mon->ctl & MSMON_CFG_CTL_EN))
			continue;
		if (mon->ctl & MSMON_CFG_CTL_MATCH_PARTID) {
			mon->index_partid = (uint32_t)msmon_mbwu_flt_decode(mon->flt).partid + 1;
			head = &r->by_partid[mon->index_partid - 1];
		}
		mon->index_next = *head;
		*head = i + 1;
	}
	r->index_stale = false;
}

/* Every monitor of one index list that counts this traffic (mon_matches still decides: NRDY, PMG).
 * Inline: it runs for every PARTID of every MSC on every tick. */
static inline void count_list(struct msc_model *m, struct ris_state *r, uint32_t head, uint16_t partid, uint8_t pmg,
			      uint64_t read_bytes, uint64_t write_bytes)
{
	for (uint32_t i = head; i; i = r->mon[i - 1].index_next) {
		struct mbwu_mon *mon = &r->mon[i - 1];

		if (mon_matches(m, mon, partid, pmg))
			mon_add_bytes(m, r, mon, bytes_for_filter(mon, read_bytes, write_bytes));
	}
}

void msc_model_count(struct msc_model *model, unsigned ris, uint16_t partid, uint8_t pmg, uint64_t read_bytes,
		     uint64_t write_bytes)
{
	struct ris_state *r;

	if (!ris_exists(model, ris))
		return; /* no such RIS: nothing carries this traffic */
	if (partid > model->p.partid_max) {
		msc_model_raise_error(model, MPAM_ERR_REQ_PARTID_RANGE, partid, pmg, ris);
		return;
	}
	if (pmg > model->p.pmg_max) {
		msc_model_raise_error(model, MPAM_ERR_REQ_PMG_RANGE, partid, pmg, ris);
		return;
	}
	r = &model->ris[ris];
	if (!model->p.num_mon)
		return;
	if (r->index_stale)
		index_rebuild(model, r);
	count_list(model, r, r->by_partid[partid], partid, pmg, read_bytes, write_bytes);
	if (r->wildcard)
		count_list(model, r, r->wildcard, partid, pmg, read_bytes, write_bytes);
}

void msc_model_tick(struct msc_model *model)
{
	if (model->nrdy_hold)
		model->nrdy_hold--;
	for (unsigned r = 0; model->nrdy_counting && r < model->nr_ris; r++) {
		for (unsigned i = 0; i < model->p.num_mon; i++) {
			struct mbwu_mon *mon = &model->ris[r].mon[i];

			if (mon->nrdy_ticks && --mon->nrdy_ticks == 0) {
				mon->nrdy = false;
				model->nrdy_counting--;
			}
		}
	}
}

/* ---------------------------------------------------------------- faults */

void msc_model_hold_nrdy(struct msc_model *model, unsigned ticks)
{
	model->nrdy_hold = ticks;
}

void msc_model_jump(struct msc_model *model, int64_t units)
{
	for (unsigned r = 0; r < model->nr_ris; r++)
		for (unsigned i = 0; i < model->p.num_mon; i++)
			if (model->ris[r].mon[i].ctl & MSMON_CFG_CTL_EN)
				model->ris[r].mon[i].count += (uint64_t)units;
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

uint16_t msc_model_mbw_max(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	const struct partid_cfg *cfg = cfg_of(model, ris, partid);

	return cfg && has_mbw_max(model) ? cfg->mbw_max : 0xFFFF;
}

void msc_model_mbw_limits(const struct msc_model *model, unsigned ris, uint16_t partid, uint16_t *ret_max,
			  uint16_t *ret_min)
{
	const struct partid_cfg *cfg = cfg_of(model, ris, partid);

	*ret_max = cfg && has_mbw_max(model) ? cfg->mbw_max : 0xFFFF;
	*ret_min = cfg && has_mbw_min(model) ? cfg->mbw_min : 0;
}

uint16_t msc_model_mbw_min(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	const struct partid_cfg *cfg = cfg_of(model, ris, partid);

	return cfg && has_mbw_min(model) ? cfg->mbw_min : 0;
}

bool msc_model_mbw_hardlim(const struct msc_model *model, unsigned ris, uint16_t partid)
{
	const struct partid_cfg *cfg = cfg_of(model, ris, partid);

	return cfg && has_mbw_max(model) && hardlim_effective(model, cfg);
}

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
