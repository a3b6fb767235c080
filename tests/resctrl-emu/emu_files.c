/* The file tables: which files each kind of directory holds, their modes (as the kernel creates
 * them) and their handlers. A file is present only where its flags allow (see emu_node.h). */
#include <stddef.h>
#include <stdio.h>

#include "emu_assign.h"
#include "emu_counters.h"
#include "emu_cpus.h"
#include "emu_ctl.h"
#include "emu_info.h"
#include "emu_io_alloc.h"
#include "emu_node.h"
#include "emu_schemata.h"
#include "emu_state.h"
#include "emu_tasks.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define GROUPS	 (EMU_F_CTRL | EMU_F_MON)

static const struct emu_file group_files[] = {
	{ "cpus", 0644, emu_cpus_show, emu_cpus_write, GROUPS, 0 },
	{ "cpus_list", 0644, emu_cpus_list_show, emu_cpus_list_write, GROUPS, 0 },
	{ "ctrl_hw_id", 0444, emu_ctrl_hw_id_show, NULL, EMU_F_CTRL | EMU_F_DEBUG, 0 },
	{ "mbm_%s_assignments", 0644, emu_assignments_show, emu_assignments_write,
	  GROUPS | EMU_F_ASSIGN | EMU_F_RESNAME, 0 },
	{ "mba_MBps_event", 0644, emu_mba_mbps_event_show, emu_mba_mbps_event_write, EMU_F_CTRL | EMU_F_MBA_SC, 0 },
	{ "mode", 0644, emu_mode_show, emu_mode_write, EMU_F_CTRL, 0 },
	{ "mon_hw_id", 0444, emu_mon_hw_id_show, NULL, GROUPS | EMU_F_DEBUG, 0 },
	{ "schemata", 0644, emu_schemata_show, emu_schemata_write, EMU_F_CTRL, 0 },
	{ "size", 0444, emu_size_show, NULL, EMU_F_CTRL, 0 },
	{ "tasks", 0644, emu_tasks_show, emu_tasks_write, GROUPS, 0 },
};

static const struct emu_file mon_data_files[] = {
	{ "llc_occupancy", 0444, emu_mondata_show, NULL, EMU_F_EVENT, EMU_EVT_LLC },
	{ "mbm_total_bytes", 0444, emu_mondata_show, NULL, EMU_F_EVENT, EMU_EVT_TOTAL },
	{ "mbm_local_bytes", 0444, emu_mondata_show, NULL, EMU_F_EVENT, EMU_EVT_LOCAL },
};

static const struct emu_file info_top_files[] = {
	{ "last_cmd_status", 0444, emu_last_cmd_status_show, NULL, 0, 0 },
};

static const struct emu_file info_l3_files[] = {
	{ "bit_usage", 0444, emu_bit_usage_show, NULL, 0, 0 },
	{ "cbm_mask", 0444, emu_cbm_mask_show, NULL, 0, 0 },
	{ "io_alloc", 0644, emu_io_alloc_show, emu_io_alloc_write, EMU_F_IO_ALLOC, 0 },
	{ "io_alloc_cbm", 0644, emu_io_alloc_cbm_show, emu_io_alloc_cbm_write, EMU_F_IO_ALLOC, 0 },
	{ "min_cbm_bits", 0444, emu_min_cbm_bits_show, NULL, 0, 0 },
	{ "num_closids", 0444, emu_num_closids_show, NULL, 0, 0 },
	{ "shareable_bits", 0444, emu_shareable_bits_show, NULL, 0, 0 },
	{ "sparse_masks", 0444, emu_sparse_masks_show, NULL, 0, 0 },
};

static const struct emu_file info_mb_files[] = {
	{ "bandwidth_gran", 0444, emu_bandwidth_gran_show, NULL, 0, 0 },
	{ "delay_linear", 0444, emu_delay_linear_show, NULL, 0, 0 },
	{ "min_bandwidth", 0444, emu_min_bandwidth_show, NULL, 0, 0 },
	{ "num_closids", 0444, emu_num_closids_show, NULL, 0, 0 },
	{ "thread_throttle_mode", 0444, emu_thread_throttle_mode_show, NULL, EMU_F_THROTTLE, 0 },
};

static const struct emu_file info_l3_mon_files[] = {
	{ "available_mbm_cntrs", 0444, emu_available_cntrs_show, NULL, EMU_F_ASSIGN, 0 },
	{ "max_threshold_occupancy", 0644, emu_max_threshold_show, emu_max_threshold_write, 0, 0 },
	{ "mbm_assign_mode", 0644, emu_assign_mode_show, emu_assign_mode_write, 0, 0 },
	{ "mbm_assign_on_mkdir", 0644, emu_assign_on_mkdir_show, emu_assign_on_mkdir_write, EMU_F_ASSIGN, 0 },
	{ "mon_features", 0444, emu_mon_features_show, NULL, 0, 0 },
	{ "num_mbm_cntrs", 0444, emu_num_cntrs_show, NULL, EMU_F_ASSIGN, 0 },
	{ "num_rmids", 0444, emu_num_rmids_show, NULL, 0, 0 },
};

