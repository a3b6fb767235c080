/* The read-only facts under info/ (and the debug ID files of groups): what the profile's hardware
 * offers, in the kernel's exact formats (decimal, bare hex, one event per line). */
#ifndef MPAMD_TESTS_RESCTRL_EMU_INFO_H
#define MPAMD_TESTS_RESCTRL_EMU_INFO_H

#include "emu_node.h"

emu_show_fn emu_last_cmd_status_show;
emu_show_fn emu_num_closids_show;
emu_show_fn emu_cbm_mask_show;
emu_show_fn emu_min_cbm_bits_show;
emu_show_fn emu_shareable_bits_show;
emu_show_fn emu_sparse_masks_show;
emu_show_fn emu_min_bandwidth_show;
emu_show_fn emu_bandwidth_gran_show;
emu_show_fn emu_delay_linear_show;
emu_show_fn emu_thread_throttle_mode_show;
emu_show_fn emu_num_rmids_show;
emu_show_fn emu_mon_features_show;
emu_show_fn emu_max_threshold_show;
emu_write_fn emu_max_threshold_write;
emu_show_fn emu_ctrl_hw_id_show;
emu_show_fn emu_mon_hw_id_show;

#endif
