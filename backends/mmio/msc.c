#include "backends/mmio/msc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/mmio/msc_access.h"
#include "backends/mmio/quirks.h"
#include "backends/mpam/mpam_regs.h"
#include "core/base/ladder.h"

static int read_idr(struct msc_bus *bus, uint64_t *ret)
{
	uint32_t lo, hi = 0;
	int r = bus_read32(bus, MPAMF_IDR, &lo);

	/* The high word is defined only when EXT says the register is 64 bits wide. */
	if (r == 0 && (lo & MPAMF_IDR_EXT))
		r = bus_read32(bus, MPAMF_IDR + 4, &hi);
	if (r == 0)
		*ret = (uint64_t)hi << 32 | lo;
	return r;
}

/* Bandwidth controls, as Linux's mpam_ris_hw_probe reads them: BWA_WD is at most 16 (the width of
 * the fields it describes), and MIN, MAX and PROP need a width; MBW_PBM its own. */
static void decode_mbw(uint32_t reg, struct msc_ris_caps *ris)
{
	struct mpamf_mbw_idr mbw = mpamf_mbw_idr_decode(reg);

	ris->bwa_wd = mbw.bwa_wd > 16 ? 16 : mbw.bwa_wd;
	ris->has_min = mbw.has_min && ris->bwa_wd;
	ris->has_max = mbw.has_max && ris->bwa_wd;
	ris->has_prop = mbw.has_prop && ris->bwa_wd;
	ris->has_mbw = ris->has_max || ris->has_min;
	ris->max_lim = mbw.max_lim;
	ris->pbm_wd = mbw.has_pbm ? mbw.bwpbm_wd : 0;
}

/* Cache capacity controls, as mpam_ris_hw_probe: CMAX and CMIN need CMAX_WD, CASSOC CASSOC_WD. */
static void decode_ccap(uint32_t reg, struct msc_ris_caps *ris)
{
	bool cmax_wd = mpam_field_get(MPAMF_CCAP_IDR_CMAX_WD, reg) != 0;

	ris->has_cmax = cmax_wd && !(reg & MPAMF_CCAP_IDR_NO_CMAX);
	ris->has_cmin = cmax_wd && (reg & MPAMF_CCAP_IDR_HAS_CMIN);
	ris->has_cassoc = mpam_field_get(MPAMF_CCAP_IDR_CASSOC_WD, reg) && (reg & MPAMF_CCAP_IDR_HAS_CASSOC);
}

static void decode_pri(uint32_t reg, struct msc_ris_caps *ris)
{
	if (reg & MPAMF_PRI_IDR_HAS_INTPRI)
		ris->intpri_wd = (unsigned)mpam_field_get(MPAMF_PRI_IDR_INTPRI_WD, reg);
	if (reg & MPAMF_PRI_IDR_HAS_DSPRI)
		ris->dspri_wd = (unsigned)mpam_field_get(MPAMF_PRI_IDR_DSPRI_WD, reg);
	ris->intpri_0_is_low = (reg & MPAMF_PRI_IDR_INTPRI_0_IS_LOW) != 0;
	ris->dspri_0_is_low = (reg & MPAMF_PRI_IDR_DSPRI_0_IS_LOW) != 0;
}

