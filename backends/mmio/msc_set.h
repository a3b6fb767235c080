/* The MSCs one mpamd drives, probed: the MMIO control programs their partition controls and the MBWU
 * monitor reads their monitors, whether they sit behind /dev/mem windows (the [msc] sections) or are
 * the simulator's register models. Whoever creates the set owns it; the other borrows it. */
#ifndef MPAMD_BACKENDS_MMIO_MSC_SET_H
#define MPAMD_BACKENDS_MMIO_MSC_SET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/claim.h"
#include "backends/mmio/bus.h"
#include "backends/mmio/msc.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* Real MSCs change by themselves; the simulator's only when told. These let the simulator run its
 * traffic up to the moment monitors are read, and check the driver's accesses afterwards. */
struct msc_set_hooks {
	void *ctx;
	void (*sync)(void *ctx, uint64_t now_ns);
	void (*after_read)(void *ctx);
};

/* Where a real host's sysfs is (the SoC id, the kernel's MPAM driver). */
#define SYSFS_ROOT "/sys"

struct msc_set {
	struct msc *mscs;
	size_t count;
	struct msc_probe_opts access; /* how every MSC was probed (another owner has the controls, the
				       * kernel's MPAM driver is bound too) */
	struct msc_set_hooks hooks;
};

/* Probes `count` MSCs behind `buses` (taking every bus, also on failure), named `names`, as `access`
 * allows. A stale error status is reported (and cleared when the probe may). */
int msc_set_new(struct msc_bus **buses, const char *const *names, size_t count, const struct msc_probe_opts *access,
		struct msc_set **ret, struct err *err);
/* Maps the config's [msc] windows from /dev/mem and probes them, with the SoC id the host's sysfs
 * tells (access->soc is replaced). */
int msc_set_new_from_config(const struct config *config, const struct msc_probe_opts *access, struct msc_set **ret,
			    struct err *err);
void msc_set_free(struct msc_set *set);
/* The claim (claim.h) of whoever maps the config's [msc] windows (the MMIO control, the MBWU monitor
 * beside a control that lends no MSCs): each window, by its base address. */
int msc_set_claim_windows(const struct config *config, const struct claim_sink *sink, struct err *err);

/* The simulator's hook around monitor reads; no-ops for real hardware. */
static inline void msc_set_sync(struct msc_set *set, uint64_t now_ns)
{
	if (set->hooks.sync)
		set->hooks.sync(set->hooks.ctx, now_ns);
}

static inline void msc_set_after_read(struct msc_set *set)
{
	if (set->hooks.after_read)
		set->hooks.after_read(set->hooks.ctx);
}

/* How mpamd asks for MBW_MAX limits on every MSC from now on: hard (HARDLIM set) where an MSC lets
 * software choose, or soft ([global] mb_max_mode). An MSC whose MPAMF_MBW_IDR.MAX_LIM fixes the other
 * kind is named in a warning, once. */
void msc_set_limit_mode(struct msc_set *set, bool hard);

/* Every MSC's ID registers as probed, for `mpamctl discover`. */
json_t *msc_set_describe(const struct msc_set *set);

#endif
