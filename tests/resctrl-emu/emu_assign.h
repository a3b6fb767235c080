/* Counter assignment ("mbm_event" mode: AMD ABMC, Linux 7.3 MPAM): each domain has num_mbm_cntrs counters; in
 * mbm_event mode an MBM event of a group counts only while it holds one, and reads "Unassigned"
 * otherwise. Files: info/L3_MON/{mbm_assign_mode,num_mbm_cntrs,available_mbm_cntrs,
 * mbm_assign_on_mkdir}, info/L3_MON/event_configs/<event>/event_filter and each group's
 * mbm_<RES>_assignments. Profiles without assignable counters
 * still have mbm_assign_mode, reading "[default]", as kernels since 6.18 do. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_ASSIGN_H
#define MPAMD_TESTS_RESCTRL_EMU_ASSIGN_H

#include "emu_node.h"

/* Before the default group is created: mbm_event mode on when the profile can assign counters. */
void emu_assign_init(struct emu *e);
/* mkdir (and mount, for the default group): with mbm_assign_on_mkdir, take counters for every MBM
 * event in every domain while any are free; failures only leave messages in last_cmd_status. */
void emu_assign_group_new(struct emu *e, struct emu_group *g);
/* rmdir: give the group's counters back. */
void emu_assign_group_free(struct emu *e, struct emu_group *g);

emu_show_fn emu_assign_mode_show;
emu_write_fn emu_assign_mode_write;
emu_show_fn emu_num_cntrs_show;
emu_show_fn emu_available_cntrs_show;
emu_show_fn emu_assign_on_mkdir_show;
emu_write_fn emu_assign_on_mkdir_write;
emu_show_fn emu_assignments_show;
emu_write_fn emu_assignments_write;
emu_show_fn emu_event_filter_show;
emu_write_fn emu_event_filter_write;

#endif
