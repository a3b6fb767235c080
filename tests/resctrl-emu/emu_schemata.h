/* Allocation: the schemata file (L3 cache bit masks and MB limits per domain, parsed all-or-nothing
 * with the kernel's messages), size, mode (shareable/exclusive), info/L3/bit_usage, and the controls a
 * new CTRL_MON group starts with. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_SCHEMATA_H
#define MPAMD_TESTS_RESCTRL_EMU_SCHEMATA_H

#include "emu_node.h"

/* rdtgroup_init_alloc(): every L3 bit no exclusive group holds, MB at its maximum. 0 or -ENOSPC. */
int emu_schemata_init_group(struct emu *e, struct emu_group *g);
/* The CBM a CLOSID starts with in domain d (of the code CBMs under CDP when `code`): 0 or -ENOSPC
 * with the kernel's message. */
int emu_schemata_init_cbm(struct emu *e, bool code, unsigned closid, unsigned d, uint32_t *ret);
/* parse_cbm() of `text` for a shareable CLOSID: 0 and the CBM, or -EINVAL with the kernel's message. */
int emu_schemata_check_cbm(struct emu *e, bool code, unsigned closid, unsigned d, const char *text, uint32_t *ret);

emu_show_fn emu_schemata_show;
emu_write_fn emu_schemata_write;
emu_show_fn emu_size_show;
emu_show_fn emu_mba_mbps_event_show;
emu_write_fn emu_mba_mbps_event_write;
emu_show_fn emu_mode_show;
emu_write_fn emu_mode_write;
emu_show_fn emu_bit_usage_show;

#endif
