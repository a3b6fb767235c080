/* Runs the resctrl emulator (tests/resctrl-emu) for a test: a private mount point under /tmp, the
 * emulator in the background, and a clean unmount afterwards, also when a test fails or exits
 * early (emulators still running at exit are stopped by an atexit handler, and each dies with the
 * test process). */
#ifndef MPAMD_TESTS_EMU_RUNNER_H
#define MPAMD_TESTS_EMU_RUNNER_H

#include <stdbool.h>

struct emu;

/* Starts the resctrl-emu binary at `emu_path` with --profile `profile`, -c `sim_config_path` when not
 * NULL and the NULL-terminated `extra_args` (may be NULL), and waits until the mount answers.
 * 0 and *ret, or -errno after printing why (with the emulator's output) to stderr. */
int emu_start_path(const char *emu_path, const char *profile, const char *sim_config_path,
		   const char *const *extra_args, struct emu **ret);

#ifdef RESCTRL_EMU
/* The same with the emulator this build made (mpamd_test() defines RESCTRL_EMU for each test, so
 * the path is taken where the test is compiled, not in the shared test library). */
static inline int emu_start(const char *profile, const char *sim_config_path, const char *const *extra_args,
			    struct emu **ret)
{
	return emu_start_path(RESCTRL_EMU, profile, sim_config_path, extra_args, ret);
}
#endif

/* The mount point: the emulated /sys/fs/resctrl. */
const char *emu_root(const struct emu *emu);

/* Whether the emulated resctrl has group `group`. */
bool emu_group_exists(const struct emu *emu, const char *group);
/* Whether file `file` of group `group` holds `text`. */
bool emu_group_file_has(const struct emu *emu, const char *group, const char *file, const char *text);

/* Writes one control command to .emu_ctl: 0 or -errno. */
int emu_ctl(struct emu *emu, const char *command);
/* Moves the emulator's manual clock ("clock manual") on by `ms` milliseconds: 0 or -errno. */
int emu_advance(struct emu *emu, unsigned ms);

/* The writes, mkdirs and rmdirs the emulator took so far ("changes" in .emu_ctl): 0 or -errno. */
int emu_changes(struct emu *emu, unsigned long *ret);
/* The directories listed so far ("listings" in .emu_ctl): 0 or -errno. */
int emu_listings(struct emu *emu, unsigned long *ret);

/* An operator's umount of the emulated resctrl, the emulator left running: plain (-EBUSY while a file
 * of it is open, as the kernel's), or with `lazy` umount -l, after which the emulator serves the files
 * still open and ends once the last is closed (its FUSE connection goes with the superblock), as the
 * kernel frees an unmounted resctrl only then. 0 or -errno. */
int emu_unmount(struct emu *emu, bool lazy);

/* Waits up to `timeout_ms` for the emulator to end by itself: whether it did. */
bool emu_wait_end(struct emu *emu, long timeout_ms);

/* After `vanish` or emu_unmount (the mount went away): waits for the old emulator to end, then starts it again with
 * the same arguments on the same mount point (its -c file must still exist): resctrl unmounted and
 * mounted again. 0 or -errno. */
int emu_restart(struct emu *emu);

/* Stops the emulator (SIGTERM, then SIGKILL), makes sure nothing stays mounted and removes the
 * directory. NULL is fine. Returns 0 when the emulator had ended cleanly (exit status 0), else -1
 * after printing its output: a sanitizer report in the emulator then fails the test's teardown. */
int emu_stop(struct emu *emu);

#endif