/* The controls of a RIS, every one mpamd resets when it takes a PARTID over. */
static int probe_controls(struct msc_bus *bus, const struct mpamf_idr *idr, struct msc_ris_caps *ris)
{
	uint32_t reg;
	int r = 0;

	if (idr->has_mbw_part && (r = bus_read32(bus, MPAMF_MBW_IDR, &reg)) == 0)
		decode_mbw(reg, ris);
	if (r == 0 && idr->has_cpor_part && (r = bus_read32(bus, MPAMF_CPOR_IDR, &reg)) == 0)
		ris->cpbm_wd = (unsigned)mpam_field_get(MPAMF_CPOR_IDR_CPBM_WD, reg);
	if (r == 0 && idr->has_ccap_part && (r = bus_read32(bus, MPAMF_CCAP_IDR, &reg)) == 0)
		decode_ccap(reg, ris);
	if (r == 0 && idr->has_pri_part && (r = bus_read32(bus, MPAMF_PRI_IDR, &reg)) == 0)
		decode_pri(reg, ris);
	/* PARTID narrowing: one configuration per intPARTID (mpam_ris_hw_probe). */
	if (r == 0 && idr->has_partid_nrw && (r = bus_read32(bus, MPAMF_PARTID_NRW_IDR, &reg)) == 0) {
		ris->has_partid_nrw = true;
		ris->intpartid_max = (uint16_t)mpam_field_get(MPAMF_PARTID_NRW_IDR_INTPARTID_MAX, reg);
	}
	return r;
}

static int probe_ris(struct msc_bus *bus, const struct mpamf_idr *idr, struct msc_ris_caps *ris)
{
	uint32_t reg;
	int r;

	memset(ris, 0, sizeof(*ris));
	r = probe_controls(bus, idr, ris);
	if (r == 0 && idr->has_msmon && (r = bus_read32(bus, MPAMF_MSMON_IDR, &reg)) == 0 &&
	    (reg & MPAMF_MSMON_IDR_MSMON_MBWU) && (r = bus_read32(bus, MPAMF_MBWUMON_IDR, &reg)) == 0) {
		struct mpamf_mbwumon_idr mon = mpamf_mbwumon_idr_decode(reg);
		ris->num_mon = mon.num_mon;
		ris->scale = mon.scale;
		ris->has_long = mon.has_long;
		ris->lwd = mon.lwd;
		ris->counter_bits = mpam_mbwu_counter_bits(mon.has_long, mon.lwd);
		ris->has_rwbw = mon.has_rwbw;
		ris->has_capture = mon.has_capture;
		ris->has_ofsr = mon.has_ofsr;
	}
	return r;
}

/* Whether the MSC clears NRDY by itself: if software can both set and clear the bit, it is plain
 * storage and the MSC leaves it to software. Reads honour NRDY either way (the monitor sequence
 * clears it by zeroing the counter after enabling), so this is for discover. It writes monitor 0 of
 * the monitor RIS, before any monitor is handed out, and leaves its counter at zero. */
static int probe_nrdy(struct msc_bus *bus, unsigned ris, enum msc_nrdy *ret)
{
	uint32_t set, cleared;
	int r = bus_write32(bus, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(ris, 0));

	if (r == 0)
		r = bus_write32(bus, MSMON_MBWU, (uint32_t)MSMON_MBWU_NRDY);
	if (r == 0)
		r = bus_read32(bus, MSMON_MBWU, &set);
	if (r == 0)
		r = bus_write32(bus, MSMON_MBWU, 0);
	if (r == 0)
		r = bus_read32(bus, MSMON_MBWU, &cleared);
	if (r == 0)
		*ret = (set & MSMON_MBWU_NRDY) && !(cleared & MSMON_MBWU_NRDY) ? MSC_NRDY_SOFTWARE : MSC_NRDY_HARDWARE;
	return r;
}

/* ERRCODE 0 acknowledges the error and clears the register; the high word first, as Linux does. */
static int clear_esr(struct msc_bus *bus, const struct msc_caps *caps)
{
	int r = caps->has_extd_esr ? bus_write32(bus, MPAMF_ESR + 4, 0) : 0;

	return r < 0 ? r : bus_write32(bus, MPAMF_ESR, 0);
}

static int probe_esr(struct msc_bus *bus, bool leave_as_is, struct msc_caps *caps)
{
	uint32_t lo, hi = 0;
	int r;

	if (!caps->has_esr)
		return 0;
	r = bus_read32(bus, MPAMF_ESR, &lo);
	if (r == 0 && caps->has_extd_esr)
		r = bus_read32(bus, MPAMF_ESR + 4, &hi);
	if (r < 0)
		return r;
	caps->stale_esr = (uint64_t)hi << 32 | lo;
	/* Clear a stale error so that later checks see only ours. */
	return caps->stale_esr && !leave_as_is ? clear_esr(bus, caps) : 0;
}

