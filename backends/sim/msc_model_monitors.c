/* The MBWU monitors of the MSC model (msc_model.c): their registers, the traffic they count and
 * their not-ready time.
 *
 * Each monitor holds a single count (of bytes, or of 64-byte units on a part that counts those:
 * NVIDIA T241); MSMON_MBWU (31-bit, optionally scaled) and MSMON_MBWU_L (44/63-bit, never scaled)
 * are two views of it, so no bytes are lost to scaling and both views agree.
 *
 * Interpretations where IHI 0099 leaves a choice (each is also stated where it is coded):
 *  - Monitor register checks: MON_SEL.RIS (10), then MON_SEL (5).
 *  - "FLT or CTL written with a different value" compares the configuration bits only: the
 *    OFLOW_STATUS(_L) bits are status, so clearing them (Linux's clean_msmon_ctl_val()) does not set NRDY.
 *  - MSMON_CAPT_EVNT.ALL is treated as NOW: there is only one MSC here to broadcast to.
 *  - MSMON_MBWU_OFSR bit i mirrors CTL.OFLOW_STATUS of monitor (MON_SEL & 0xFFE0) + i; the access
 *    raises error 5 only when that group's first monitor does not exist.
 *  - CTL bits for features the ID registers do not advertise (OFLOW_LNKG, OFLOW_CAPT(_L),
 *    CEVNT_OFLW, OFLOW_FRZ, SUBTYPE; CAPT_* without capture; *_L without a long counter) are RAZ/WI.
 */
#include <stddef.h>

#include "backends/sim/msc_model.h"
#include "backends/sim/msc_model_internal.h"
#include "backends/mpam/mpam_regs.h"

/* ---------------------------------------------------------------- views and status */

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

/* The monitor's settings changed: it needs time to settle (IHI 0099 §6, NRDY). Hardware-managed NRDY clears
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
 * the bit is plain storage (what Linux's mpam_ris_hw_probe_csu_nrdy() detects). */
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

/* ---------------------------------------------------------------- registers */

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

/* The 64-bit registers of the selected monitor. */
uint64_t msc_model_monitor_wide_read(struct msc_model *m, uint32_t offset)
{
	if (!has_monitors(m) || !is_selected_mon_reg(m, offset))
		return 0;
	return mon_reg_read(m, offset);
}

void msc_model_monitor_wide_write(struct msc_model *m, uint32_t offset, uint64_t value, uint64_t mask)
{
	if (has_monitors(m) && is_selected_mon_reg(m, offset))
		mon_reg_write(m, offset, value, mask);
}

uint32_t msc_model_monitor_read(struct msc_model *m, uint32_t offset)
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

void msc_model_monitor_write(struct msc_model *m, uint32_t offset, uint32_t value)
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
	msc_model_delay_tick(model);
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
