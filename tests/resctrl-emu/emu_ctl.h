/* Fault injection and control through the regular file .emu_ctl at the mount root (a file, so no
 * one takes it for a group). One command per write; an unknown or malformed command fails the write
 * with EINVAL. Reading it lists the commands and the current state, with "changes N": the writes,
 * mkdirs, rmdirs and renames that succeeded so far (what a restart that rewrites nothing leaves as it was),
 * "limbo N": the RMIDs in limbo, and "nrdy_waits N": the counter reads that waited for a monitor
 * not ready yet (--nrdy-ms).
 *
 *   fail_write ERRNO [SUFFIX [COUNT [STATUS...]]]
 *                                         the next COUNT writes (default 1; "always": until clear)
 *                                         to a path ending in SUFFIX ("*" or none: any path) fail
 *                                         with ERRNO (a number or a name such as EIO) and change
 *                                         nothing; writes to .emu_ctl do not count. last_cmd_status
 *                                         then reads STATUS (the rest of the line), or "ok" without
 *                                         one, as the kernel's does for an error it has no message
 *                                         for
 *   fail_next_write ERRNO [SUFFIX]        fail_write ERRNO SUFFIX 1
 *   fail_mkdir ERRNO [SUFFIX [COUNT [STATUS...]]]
 *                                         the next COUNT mkdirs (of a path ending in SUFFIX) fail
 *                                         likewise
 *   fail_rmdir ERRNO [SUFFIX [COUNT]]     the next COUNT rmdirs fail likewise
 *   fail_rename ERRNO [SUFFIX [COUNT [STATUS...]]]
 *                                         the next COUNT renames (of a source path ending in
 *                                         SUFFIX) fail likewise
 *   clear                                 every fault disarmed, every counter "ok"
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

/* The errno an armed fault makes this write, mkdir, rmdir or rename (of `path`) fail with, counting it down
 * and setting last_cmd_status; 0: none. */
int emu_faults_take_write(struct emu *e, const char *path);
int emu_faults_take_mkdir(struct emu *e, const char *path);
int emu_faults_take_rmdir(struct emu *e, const char *path);
int emu_faults_take_rename(struct emu *e, const char *path);

#endif
