/* Taking a PARTID over (msc.h, msc_take_over): before mpamd first configures a PARTID on an MSC, every
 * control the MSC has for it is put to its reset value, so that nothing firmware or an earlier tool
 * left there (an MBW_PROP stride, an MBW_PBM, a cache capacity limit, a priority) combines with
 * mpamd's limits. The values are Linux's: mpam_reset_ris writes mpam_reprogram_ris_partid with an
 * empty configuration (drivers/resctrl/mpam_devices.c), in the same order. */
#include <stdio.h>
#include <string.h>

#include "backends/mmio/msc_access.h"
#include "backends/mmio/quirks.h"
#include "backends/mpam/mpam_regs.h"
#include "core/base/log.h"

/* What a takeover found different from the reset values, for its one log line. */
struct findings {
	char text[768];
	size_t len;
	unsigned count;
};

bool msc_taken_over(const struct msc *msc, uint16_t partid)
{
	return (msc->taken_over[partid / 64] >> (partid % 64)) & 1;
}

static void mark_taken_over(struct msc *msc, uint16_t partid)
{
	msc->taken_over[partid / 64] |= UINT64_C(1) << (partid % 64);
}

static void describe_before(const char *reg, uint32_t before, char *buf, size_t len)
{
	if (!strcmp(reg, "MPAMCFG_MBW_PROP"))
		snprintf(buf, len, "was %s, STRIDEM1 %u", before & MPAMCFG_MBW_PROP_EN ? "enabled" : "disabled",
			 (unsigned)mpam_field_get(MPAMCFG_MBW_PROP_STRIDEM1, before));
	else
		snprintf(buf, len, "was 0x%08x", before);
}

static void note(struct findings *f, const struct msc *msc, unsigned ris, const char *reg, uint32_t before)
{
	char was[48], where[16] = "";
	const char *name = strncmp(reg, "MPAMCFG_", 8) ? reg : reg + 8;

	describe_before(reg, before, was, sizeof(was));
	if (msc->caps.has_ris)
		snprintf(where, sizeof(where), "RIS %u ", ris);
	if (f->len < sizeof(f->text))
		f->len += (size_t)snprintf(f->text + f->len, sizeof(f->text) - f->len, "%s%s%s (%s)",
					   f->count ? ", " : "", where, name, was);
	f->count++;
}

/* One control to its reset value; a value that reads back otherwise than before is noted. */
static int reset_control(struct msc *msc, unsigned ris, uint16_t partid, uint32_t offset, const char *reg,
			 uint32_t value, json_t *plan, struct findings *f, struct err *err)
{
	struct msc_control_values v;
	int r = msc_write_control(msc, ris, partid, offset, reg, value, true, &v, plan);

	if (r < 0)
		return err_set(err, r, "RIS %u: cannot reset %s of PARTID %u", ris, reg, partid);
	if (v.before != v.after)
		note(f, msc, ris, reg, v.before);
	return 0;
}

/* A bitmap of `width` bits all ones: every word but the last full, the last up to its top bit
 * (mpam_reset_msc_bitmap). */
static int reset_bitmap(struct msc *msc, unsigned ris, uint16_t partid, uint32_t first, const char *name,
			unsigned width, json_t *plan, struct findings *f, struct err *err)
{
	int r = 0;

	for (unsigned n = 0; r == 0 && n < (width + 31) / 32; n++) {
		unsigned bits = width - 32 * n >= 32 ? 32 : width - 32 * n;
		char reg[32];
		snprintf(reg, sizeof(reg), "%s%u", name, n);
		r = reset_control(msc, ris, partid, first + 4 * n, reg, (uint32_t)mpam_counter_mask(bits), plan, f,
				  err);
	}
	return r;
}

/* The highest priority: all ones where 0 is the lowest, else 0 (mpam_reprogram_ris_partid). */
static uint32_t highest_priority(const struct msc_ris_caps *rc)
{
	uint64_t intpri = rc->intpri_wd && rc->intpri_0_is_low ? mpam_counter_mask(rc->intpri_wd) : 0;
	uint64_t dspri = rc->dspri_wd && rc->dspri_0_is_low ? mpam_counter_mask(rc->dspri_wd) : 0;

	return (uint32_t)(mpam_field_prep(MPAMCFG_PRI_INTPRI, intpri) | mpam_field_prep(MPAMCFG_PRI_DSPRI, dspri));
}

