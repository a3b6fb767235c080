/* backend = resctrl. Tests open it with simulated MSC buses for the hybrid mode (resctrl controls,
 * MMIO monitors); production maps the [msc] windows from /dev/mem. */
#ifndef MPAMD_BACKENDS_RESCTRL_RESCTRL_BACKEND_H
#define MPAMD_BACKENDS_RESCTRL_RESCTRL_BACKEND_H

#include "backends/backend.h"
#include "backends/mmio/bus.h"

/* Like backend_resctrl_ops.open, with the buses of the MSCs whose monitors are read when monitors
 * come from MMIO (taken over, also on failure). */
int resctrl_backend_open_with_buses(const struct config *config, struct msc_bus **buses, size_t bus_count,
				    struct backend **ret, struct err *err);

/* Probes a resctrl tree without a config, for `mpamctl discover --resctrl-root DIR`. */
json_t *resctrl_describe_root(const char *root, struct err *err);

#endif
