/* io_alloc (Linux 7.2+, fs/resctrl/ctrlmondata.c resctrl_io_alloc_*; x86 L3 with SDCIAE, AMD):
 * info/L3/io_alloc ("enabled", "disabled") and info/L3/io_alloc_cbm, present only where the L3 is
 * io_alloc capable (rdtgroup.c io_alloc_init; under CDP in both L3CODE and L3DATA). Enabling it takes
 * the highest CLOSID for the devices' traffic (resctrl_io_alloc_closid: num_closids - 1, under CDP
 * num_closids / 2 - 1), which then no group can have; a group already holding it makes the write fail
 * with ENOSPC. Its CBM starts as a new group's would and is kept the same for code and data under CDP;
 * bit_usage shows it as the hardware's. Arm MPAM is never io_alloc capable. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_IO_ALLOC_H
#define MPAMD_TESTS_RESCTRL_EMU_IO_ALLOC_H

#include "emu_node.h"

/* The CLOSID io_alloc takes. */
unsigned emu_io_alloc_closid(const struct emu *e);

emu_show_fn emu_io_alloc_show;
emu_write_fn emu_io_alloc_write;
emu_show_fn emu_io_alloc_cbm_show;
emu_write_fn emu_io_alloc_cbm_write;

#endif
