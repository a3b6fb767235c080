/* The FUSE side: mounts the emulator and answers system calls like kernfs answers them for resctrl
 * (every write() is one command, every read from offset 0 renders the file anew, files cannot be
 * created, removed or renamed, mkdir/rmdir make and remove groups). */
#ifndef MPAMD_TESTS_RESCTRL_EMU_FS_H
#define MPAMD_TESTS_RESCTRL_EMU_FS_H

#include <stdbool.h>

struct emu;

/* Mounts at `mountpoint` and serves until SIGINT, SIGTERM or SIGHUP, an unmount, or the vanish
 * command; then unmounts. 0 on a clean end, 1 when mounting or serving failed. `background`: the
 * caller's process returns 0 once the mount is up and a child serves it (fuse_daemonize). */
int emu_fs_run(struct emu *e, const char *mountpoint, bool background);

#endif