/* MBW_MIN at reset: 0, or on a T241 the erratum's floor below a MAX of all ones (T241-MPAM-4). */
static uint32_t reset_mbw_min(const struct msc *msc, const struct msc_ris_caps *rc)
{
	if (msc->caps.quirks & MSC_QUIRK_T241_MBW_MIN_FLOOR)
		return msc_quirk_t241_mbw_min(rc->bwa_wd, mpam_mbw_max_from_percent(100, rc->bwa_wd));
	return 0;
}

/* The registers of one RIS that have a single reset value, in Linux's order after the bitmaps. */
static int reset_registers(struct msc *msc, unsigned ris, uint16_t partid, json_t *plan, struct findings *f,
			   struct err *err)
{
	const struct msc_ris_caps *rc = &msc->caps.ris[ris];
	const struct {
		bool present;
		uint32_t offset;
		const char *reg;
		uint32_t value;
	} regs[] = {
		{ rc->has_min, MPAMCFG_MBW_MIN, "MPAMCFG_MBW_MIN", reset_mbw_min(msc, rc) },
		/* All ones with HARDLIM clear: no limit (MPAMCFG_MBW_MAX_MAX). */
		{ rc->has_max, MPAMCFG_MBW_MAX, "MPAMCFG_MBW_MAX", (uint32_t)MPAMCFG_MBW_MAX_MAX },
		{ rc->has_prop, MPAMCFG_MBW_PROP, "MPAMCFG_MBW_PROP", 0 },
		{ rc->has_cmax, MPAMCFG_CMAX, "MPAMCFG_CMAX", (uint32_t)MPAMCFG_CMAX_CMAX },
		{ rc->has_cmin, MPAMCFG_CMIN, "MPAMCFG_CMIN", 0 },
		{ rc->has_cassoc, MPAMCFG_CASSOC, "MPAMCFG_CASSOC", (uint32_t)MPAMCFG_CASSOC_CASSOC },
		{ rc->intpri_wd || rc->dspri_wd, MPAMCFG_PRI, "MPAMCFG_PRI", highest_priority(rc) },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		int r = regs[i].present ? reset_control(msc, ris, partid, regs[i].offset, regs[i].reg, regs[i].value,
							plan, f, err)
					: 0;
		if (r < 0)
			return r;
	}
	return 0;
}

static int reset_ris(struct msc *msc, unsigned ris, uint16_t partid, json_t *plan, struct findings *f, struct err *err)
{
	const struct msc_ris_caps *rc = &msc->caps.ris[ris];
	int r = rc->has_partid_nrw ? msc_map_intpartid(msc, ris, partid, plan, err) : 0;

	if (r == 0)
		r = reset_bitmap(msc, ris, partid, MPAMCFG_CPBM(0), "MPAMCFG_CPBM", rc->cpbm_wd, plan, f, err);
	if (r == 0)
		r = reset_bitmap(msc, ris, partid, MPAMCFG_MBW_PBM(0), "MPAMCFG_MBW_PBM", rc->pbm_wd, plan, f, err);
	return r == 0 ? reset_registers(msc, ris, partid, plan, f, err) : r;
}

static void report(const struct msc *msc, uint16_t partid, const struct findings *f)
{
	if (f->count)
		log_info("PARTID %u on msc %s: reset %s%s before first use", partid, msc->name, f->text,
			 f->len >= sizeof(f->text) ? "..." : "");
	else
		log_debug("PARTID %u on msc %s: every control was at its reset value before first use", partid,
			  msc->name);
}

int msc_take_over(struct msc *msc, uint16_t partid, json_t *plan, struct err *err)
{
	/* Not cleared whole (768 bytes on every apply of every MSC): a PARTID taken over already never
	 * uses it, and note() writes the text only from len on. */
	struct findings f;
	int r = msc_check_control(msc, partid, plan, err);

	if (r < 0 || msc_taken_over(msc, partid))
		return r;
	f.len = 0;
	f.count = 0;
	f.text[0] = '\0';
	for (unsigned ris = 0; r == 0 && ris < msc->caps.ris_count; ris++)
		r = reset_ris(msc, ris, partid, plan, &f, err);
	if (r < 0 || plan)
		return r;
	mark_taken_over(msc, partid);
	report(msc, partid, &f);
	return 0;
}
