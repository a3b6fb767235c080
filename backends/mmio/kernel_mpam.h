/* Whether the kernel's MPAM driver drives the MSCs mpamd would reach over MMIO, and whether mpamd may
 * touch them anyway.
 *
 * Linux selects a monitor by writing MSMON_CFG_MON_SEL and then reads or programs it, under a lock of
 * its own; PART_SEL works the same way for the controls. Accesses from user space interleave with the
 * kernel's: either side may read or program the wrong monitor or an index out of range, and an MSC
 * error makes the kernel disable MPAM until reboot. So mpamd refuses, unless the operator said that
 * the risk is accepted ([global] mmio_beside_kernel). */
#ifndef MPAMD_BACKENDS_MMIO_KERNEL_MPAM_H
#define MPAMD_BACKENDS_MMIO_KERNEL_MPAM_H

#include <stdbool.h>

#include "backends/mmio/msc.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* The kernel's MSC platform driver, under the sysfs root. */
#define KERNEL_MPAM_DRIVER_DIR "/bus/platform/drivers/mpam_msc"

struct kernel_mpam {
	bool resctrl_control;		/* resctrl is the control: on an MPAM host, the kernel's MPAM driver */
	unsigned bound;			/* MSC devices bound to the kernel's mpam_msc driver */
	char example[NAME_MAX_LEN + 1]; /* the first of them, for messages */
	char unreadable[96];		/* why the driver directory could not be read ("" when it could) */
};

/* Looks for devices bound to mpam_msc under `sysfs_root` (no such directory: none). Never fails:
 * a directory that exists but cannot be read is recorded in `unreadable`, and counts as a driver
 * that may be bound. */
void kernel_mpam_detect(const char *sysfs_root, bool resctrl_control, struct kernel_mpam *ret);

/* What mpamd would do over MMIO beside the kernel. */
enum kernel_mpam_use {
	KERNEL_MPAM_MONITORS, /* read MBWU monitors (monitor = mmio) */
	KERNEL_MPAM_CONTROLS, /* program partition controls (backend = mmio) */
};

/* True when the kernel's MPAM driver drives (or may drive) the MSCs. */
bool kernel_mpam_present(const struct kernel_mpam *k);

/* Whether `use` may go ahead beside the kernel: 0 when its driver is absent; 0 and *ret_beside set
 * when it is present and the configuration opted in (mmio_beside_kernel); otherwise -EBUSY and, in
 * err, why and what to use instead. Logs nothing (monitor = auto asks without opening). */
int kernel_mpam_allow(const struct config *config, const struct kernel_mpam *k, enum kernel_mpam_use use,
		      bool *ret_beside, struct err *err);

/* The short form of a refusal, for monitor = auto's list of monitors it could not use. */
void kernel_mpam_why_not(const struct kernel_mpam *k, enum kernel_mpam_use use, struct err *why);

/* Both in one, for the MMIO control and monitor as they open: detects the kernel's driver under
 * `sysfs_root`, allows `use` or refuses it, and when the configuration opted in marks `access`
 * beside_kernel and warns in the log of the risk taken. */
int kernel_mpam_check(const struct config *config, bool resctrl_control, const char *sysfs_root,
		      enum kernel_mpam_use use, struct msc_probe_opts *access, struct err *err);

#endif
