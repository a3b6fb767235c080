/* Fault injection and control through the regular file .emu_ctl at the mount root (a file, so no
 * one takes it for a group). One command per write; an unknown or malformed command fails the write
 * with EINVAL. Reading it lists the commands and the current state.
 *
 *   fail_next_write ERRNO [PATH_SUFFIX]   the next write (to a path ending in PATH_SUFFIX) fails
 *                                         with ERRNO (a number or a name such as EIO) and changes
 *                                         nothing (writes to .emu_ctl do not count)
 *   fail_mkdir ERRNO                      the next mkdir fails likewise
 *   counter GROUP DOMAIN EVENT STATE      mon_data/mon_<RES>_DOMAIN/EVENT of GROUP ("." for the
 *                                         default group, else its path such as g/mon_groups/m) reads
 *                                         as STATE: ok, unavailable, error or unassigned, or
 *                                         zero (reads 0 while it keeps counting, until ok);
 *                                         reset (an MBM event only): the count restarts from 0
 *                                         now and goes on counting. Each applies to GROUP's own
 *                                         count: a CTRL_MON group's file still adds its MON
 *                                         groups', as the kernel adds each RMID that reads
 *   clock manual | clock real             freeze time / follow CLOCK_MONOTONIC again
 *   advance MS                            step frozen time by MS milliseconds
 *   vanish                                unmount and exit */
#ifndef MPAMD_TESTS_RESCTRL_EMU_CTL_H
#define MPAMD_TESTS_RESCTRL_EMU_CTL_H

#include "emu_node.h"

#define EMU_CTL_NAME ".emu_ctl"

emu_show_fn emu_ctl_show;
emu_write_fn emu_ctl_write;

/* The errno an armed fault makes this write (to `path`) or mkdir fail with, disarming it; 0: none. */
int emu_faults_take_write(struct emu *e, const char *path);
int emu_faults_take_mkdir(struct emu *e);

#endif
