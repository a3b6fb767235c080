/* The [pmu] section: which event counts each role (cycles, instructions, backend stalls), whether
 * the daemon counts at all, and where the PMUs' sysfs tree is. See mpamd.ini(5). */
#ifndef MPAMD_BACKENDS_PMU_PMU_CONFIG_H
#define MPAMD_BACKENDS_PMU_PMU_CONFIG_H

#include <stdbool.h>

#include "backends/contracts/pmu.h"
#include "core/config/model.h"
#include "core/config/schema.h"

/* enabled: unset means yes when the events resolve and open, and a notice otherwise. */
enum pmu_enabled {
	PMU_ENABLED_AUTO,
	PMU_ENABLED_YES,
	PMU_ENABLED_NO,
};

struct pmu_config {
	unsigned enabled;	 /* enum pmu_enabled */
	char *events[PMU_ROLES]; /* NULL: the role's default */
	char *sysfs_root;	 /* NULL: PERF_SYSFS_DEFAULT_ROOT */
};

extern const struct config_ext pmu_config_ext;

/* The role's key in [pmu] ("cycles", "instructions", "stalls"). */
const char *pmu_role_name(enum pmu_role role);

/* The [pmu] section of a config loaded with pmu_config_ext (defaults when absent); NULL without it. */
const struct pmu_config *pmu_config_of(const struct config *config);
/* Whether counting is switched off (enabled = no, or a schema without [pmu]). */
bool pmu_config_disabled(const struct config *config);

#endif
