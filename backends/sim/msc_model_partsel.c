/* MPAMCFG_PART_SEL and PARTID narrowing in the MSC model (msc_model.c): which configuration an
 * MPAMCFG access reaches, the request-PARTID-to-intPARTID map MPAMCFG_INTPARTID holds, and which
 * configuration governs a request.
 *
 * The Arm ARM's MPAMCFG_PART_SEL and MPAMCFG_INTPARTID pages say:
 *  - without narrowing, PART_SEL.INTERNAL is RAZ/WI;
 *  - with narrowing, INTERNAL 1 makes PARTID_SEL an intPARTID, for every MPAMCFG register but
 *    MPAMCFG_INTPARTID; an access to any other MPAMCFG register with INTERNAL 0 is an
 *    intPARTID_Range error (6);
 *  - an access to MPAMCFG_INTPARTID with INTERNAL 1 is an Unexpected_INTERNAL error (7);
 *  - a write of MPAMCFG_INTPARTID whose INTPARTID is out of range or whose INTERNAL bit is 0 changes
 *    no mapping and is an intPARTID_Range error.
 * Interpretations where they leave a choice:
 *  - checks run in the order RIS (8), INTERNAL (6 or 7), PARTID_SEL; PARTID_SEL is checked against
 *    INTPARTID_MAX for an intPARTID (6) and PARTID_MAX for a request PARTID (1);
 *  - ESR.PARTID_MON holds PARTID_SEL as selected, for every one of these errors;
 *  - the map is per RIS (Linux selects the RIS when it writes it: mpam_reprogram_ris_partid), and
 *    MPAMCFG_INTPARTID reads back INTERNAL set with the intPARTID mapped;
 *  - MBWU monitors keep matching request PARTIDs (msc_model_count is given the request's).
 */
#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/msc_model_internal.h"

void msc_model_config_select(struct msc_model *m, uint32_t value)
{
	uint32_t kept = (uint32_t)(MPAMCFG_PART_SEL_PARTID_SEL | MPAMCFG_PART_SEL_RIS);

	/* INGRESS_TL and DEFAULT_PARTID are RAZ/WI (no TL, no default PARTID), and so is INTERNAL
	 * without narrowing. RIS is kept even without HAS_RIS so that a wrong selection raises error 8
	 * on the next MPAMCFG access. */
	if (m->p.has_partid_nrw)
		kept |= (uint32_t)MPAMCFG_PART_SEL_INTERNAL;
	m->part_sel = value & kept;
}

static unsigned selected_ris(const struct msc_model *m)
{
	return (unsigned)mpam_field_get(MPAMCFG_PART_SEL_RIS, m->part_sel);
}

static uint16_t selected_partid(const struct msc_model *m)
{
	return (uint16_t)mpam_field_get(MPAMCFG_PART_SEL_PARTID_SEL, m->part_sel);
}

static bool internal_selected(const struct msc_model *m)
{
	return (m->part_sel & MPAMCFG_PART_SEL_INTERNAL) != 0;
}

/* Raises `errcode` for the current selection. */
static bool refuse(struct msc_model *m, unsigned errcode)
{
	msc_model_raise_error(m, errcode, selected_partid(m), 0, selected_ris(m));
	return false;
}

bool msc_model_selected_cfg(struct msc_model *m, unsigned *ret_ris, unsigned *ret_index)
{
	unsigned ris = selected_ris(m);
	uint16_t id = selected_partid(m);

	if (!ris_exists(m, ris))
		return refuse(m, MPAM_ERR_UNDEF_RIS_PART_SEL);
	if (m->p.has_partid_nrw && !internal_selected(m))
		return refuse(m, MPAM_ERR_INTPARTID_RANGE);
	if (m->p.has_partid_nrw && id > m->p.intpartid_max)
		return refuse(m, MPAM_ERR_INTPARTID_RANGE);
	if (!m->p.has_partid_nrw && id > m->p.partid_max)
		return refuse(m, MPAM_ERR_PARTID_SEL_RANGE);
	*ret_ris = ris;
	*ret_index = id;
	return true;
}

/* The request PARTID an MPAMCFG_INTPARTID access selects, or false after raising its error. */
static bool selected_request(struct msc_model *m, unsigned *ret_ris, uint16_t *ret_partid)
{
	if (!ris_exists(m, selected_ris(m)))
		return refuse(m, MPAM_ERR_UNDEF_RIS_PART_SEL);
	if (internal_selected(m))
		return refuse(m, MPAM_ERR_UNEXPECTED_INTERNAL);
	if (selected_partid(m) > m->p.partid_max)
		return refuse(m, MPAM_ERR_PARTID_SEL_RANGE);
	*ret_ris = selected_ris(m);
	*ret_partid = selected_partid(m);
	return true;
}

uint32_t msc_model_intpartid_read(struct msc_model *m)
{
	unsigned ris;
	uint16_t partid;

	if (!selected_request(m, &ris, &partid))
		return 0;
	return (uint32_t)MPAMCFG_INTPARTID_INTERNAL | m->ris[ris].intpartid_of[partid];
}

void msc_model_intpartid_write(struct msc_model *m, uint32_t value)
{
	unsigned ris;
	uint16_t partid;
	uint16_t intpartid = (uint16_t)mpam_field_get(MPAMCFG_INTPARTID_INTPARTID, value);

	if (!selected_request(m, &ris, &partid))
		return;
	if (!(value & MPAMCFG_INTPARTID_INTERNAL) || intpartid > m->p.intpartid_max) {
		refuse(m, MPAM_ERR_INTPARTID_RANGE);
		return;
	}
	m->ris[ris].intpartid_of[partid] = intpartid;
}

long msc_model_cfg_of_request(const struct msc_model *m, unsigned ris, uint16_t partid)
{
	if (!ris_exists(m, ris) || partid > m->p.partid_max)
		return -1;
	return m->p.has_partid_nrw ? m->ris[ris].intpartid_of[partid] : partid;
}