static void pick_ris(struct msc_caps *caps)
{
	caps->mon_ris = -1;
	caps->mbw_ris = -1;
	for (unsigned i = 0; i < caps->ris_count; i++) {
		if (caps->mon_ris < 0 && caps->ris[i].num_mon > 0)
			caps->mon_ris = (int)i;
		if (caps->mbw_ris < 0 && caps->ris[i].has_mbw)
			caps->mbw_ris = (int)i;
	}
}

/* A RIS that narrows PARTIDs has a configuration per intPARTID only: mpamd uses no PARTID above
 * INTPARTID_MAX there, and maps each it uses to the intPARTID of the same number, as Linux clamps
 * and maps them (mpam_ris_hw_probe, mpam_reprogram_ris_partid). */
static void narrow_partids(struct msc_caps *caps, const struct msc_ris_caps *rc)
{
	if (rc->has_partid_nrw && rc->intpartid_max < caps->partid_max)
		caps->partid_max = rc->intpartid_max;
}

/* With RIS the IDRs describe the RIS that PART_SEL selects. The owner selects each; a monitor-only
 * user may not change PART_SEL and sees the RIS the owner left; a dry run selects each and puts
 * back what it found, so an owner between two accesses finds its selection again. */
static int probe_each_ris(struct msc_bus *bus, const struct msc_probe_opts *opts, struct mpamf_idr *idr,
			  struct msc_caps *caps, struct err *err)
{
	uint64_t raw = 0;
	uint32_t found = 0;
	int r = opts->plan_only ? bus_read32(bus, MPAMCFG_PART_SEL, &found) : 0;

	if (r < 0)
		return err_set(err, r, "cannot read MPAMCFG_PART_SEL");
	for (unsigned i = 0; i < caps->ris_count; i++) {
		r = bus_write32(bus, MPAMCFG_PART_SEL, mpamcfg_part_sel(i, 0));
		if (r == 0)
			r = read_idr(bus, &raw);
		if (r < 0)
			return err_set(err, r, "cannot select RIS %u", i);
		*idr = mpamf_idr_decode(raw);
		if (idr->partid_max < caps->partid_max)
			caps->partid_max = idr->partid_max;
		if (idr->pmg_max < caps->pmg_max)
			caps->pmg_max = idr->pmg_max;
		if ((r = probe_ris(bus, idr, &caps->ris[i])) < 0)
			return err_set(err, r, "cannot read the ID registers of RIS %u", i);
		narrow_partids(caps, &caps->ris[i]);
	}
	if (opts->plan_only && (r = bus_write32(bus, MPAMCFG_PART_SEL, found)) < 0)
		return err_set(err, r, "cannot put MPAMCFG_PART_SEL back");
	return 0;
}

static int probe_all_ris(struct msc_bus *bus, const struct msc_probe_opts *opts, struct msc_caps *caps, struct err *err)
{
	uint64_t raw = 0; /* read_idr sets it on success; -O3 cannot see that through the bus call */
	int r = read_idr(bus, &raw);

	if (r < 0)
		return err_set(err, r, "cannot read MPAMF_IDR");
	struct mpamf_idr idr = mpamf_idr_decode(raw);
	caps->has_ris = idr.has_ris;
	caps->ris_count = idr.has_ris ? idr.ris_max + 1u : 1u;
	caps->has_esr = idr.has_esr;
	caps->has_extd_esr = idr.has_extd_esr;
	caps->partid_max = idr.partid_max;
	caps->pmg_max = idr.pmg_max;
	if (idr.has_ris && !opts->monitor_only)
		return probe_each_ris(bus, opts, &idr, caps, err);
	/* Without RIS the IDRs describe the whole MSC; a monitor-only user sees one RIS. */
	caps->ris_count = 1;
	r = probe_ris(bus, &idr, &caps->ris[0]);
	if (r < 0)
		return err_set(err, r, "cannot read the ID registers of RIS 0");
	narrow_partids(caps, &caps->ris[0]);
	return 0;
}

