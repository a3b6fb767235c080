/* See emu_info.h. Formats from fs/resctrl/rdtgroup.c (rdt_*_show). */
#include "emu_info.h"

#include <errno.h>

#include "emu_state.h"

int emu_last_cmd_status_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_status_show(&e->status, out);
	return 0;
}

/* rdt_num_closids_show(): the schema's count, halved for the L3 under CDP, not for MB. */
int emu_num_closids_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	emu_buf_printf(out, "%u\n", n->res == EMU_INFO_MB ? e->prof.num_closids : emu_closids(e));
	return 0;
}

int emu_cbm_mask_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%x\n", (unsigned)((UINT64_C(1) << e->prof.cbm_len) - 1));
	return 0;
}

int emu_min_cbm_bits_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->prof.min_cbm_bits);
	return 0;
}

int emu_shareable_bits_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%x\n", e->prof.shareable_bits);
	return 0;
}

int emu_sparse_masks_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->prof.sparse_masks ? 1u : 0u);
	return 0;
}

int emu_min_bandwidth_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->prof.mb_min);
	return 0;
}

int emu_bandwidth_gran_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->prof.mb_gran);
	return 0;
}

int emu_delay_linear_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->prof.delay_linear ? 1u : 0u);
	return 0;
}

int emu_thread_throttle_mode_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%s\n", e->prof.throttle_mode ? e->prof.throttle_mode : "undefined");
	return 0;
}

int emu_num_rmids_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->prof.num_rmids);
	return 0;
}

int emu_mon_features_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	for (int ev = 0; ev < EMU_EVT_COUNT; ev++)
		if (emu_profile_has_event(&e->prof, (enum emu_event)ev))
			emu_buf_printf(out, "%s\n", emu_event_name((enum emu_event)ev));
	return 0;
}

int emu_max_threshold_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%u\n", e->max_threshold);
	return 0;
}

/* max_threshold_occ_write(): the limit is resctrl_rmid_realloc_limit; 7.2 leaves last_cmd_status
 * alone, 7.3 clears it and explains a refusal. */
int emu_max_threshold_write(struct emu *e, const struct emu_node *n, char *buf, size_t len,
			    const struct emu_caller *who)
{
	bool says = emu_kernel_at_least(e, 703);
	unsigned bytes;

	(void)n;
	(void)len;
	(void)who;
	if (says)
		emu_status_clear(&e->status);
	int r = emu_kstrtouint(buf, 0, &bytes);
	if (r) {
		if (says)
			emu_status_printf(&e->status, "max_threshold_occupancy: Invalid input\n");
		return r;
	}
	if (bytes > emu_realloc_limit(&e->prof)) {
		if (says)
			emu_status_printf(&e->status,
					  "max_threshold_occupancy: Exceeds limit (before adjustment) of %u bytes\n",
					  (unsigned)emu_realloc_limit(&e->prof));
		return -EINVAL;
	}
	e->max_threshold = bytes;
	return 0;
}

int emu_ctrl_hw_id_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)e;
	emu_buf_printf(out, "%u\n", n->group->closid);
	return 0;
}

int emu_mon_hw_id_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)e;
	emu_buf_printf(out, "%u\n", n->group->rmid);
	return 0;
}
