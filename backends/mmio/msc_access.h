/* How the MSC driver reaches one PARTID's configuration (msc.c, msc_takeover.c): MPAMCFG_PART_SEL
 * written before each control, through the PARTID's intPARTID on an MSC that narrows PARTIDs; or, for
 * a dry run, the write recorded instead. Every index has been checked by the caller. */
#ifndef MPAMD_BACKENDS_MMIO_MSC_ACCESS_H
#define MPAMD_BACKENDS_MMIO_MSC_ACCESS_H

#include <jansson.h>
#include <stdint.h>

#include "backends/mmio/msc.h"

/* Whether mpamd may configure `partid` on the MSC: in range, the controls mpamd's (not resctrl's, not
 * a dry run's unless `plan`), and no erratum that forbids it. */
int msc_check_control(const struct msc *msc, uint16_t partid, const json_t *plan, struct err *err);

/* What a control held before a write (when asked) and reads back after it. */
struct msc_control_values {
	uint32_t before, after;
};

/* Selects `partid`'s configuration on RIS `ris` and writes `value` to the control at `offset` (named
 * `reg` for the plan and messages), then reads it back into ret->after; with `read_before`, reads it
 * first into ret->before. With narrowing the configuration is the intPARTID the PARTID is mapped to,
 * which mpamd keeps equal to the PARTID (msc_map_intpartid), selected with PART_SEL.INTERNAL set.
 * With `plan`, nothing reaches the bus: the write is appended to it and reads back as written (and
 * before as well). */
int msc_write_control(struct msc *msc, unsigned ris, uint16_t partid, uint32_t offset, const char *reg, uint32_t value,
		      bool read_before, struct msc_control_values *ret, json_t *plan);

/* Reads control register `offset` of `partid` on RIS `ris` (MPAMCFG_PART_SEL, then the register). */
int msc_read_control(struct msc *msc, unsigned ris, uint16_t partid, uint32_t offset, uint32_t *ret);

/* On RIS `ris` of an MSC that narrows PARTIDs: maps request PARTID `partid` to the intPARTID of the
 * same number, as Linux maps it (mpam_reprogram_ris_partid), and checks that MPAMCFG_INTPARTID reads
 * it back. With `plan`, the write is only recorded. */
int msc_map_intpartid(struct msc *msc, unsigned ris, uint16_t partid, json_t *plan, struct err *err);

#endif