/* As Linux since 7.2: v1.x, and v0.1 (backward compatible with v1.0); v0.0 is no MSC at all (or the
 * wrong address), v2 and later are unknown. */
static bool architecture_supported(uint32_t aidr)
{
	uint64_t major = mpam_field_get(MPAMF_AIDR_ARCH_MAJOR_REV, aidr);
	uint64_t minor = mpam_field_get(MPAMF_AIDR_ARCH_MINOR_REV, aidr);

	return major == 1 || (major == 0 && minor > 0);
}

int msc_probe(struct msc_bus *bus, const struct msc_probe_opts *opts, struct msc_caps *ret, struct err *err)
{
	struct msc_caps caps = { 0 };
	uint32_t reg;
	int r = bus_read32(bus, MPAMF_AIDR, &reg);

	if (r < 0)
		return err_set(err, r, "cannot read MPAMF_AIDR");
	caps.aidr = reg;
	if (!architecture_supported(reg))
		return err_set(err, -ENODEV, "MPAMF_AIDR is 0x%02x: not an MPAM v0.1 or v1.x MSC (wrong base address?)",
			       reg);
	r = bus_read32(bus, MPAMF_IIDR, &caps.iidr);
	caps.quirks = msc_quirks_of(caps.iidr, &opts->soc);
	if (r == 0)
		r = probe_all_ris(bus, opts, &caps, err);
	if (r < 0)
		return r;
	pick_ris(&caps);
	/* Beside the kernel, or in a dry run beside a running mpamd, the monitors are left alone: the
	 * NRDY probe writes monitor 0's counter. */
	bool leave_monitors = opts->beside_kernel || opts->plan_only;
	caps.nrdy = leave_monitors ? MSC_NRDY_NOT_PROBED : MSC_NRDY_HARDWARE;
	if (caps.mon_ris >= 0 && !leave_monitors && (r = probe_nrdy(bus, (unsigned)caps.mon_ris, &caps.nrdy)) < 0)
		return err_set(err, r, "cannot probe monitor NRDY behaviour");
	if ((r = probe_esr(bus, opts->monitor_only || leave_monitors, &caps)) < 0)
		return err_set(err, r, "cannot read MPAMF_ESR");
	*ret = caps;
	return 0;
}

bool msc_narrows_partids(const struct msc *msc)
{
	for (unsigned r = 0; r < msc->caps.ris_count; r++)
		if (msc->caps.ris[r].has_partid_nrw)
			return true;
	return false;
}

bool msc_limits_hard(const struct msc *msc, const struct msc_ris_caps *rc)
{
	if (rc->max_lim == MPAM_MAX_LIM_EITHER)
		return msc->hard_limits;
	return rc->max_lim == MPAM_MAX_LIM_HARD;
}

const char *msc_max_lim_name(unsigned max_lim)
{
	switch (max_lim) {
	case MPAM_MAX_LIM_EITHER:
		return "soft and hard";
	case MPAM_MAX_LIM_SOFT:
		return "soft only";
	case MPAM_MAX_LIM_HARD:
		return "hard only";
	default:
		return "reserved";
	}
}

/* The MBW_MAX field of the rung nearest pct, and what it enforces (core/base/ladder.h). */
static uint16_t mbw_max_field(const struct msc_ris_caps *ris, double pct, double *ret_pct)
{
	struct ladder l;
	uint32_t rung;

	ladder_mpam_max(ris->bwa_wd, &l);
	rung = ladder_snap(&l, pct, LADDER_NEAREST);
	if (ret_pct)
		*ret_pct = ladder_pct(&l, rung);
	return (uint16_t)ladder_value(&l, rung);
}

