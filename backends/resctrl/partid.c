/* Where the PARTID of a group comes from when the MSCs' MBWU monitors count it beside resctrl (Arm
 * hosts whose resctrl has no bandwidth counters, Linux 7.1 and 7.2): the monitor selects traffic by
 * PARTID, and resctrl chooses the CLOSID (= PARTID) of each group itself. It shows it only in
 * ctrl_hw_id, a file that exists only when resctrl is mounted with -o debug (fs/resctrl/rdtgroup.c:
 * res_common_files[] gives ctrl_hw_id RFTYPE_DEBUG, which rdtgroup_add_files() adds only when
 * resctrl_debug is set by the debug mount option). Without it, the partition's partid key is the
 * operator's word for it; with neither, nothing can be counted, and the partition is refused before
 * its group is made, at start as in check-config --host. Under CDP a CLOSID's traffic carries two
 * PARTIDs (drivers/resctrl/mpam_resctrl.c: resctrl_get_config_index gives 2c for data, 2c + 1 for code)
 * while ctrl_hw_id shows the CLOSID c: refused too. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/resctrl/resctrl.h"
#include "core/config/config.h"

/* The choice monitor = auto makes beside resctrl (core/engine/compose.c): resctrl's own counters when
 * it has some, else the MBWU monitor when [msc] sections exist and the operator opted in; and then
 * only if the MSC windows can be mapped, which the control cannot tell. */
bool resctrl_msc_may_count_groups(const struct resctrl_info *info, const struct config *config)
{
	return !strcmp(config->global.monitor, "auto") && !info->mbm_total && !info->mbm_local &&
	       config->msc_count > 0 && config->global.mmio_beside_kernel;
}

bool resctrl_partid_unknown(const struct resctrl_fs *fs, const struct partition_config *p)
{
	return !fs->info.debug && !p->has_partid;
}

int resctrl_check_partid_source(const struct resctrl_fs *fs, const struct config *config,
				const struct partition_config *p, struct err *err)
{
	char advice[512];

	if (strcmp(config->global.monitor, "mmio"))
		return 0;
	if (fs->info.cdp_l3 || fs->info.cdp_l2)
		return err_set(err, -EOPNOTSUPP,
			       "monitor = mmio counts each group by its PARTID, but %s is mounted with CDP: a group's "
			       "traffic then carries two PARTIDs, 2 x CLOSID for data and 2 x CLOSID + 1 for code, "
			       "and ctrl_hw_id shows the CLOSID; mount resctrl without cdp",
			       fs->root);
	if (!resctrl_partid_unknown(fs, p))
		return 0;
	resctrl_partid_advice(fs, advice, sizeof(advice));
	return err_set(err, -EOPNOTSUPP,
		       "monitor = mmio counts each group by its PARTID, but %s is mounted without -o debug (its groups "
		       "show no ctrl_hw_id) and partition %s has no partid key: %s",
		       fs->root, p->name, advice);
}

void resctrl_partid_advice(const struct resctrl_fs *fs, char *buf, size_t len)
{
	snprintf(buf, len,
		 "mount resctrl with -o debug (umount %s && mount -t resctrl -o debug resctrl %s; unmounting "
		 "removes every group), or set partid = N to the PARTID resctrl gives the group",
		 fs->root, fs->root);
}
