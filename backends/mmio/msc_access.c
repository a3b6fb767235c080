#include "backends/mmio/msc_access.h"

#include <errno.h>
#include <stdio.h>

#include "backends/mmio/quirks.h"
#include "backends/mpam/mpam_regs.h"

int msc_check_control(const struct msc *msc, uint16_t partid, const json_t *plan, struct err *err)
{
	if (partid > msc->caps.partid_max)
		return err_set(err, -ERANGE, "PARTID %u is above the MSC's %s %u", partid,
			       msc_narrows_partids(msc) ? "INTPARTID_MAX" : "PARTID_MAX", msc->caps.partid_max);
	if (msc->access.monitor_only)
		return err_set(err, -EPERM, "controls of this MSC belong to resctrl");
	if (msc->access.plan_only && !plan)
		return err_set(err, -EPERM, "this MSC was opened to plan only");
	const char *refused = msc_quirks_controls_refused(msc->caps.quirks);
	return refused ? err_set(err, -EPERM, "%s", refused) : 0;
}

/* The plan's record of a write: {"what", "msc", "ris", "partid", "value"}, and "intpartid" for a
 * configuration reached through one. */
static int record(json_t *plan, const struct msc *msc, unsigned ris, uint16_t partid, const char *reg, uint32_t value,
		  int intpartid)
{
	char hex[16];

	snprintf(hex, sizeof(hex), "0x%08x", value);
	json_t *w = json_pack("{s:s,s:s,s:I,s:I,s:s}", "what", reg, "msc", msc->name, "ris", (json_int_t)ris, "partid",
			      (json_int_t)partid, "value", hex);
	if (w && intpartid >= 0)
		json_object_set_new(w, "intpartid", json_integer(intpartid));
	return w && json_array_append_new(plan, w) == 0 ? 0 : -ENOMEM;
}

/* MPAMCFG_PART_SEL for a control of `partid` on `ris`: with narrowing, the intPARTID mpamd mapped it
 * to (the same number) with INTERNAL set, for every MPAMCFG register but MPAMCFG_INTPARTID. */
static uint32_t control_sel(const struct msc_ris_caps *rc, unsigned ris, uint16_t partid)
{
	return rc->has_partid_nrw ? mpamcfg_int_part_sel(ris, partid) : mpamcfg_part_sel(ris, partid);
}

int msc_write_control(struct msc *msc, unsigned ris, uint16_t partid, uint32_t offset, const char *reg, uint32_t value,
		      bool read_before, struct msc_control_values *ret, json_t *plan)
{
	const struct msc_ris_caps *rc = &msc->caps.ris[ris];

	if (plan) {
		ret->before = ret->after = value;
		return record(plan, msc, ris, partid, reg, value, rc->has_partid_nrw ? partid : -1);
	}
	int r = bus_write32(msc->bus, MPAMCFG_PART_SEL, control_sel(rc, ris, partid));

	if (r == 0 && read_before)
		r = bus_read32(msc->bus, offset, &ret->before);
	if (r == 0)
		r = bus_write32(msc->bus, offset, value);
	if (r == 0)
		r = bus_read32(msc->bus, offset, &ret->after);
	return r;
}

int msc_read_control(struct msc *msc, unsigned ris, uint16_t partid, uint32_t offset, uint32_t *ret)
{
	int r = bus_write32(msc->bus, MPAMCFG_PART_SEL, control_sel(&msc->caps.ris[ris], ris, partid));

	return r == 0 ? bus_read32(msc->bus, offset, ret) : r;
}

int msc_map_intpartid(struct msc *msc, unsigned ris, uint16_t partid, json_t *plan, struct err *err)
{
	uint32_t want = (uint32_t)MPAMCFG_INTPARTID_INTERNAL | partid, got = want;
	int r;

	if (plan)
		r = record(plan, msc, ris, partid, "MPAMCFG_INTPARTID", want, -1);
	else if ((r = bus_write32(msc->bus, MPAMCFG_PART_SEL, mpamcfg_part_sel(ris, partid))) == 0 &&
		 (r = bus_write32(msc->bus, MPAMCFG_INTPARTID, want)) == 0)
		r = bus_read32(msc->bus, MPAMCFG_INTPARTID, &got);
	if (r < 0)
		return err_set(err, r, "RIS %u: cannot map PARTID %u to intPARTID %u", ris, partid, partid);
	if ((got & (MPAMCFG_INTPARTID_INTPARTID | MPAMCFG_INTPARTID_INTERNAL)) != want)
		return err_set(err, -EIO, "RIS %u: MPAMCFG_INTPARTID of PARTID %u reads back 0x%x after writing 0x%x",
			       ris, partid, got, want);
	return 0;
}
