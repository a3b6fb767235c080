/* The MMIO backend's machinery over any set of MSC buses: the real one (/dev/mem windows from the
 * config's [msc] sections) and the simulator's (backends/sim) share it. */
#ifndef MPAMD_BACKENDS_MMIO_MMIO_BACKEND_H
#define MPAMD_BACKENDS_MMIO_MMIO_BACKEND_H

#include "backends/backend.h"
#include "backends/mmio/bus.h"

struct mmio_backend;

/* Maps the first `count` [msc] windows of the config from /dev/mem into buses[0..count-1]. On failure
 * nothing stays mapped and err names the MSC and why. */
int mmio_map_config_windows(const struct config *config, size_t count, struct msc_bus **buses, struct err *err);

/* Probes every bus (taking ownership of all of them, also on failure). */
int mmio_backend_create(const struct config *config, struct msc_bus **buses, const char *const *names, size_t count,
			bool monitor_only, struct mmio_backend **ret, struct err *err);
void mmio_backend_destroy(struct mmio_backend *mb);

void mmio_backend_caps(struct mmio_backend *mb, struct backend_caps *ret);
int mmio_backend_partition_open(struct mmio_backend *mb, size_t index, const struct partition_config *p,
				struct err *err);
/* Monitor-only use (resctrl owns the controls): measures partition `index` as `partid`. */
int mmio_backend_add_monitored(struct mmio_backend *mb, size_t index, uint16_t partid, struct err *err);
int mmio_backend_apply(struct mmio_backend *mb, size_t index, const struct partition_limits *limits,
		       struct partition_limits *effective, struct err *err);
int mmio_backend_read(struct mmio_backend *mb, uint64_t now_ns, struct sample *samples, struct err *err);
json_t *mmio_backend_describe(struct mmio_backend *mb);

#endif
