/* CLOSID and RMID allocation, as fs/resctrl does it (Linux 7.3; rdtgroup.c closid_alloc, monitor.c
 * alloc_rmid, free_rmid, __check_limbo, cqm_handle_limbo, resctrl_find_cleanest_closid).
 *
 * CLOSIDs: the lowest free one; but where RMIDs depend on the CLOSID (MPAM: an RMID is a (PARTID, PMG)
 * pair) and llc_occupancy is monitored, the free CLOSID with the fewest RMIDs in limbo, the first
 * with none.
 * RMIDs: a free list, least recently freed first; on MPAM only an entry of the group's CLOSID will do.
 * No entry: EBUSY while some RMID is in limbo and the list is empty, else ENOSPC ("Out of RMIDs").
 * Limbo: with llc_occupancy monitored, a freed RMID (rmdir, or a mkdir that failed after taking it) is
 * dirty in every domain and reusable only once its occupancy there has dropped below
 * max_threshold_occupancy. A domain's limbo worker first runs CQM_LIMBOCHECK_INTERVAL (1000 ms) after
 * its first dirty RMID, then every 1000 ms while it has any, on the emulator's clock (so "clock manual"
 * and "advance" drive it). The lines a removed group held fade with the cache's other traffic: the
 * emulator halves its occupancy of each domain every --llc-half-life-ms (0: at once; the worker still
 * has to run). */
#ifndef MPAMD_TESTS_RESCTRL_EMU_IDS_H
#define MPAMD_TESTS_RESCTRL_EMU_IDS_H

#include <stdbool.h>

struct emu;
struct emu_group;

#define EMU_LIMBO_CHECK_MS 1000u /* fs/resctrl/internal.h CQM_LIMBOCHECK_INTERVAL */

void emu_ids_init(struct emu *e);
/* A CLOSID for a new CTRL_MON group, or -ENOSPC. */
int emu_closid_alloc(struct emu *e);
void emu_closid_free(struct emu *e, unsigned closid);
/* closid_alloc_fixed(): takes that CLOSID if it is free; whether it was. */
bool emu_closid_take(struct emu *e, unsigned closid);
/* An RMID for g, usable with g->closid: 0, -EBUSY or -ENOSPC (see above). */
int emu_rmid_alloc(struct emu *e, struct emu_group *g);
/* g's RMID goes back: into limbo, with the occupancy g has now, or straight to the free list. */
void emu_rmid_free(struct emu *e, struct emu_group *g);
/* mongrp_reparent() gave g its new parent's CLOSID: where RMIDs depend on the CLOSID its RMID now
 * names another index (the same PMG in the new PARTID). The old index is neither freed nor reused,
 * as the kernel forgets it; rmdir frees the new one. */
void emu_rmid_reparented(struct emu *e, struct emu_group *g);
/* Runs the limbo checks that are due by now; call before an RMID is allocated. */
void emu_limbo_run(struct emu *e);
unsigned emu_limbo_count(const struct emu *e);

#endif