static const struct emu_file event_config_files[] = {
	{ "event_filter", 0444, emu_event_filter_show, emu_event_filter_write, EMU_F_CONFIGURABLE, 0 },
};

static const struct emu_file ctl_file = { EMU_CTL_NAME, 0600, emu_ctl_show, emu_ctl_write, 0, 0 };

const struct emu_file *emu_files_of(enum emu_node_kind dir, enum emu_info_res res, size_t *count)
{
	static const struct {
		const struct emu_file *files;
		size_t count;
	} info[EMU_INFO_COUNT] = {
		[EMU_INFO_TOP] = { info_top_files, COUNT(info_top_files) },
		[EMU_INFO_L3] = { info_l3_files, COUNT(info_l3_files) },
		[EMU_INFO_L3DATA] = { info_l3_files, COUNT(info_l3_files) },
		[EMU_INFO_MB] = { info_mb_files, COUNT(info_mb_files) },
		[EMU_INFO_L3_MON] = { info_l3_mon_files, COUNT(info_l3_mon_files) },
	};

	switch (dir) {
	case EMU_N_GROUP:
		*count = COUNT(group_files);
		return group_files;
	case EMU_N_MON_DOMAIN:
		*count = COUNT(mon_data_files);
		return mon_data_files;
	case EMU_N_EVENT_CONFIG:
		*count = COUNT(event_config_files);
		return event_config_files;
	case EMU_N_INFO:
	case EMU_N_INFO_RES:
		*count = info[res].count;
		return info[res].files;
	default:
		*count = 0;
		return NULL;
	}
}

bool emu_file_present(const struct emu *e, const struct emu_node *dir, const struct emu_file *f)
{
	if (dir->kind == EMU_N_GROUP && !(f->flags & (dir->group->is_mon ? EMU_F_MON : EMU_F_CTRL)))
		return false;
	if ((f->flags & EMU_F_DEBUG) && !emu_debug(e))
		return false;
	if ((f->flags & EMU_F_ASSIGN) && !e->prof.cntr_assignable)
		return false;
	if ((f->flags & EMU_F_THROTTLE) && !e->prof.throttle_mode)
		return false;
	if ((f->flags & EMU_F_MBA_SC) && !e->prof.mba_sc)
		return false;
	if ((f->flags & EMU_F_IO_ALLOC) && !e->prof.io_alloc_capable)
		return false;
	return !(f->flags & EMU_F_EVENT) || emu_profile_has_event(&e->prof, (enum emu_event)f->event);
}

/* resctrl_l3_mon_resource_init(): event_filter is 0644 with mbm_cntr_configurable. */
unsigned emu_file_mode(const struct emu *e, const struct emu_file *f)
{
	return (f->flags & EMU_F_CONFIGURABLE) && e->prof.cntr_configurable ? 0644 : f->mode;
}

const struct emu_file *emu_ctl_file(void)
{
	return &ctl_file;
}

const char *emu_info_res_name(const struct emu *e, enum emu_info_res res)
{
	static char mon_name[32];

	switch (res) {
	case EMU_INFO_L3:
		return e->prof.cdp ? "L3CODE" : "L3";
	case EMU_INFO_L3DATA:
		return "L3DATA";
	case EMU_INFO_MB:
		return "MB";
	case EMU_INFO_L3_MON:
		snprintf(mon_name, sizeof(mon_name), "%s_MON", emu_mon_res(&e->prof));
		return mon_name;
	case EMU_INFO_TOP:
	case EMU_INFO_COUNT:
	default:
		return "";
	}
}

bool emu_info_res_present(const struct emu *e, enum emu_info_res res)
{
	switch (res) {
	case EMU_INFO_L3DATA:
		return e->prof.cdp;
	case EMU_INFO_MB:
		return emu_has_mb(e);
	case EMU_INFO_TOP:
	case EMU_INFO_L3:
	case EMU_INFO_L3_MON:
	case EMU_INFO_COUNT:
	default:
		return true;
	}
}

const char *emu_file_name(const struct emu *e, const struct emu_file *f, char *buf, size_t len)
{
	if (!(f->flags & EMU_F_RESNAME))
		return f->name;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, len, f->name, emu_mon_res(&e->prof));
#pragma GCC diagnostic pop
	return buf;
}

void emu_domain_name(const struct emu *e, unsigned domain, char *buf, size_t len)
{
	snprintf(buf, len, "mon_%s_%02u", emu_mon_res(&e->prof), domain);
}