/* The MBW_MIN field of the lowest rung at or above pct (a minimum is never short); 0: none. */
static uint16_t mbw_min_field(const struct msc_ris_caps *ris, double pct, double *ret_pct)
{
	struct ladder l;
	uint32_t rung = 0;

	ladder_mpam_min(ris->bwa_wd, &l);
	if (pct > 0)
		rung = ladder_snap(&l, pct, LADDER_UP);
	if (ret_pct)
		*ret_pct = ladder_pct(&l, rung);
	return (uint16_t)ladder_value(&l, rung);
}

/* HARDLIM is set only where software chooses (MAX_LIM 0) and mpamd was asked for hard limits: soft
 * by default, as Linux's resctrl leaves it (it writes the MAX field alone), so that an mb_max means the
 * same over MMIO as through resctrl. Where MAX_LIM fixes it the bit reads back as fixed. */
static uint32_t mbw_max_value(const struct msc *msc, const struct msc_ris_caps *rc, double pct, double *ret_pct)
{
	uint32_t v = mbw_max_field(rc, pct, ret_pct);

	if (rc->max_lim == MPAM_MAX_LIM_EITHER && msc->hard_limits)
		v |= (uint32_t)MPAMCFG_MBW_MAX_HARDLIM;
	return v;
}

/* What HARDLIM must read back: the choice where software has it, else what MAX_LIM fixes. */
static bool hardlim_as_asked(const struct msc *msc, const struct msc_ris_caps *rc, uint32_t readback)
{
	return ((readback & MPAMCFG_MBW_MAX_HARDLIM) != 0) == msc_limits_hard(msc, rc);
}

/* The MBW_MIN field for a request of min_pct (0: none) beside a maximum of max_pct. On a T241 it is
 * not mpamd's minimum at all but the erratum's floor, derived from MAX as Linux derives it. */
static uint32_t mbw_min_value(const struct msc *msc, const struct msc_ris_caps *rc, double max_pct, double min_pct,
			      double *ret_pct)
{
	if (msc->caps.quirks & MSC_QUIRK_T241_MBW_MIN_FLOOR) {
		uint16_t max = mbw_max_field(rc, rc->has_max ? max_pct : 100, NULL);
		return msc_quirk_t241_mbw_min(rc->bwa_wd, max);
	}
	return mbw_min_field(rc, min_pct, ret_pct);
}

/* With ret_max_pct and ret_min_pct (the MSC's first bandwidth RIS, whose limits apply reports): what
 * the fields written enforce, worked out with them rather than on the ladders a second time; they stay
 * as they are where the RIS has no such control (a T241's MBW_MIN is the erratum's, no minimum mpamd
 * offers). */
static int set_ris_bandwidth(struct msc *msc, unsigned ris, uint16_t partid, double max_pct, double min_pct,
			     double *ret_max_pct, double *ret_min_pct, struct msc_bandwidth_seen *seen, json_t *plan,
			     struct err *err)
{
	const struct msc_ris_caps *rc = &msc->caps.ris[ris];
	bool offers_min = !(msc->caps.quirks & MSC_QUIRK_T241_MBW_MIN_FLOOR);
	struct msc_control_values v = { 0, 0 };
	double enforced = 0;
	uint32_t want;
	int r;

