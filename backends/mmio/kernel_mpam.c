#include "backends/mmio/kernel_mpam.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/log.h"

/* A driver directory holds its devices as symbolic links, beside attribute files and, for a module,
 * a "module" link. */
static bool is_device_link(const char *dir, const struct dirent *e)
{
	char path[4096];
	struct stat st;

	if (e->d_name[0] == '.' || !strcmp(e->d_name, "module"))
		return false;
	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_LNK;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
		return false;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

void kernel_mpam_detect(const char *sysfs_root, bool resctrl_control, struct kernel_mpam *ret)
{
	char dir[4096];
	struct dirent *e;

	memset(ret, 0, sizeof(*ret));
	ret->resctrl_control = resctrl_control;
	snprintf(dir, sizeof(dir), "%s%s", sysfs_root, KERNEL_MPAM_DRIVER_DIR);
	DIR *d = opendir(dir);
	if (!d) {
		/* No directory: the driver is not registered (not built, module not loaded). */
		if (errno != ENOENT)
			snprintf(ret->unreadable, sizeof(ret->unreadable), "%.60s: %.30s", dir, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		if (!is_device_link(dir, e))
			continue;
		/* The smallest name, so that messages do not depend on the directory's order. */
		if (!ret->bound++ || strcmp(e->d_name, ret->example) < 0)
			snprintf(ret->example, sizeof(ret->example), "%.*s", (int)sizeof(ret->example) - 1, e->d_name);
	}
	closedir(d);
}

bool kernel_mpam_present(const struct kernel_mpam *k)
{
	return k->resctrl_control || k->bound > 0 || k->unreadable[0];
}

/* "resctrl is the control" / "the kernel's mpam_msc driver is bound to 2 MSCs (ARMHAA5C:00, ...)". */
static void describe_owner(const struct kernel_mpam *k, char *buf, size_t len)
{
	if (k->resctrl_control)
		snprintf(buf, len, "resctrl is the control, so the kernel's MPAM driver drives the MSCs");
	else if (k->bound)
		snprintf(buf, len, "the kernel's MPAM driver (mpam_msc) is bound to %u MSC%s (%s%s)", k->bound,
			 k->bound == 1 ? "" : "s", k->example, k->bound == 1 ? "" : ", ...");
	else
		snprintf(buf, len, "cannot tell whether the kernel's MPAM driver is bound (%s)", k->unreadable);
}

/* Why each use is unsafe beside the kernel, and what does the job instead. */
static const char *const risk[] = {
	[KERNEL_MPAM_MONITORS] =
		"Linux selects monitors through MSMON_CFG_MON_SEL under its own lock: mpamd's accesses would "
		"interleave with its own, read the wrong monitor or raise an MSC error that disables MPAM until "
		"reboot. Use monitor = resctrl on Linux 7.3+ (the kernel's MBWU counters); on 7.1/7.2, which "
		"have none,",
	[KERNEL_MPAM_CONTROLS] =
		"Linux selects partitions through MPAMCFG_PART_SEL and monitors through MSMON_CFG_MON_SEL under "
		"its own locks: mpamd's accesses would interleave with its own, program the wrong PARTID or raise "
		"an MSC error that disables MPAM until reboot. Use backend = resctrl (the kernel programs the "
		"controls), or",
};

static const char *const use_name[] = {
	[KERNEL_MPAM_MONITORS] = "MMIO monitoring",
	[KERNEL_MPAM_CONTROLS] = "MMIO control",
};

int kernel_mpam_allow(const struct config *config, const struct kernel_mpam *k, enum kernel_mpam_use use,
		      bool *ret_beside, struct err *err)
{
	char owner[256];

	*ret_beside = false;
	if (!kernel_mpam_present(k))
		return 0;
	if (config->global.mmio_beside_kernel) {
		*ret_beside = true;
		return 0;
	}
	describe_owner(k, owner, sizeof(owner));
	return err_set(err, -EBUSY, "%s refused: %s. %s set mmio_beside_kernel = yes in [global] to accept the risk",
		       use_name[use], owner, risk[use]);
}

void kernel_mpam_why_not(const struct kernel_mpam *k, enum kernel_mpam_use use, struct err *why)
{
	char owner[256];

	describe_owner(k, owner, sizeof(owner));
	err_set(why, -EBUSY, "%s refused: %s, whose MSMON_CFG_MON_SEL it would race (%s, or mmio_beside_kernel = yes)",
		use_name[use], owner,
		use == KERNEL_MPAM_MONITORS ? "monitor = resctrl on Linux 7.3+" : "backend = resctrl");
}

int kernel_mpam_check(const struct config *config, bool resctrl_control, const char *sysfs_root,
		      enum kernel_mpam_use use, struct msc_probe_opts *access, struct err *err)
{
	struct kernel_mpam k;
	char owner[256];
	bool beside = false;

	kernel_mpam_detect(sysfs_root, resctrl_control, &k);
	int r = kernel_mpam_allow(config, &k, use, &beside, err);
	if (r < 0 || !beside)
		return r;
	describe_owner(&k, owner, sizeof(owner));
	log_warning("mmio_beside_kernel = yes: %s beside the kernel (%s): its MSMON_CFG_MON_SEL and PART_SEL "
		    "selections can interleave with mpamd's, so a read may see the wrong monitor or raise an MSC "
		    "error that disables MPAM until reboot. mpamd writes no monitor while probing and takes the "
		    "highest-numbered monitors first (Linux hands them out from 0).",
		    use_name[use], owner);
	access->beside_kernel = true;
	return 0;
}