	if (rc->has_max) {
		want = mbw_max_value(msc, rc, max_pct, &enforced);
		if (ret_max_pct)
			*ret_max_pct = enforced;
		r = msc_write_control(msc, ris, partid, MPAMCFG_MBW_MAX, "MPAMCFG_MBW_MAX", want, false, &v, plan);
		if (r < 0)
			return err_set(err, r, "RIS %u: cannot write MBW_MAX", ris);
		if ((v.after & MPAMCFG_MBW_MAX_MAX) != (want & MPAMCFG_MBW_MAX_MAX) ||
		    (!plan && !hardlim_as_asked(msc, rc, v.after)))
			return err_set(err, -EIO, "RIS %u: MBW_MAX of PARTID %u reads back 0x%x after writing 0x%x",
				       ris, partid, v.after, want);
		seen->max = v.after;
	}
	if (rc->has_min) {
		want = mbw_min_value(msc, rc, max_pct, min_pct, &enforced);
		if (ret_min_pct && offers_min && min_pct > 0)
			*ret_min_pct = enforced;
		r = msc_write_control(msc, ris, partid, MPAMCFG_MBW_MIN, "MPAMCFG_MBW_MIN", want, false, &v, plan);
		if (r < 0)
			return err_set(err, r, "RIS %u: cannot write MBW_MIN", ris);
		if ((v.after & MPAMCFG_MBW_MIN_MIN) != want)
			return err_set(err, -EIO, "RIS %u: MBW_MIN of PARTID %u reads back 0x%x after writing 0x%x",
				       ris, partid, v.after, want);
		seen->min = v.after;
	}
	return 0;
}

static int program_bandwidth(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
			     double *ret_min_pct, struct msc_bandwidth_seen *ret_seen, json_t *plan, struct err *err)
{
	struct msc_bandwidth_seen seen = { 0, 0, msc->hard_limits, false };
	unsigned written = 0;
	int r = msc_check_control(msc, partid, plan, err);

	if (r < 0)
		return r;
	if (msc->caps.mbw_ris < 0)
		return err_set(err, -EOPNOTSUPP, "the MSC has no bandwidth controls");
	double max_enforced = 100, min_enforced = 0;

	for (unsigned i = 0; i < msc->caps.ris_count; i++) {
		bool first = i == (unsigned)msc->caps.mbw_ris;
		if (!msc->caps.ris[i].has_mbw)
			continue;
		if ((r = set_ris_bandwidth(msc, i, partid, max_pct, min_pct, first ? &max_enforced : NULL,
					   first ? &min_enforced : NULL, &seen, plan, err)) < 0)
			return r;
		written++;
	}
	*ret_max_pct = max_enforced;
	*ret_min_pct = min_enforced;
	if (ret_seen) {
		seen.kept = written == 1 && !plan;
		*ret_seen = seen;
	}
	return 0;
}

int msc_set_bandwidth(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
		      double *ret_min_pct, struct err *err)
{
	return program_bandwidth(msc, partid, max_pct, min_pct, ret_max_pct, ret_min_pct, NULL, NULL, err);
}

int msc_set_bandwidth_seen(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
			   double *ret_min_pct, struct msc_bandwidth_seen *seen, struct err *err)
{
	return program_bandwidth(msc, partid, max_pct, min_pct, ret_max_pct, ret_min_pct, seen, NULL, err);
}

int msc_bandwidth_as_seen(struct msc *msc, uint16_t partid, const struct msc_bandwidth_seen *seen)
{
	if (!seen->kept || seen->hard != msc->hard_limits || msc->caps.mbw_ris < 0)
		return 0;
	unsigned ris = (unsigned)msc->caps.mbw_ris;
	const struct msc_ris_caps *rc = &msc->caps.ris[ris];
	uint32_t max = 0, min = 0;
	int r = 0;

	if (rc->has_max)
		r = msc_read_control(msc, ris, partid, MPAMCFG_MBW_MAX, &max);
	if (r == 0 && rc->has_min)
		r = msc_read_control(msc, ris, partid, MPAMCFG_MBW_MIN, &min);
	return r < 0 ? r : max == seen->max && min == seen->min;
}

int msc_plan_bandwidth(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
		       double *ret_min_pct, json_t *writes, struct err *err)
{
	return program_bandwidth(msc, partid, max_pct, min_pct, ret_max_pct, ret_min_pct, NULL, writes, err);
}

static int set_ris_cpbm(struct msc *msc, unsigned ris, uint16_t partid, uint64_t cbm, json_t *plan, struct err *err)
{
	unsigned width = msc->caps.ris[ris].cpbm_wd;
	unsigned words = (width + 31) / 32;

	if (width < 64 && (cbm >> width) != 0)
		return err_set(err, -ERANGE, "RIS %u: cache bitmap 0x%llx is wider than the MSC's %u-bit CPBM", ris,
			       (unsigned long long)cbm, width);
	for (unsigned n = 0; n < words; n++) {
		uint32_t want = n < 2 ? (uint32_t)(cbm >> (32 * n)) : 0;
		struct msc_control_values v;
		char reg[32];
		snprintf(reg, sizeof(reg), "MPAMCFG_CPBM%u", n);
		int r = msc_write_control(msc, ris, partid, MPAMCFG_CPBM(n), reg, want, false, &v, plan);
		if (r < 0)
			return err_set(err, r, "RIS %u: cannot write CPBM%u", ris, n);
		if (v.after != want)
			return err_set(err, -EIO, "RIS %u: CPBM%u of PARTID %u reads back 0x%x after writing 0x%x", ris,
				       n, partid, v.after, want);
	}
	return 0;
}

static int program_cpbm(struct msc *msc, uint16_t partid, uint64_t cbm, json_t *plan, struct err *err)
{
	int r = msc_check_control(msc, partid, plan, err);
	bool any = false;

	if (r < 0)
		return r;
	for (unsigned i = 0; i < msc->caps.ris_count; i++) {
		if (!msc->caps.ris[i].cpbm_wd)
			continue;
		any = true;
		if ((r = set_ris_cpbm(msc, i, partid, cbm, plan, err)) < 0)
			return r;
	}
	return any ? 0 : err_set(err, -EOPNOTSUPP, "the MSC has no cache portion controls");
}

int msc_set_cpbm(struct msc *msc, uint16_t partid, uint64_t cbm, struct err *err)
{
	return program_cpbm(msc, partid, cbm, NULL, err);
}

int msc_plan_cpbm(struct msc *msc, uint16_t partid, uint64_t cbm, json_t *writes, struct err *err)
{
	return program_cpbm(msc, partid, cbm, writes, err);
}

int msc_read_esr(struct msc *msc, uint64_t *ret)
{
	uint32_t lo = 0, hi = 0;
	int r = 0;

	if (msc->caps.has_esr)
		r = bus_read32(msc->bus, MPAMF_ESR, &lo);
	if (r == 0 && msc->caps.has_extd_esr)
		r = bus_read32(msc->bus, MPAMF_ESR + 4, &hi);
	if (r == 0)
		*ret = (uint64_t)hi << 32 | lo;
	return r;
}

int msc_clear_esr(struct msc *msc)
{
	if (msc->access.monitor_only || msc->access.beside_kernel || msc->access.plan_only)
		return -EPERM;
	return msc->caps.has_esr ? clear_esr(msc->bus, &msc->caps) : 0;
}

void msc_describe_esr(uint64_t esr, char *buf, size_t len)
{
	struct mpamf_esr e = mpamf_esr_decode(esr);

	snprintf(buf, len, "ERRCODE %u (%s), PARTID/MON %u, PMG %u, RIS %u%s", e.errcode, mpam_errcode_name(e.errcode),
		 e.partid_mon, e.pmg, e.ris, e.ovrwr ? ", overwritten" : "");
}

const char *msc_nrdy_name(enum msc_nrdy nrdy)
{
	switch (nrdy) {
	case MSC_NRDY_HARDWARE:
		return "hardware";
	case MSC_NRDY_SOFTWARE:
		return "software";
	case MSC_NRDY_NOT_PROBED:
		break;
	}
	return "not probed";
}

unsigned msc_counter_scale(const struct msc *msc, const struct msc_ris_caps *rc)
{
	(void)msc;
	return rc->has_long ? 0 : rc->scale;
}

unsigned msc_counter_unit_shift(const struct msc *msc, const struct msc_ris_caps *rc)
{
	return msc_counter_scale(msc, rc) + (msc->caps.quirks & MSC_QUIRK_T241_MBWU_X64 ? 6 : 0);
}
