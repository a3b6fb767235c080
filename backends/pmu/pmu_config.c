/* The [pmu] section as a config extension. Configured events are resolved against the PMUs' sysfs
 * tree when the file is checked, so a typo is an error naming the PMU and its events; the defaults
 * are left to the sampler, for which a missing one is only a notice. */
#include "backends/pmu/pmu_config.h"

#include <stdlib.h>

#include "backends/perf/perf_event.h"
#include "core/config/config.h"

static const char *const role_names[PMU_ROLES] = { "cycles", "instructions", "stalls" };
static const char *const enabled_names[] = { "auto", "yes", "no", NULL };

const char *pmu_role_name(enum pmu_role role)
{
	return role < PMU_ROLES ? role_names[role] : "?";
}

static void pmu_init(void *data)
{
	*(struct pmu_config *)data = (struct pmu_config){ .enabled = PMU_ENABLED_AUTO };
}

static void pmu_fini(void *data)
{
	struct pmu_config *c = data;

	for (int r = 0; r < PMU_ROLES; r++)
		free(c->events[r]);
	free(c->sysfs_root);
}

#define PMU_FIELD(field) CONFIG_FIELD(struct pmu_config, field)

static const struct config_key pmu_keys[] = {
	{ "enabled", &config_type_enum, PMU_FIELD(enabled), 0, 0, enabled_names, 0 },
	{ "cycles", &config_type_string, PMU_FIELD(events[PMU_ROLE_CYCLES]), 0, 0, NULL, 0 },
	{ "instructions", &config_type_string, PMU_FIELD(events[PMU_ROLE_INSTRUCTIONS]), 0, 0, NULL, 0 },
	{ "stalls", &config_type_string, PMU_FIELD(events[PMU_ROLE_STALLS]), 0, 0, NULL, 0 },
	{ "sysfs_root", &config_type_path, PMU_FIELD(sysfs_root), 0, 4095, NULL, 0 },
};

/* Each configured event must resolve: an unknown PMU lists the PMUs present, an unknown event or
 * term names the PMU and what it has. */
static void pmu_check(struct config *config, struct diag_list *diags)
{
	const struct pmu_config *c = pmu_config_of(config);
	struct perf_sysfs *sysfs = NULL;
	struct err err = { "" };

	if (!c || c->enabled == PMU_ENABLED_NO)
		return;
	bool any = false;
	for (int r = 0; r < PMU_ROLES; r++)
		any |= c->events[r] != NULL;
	if (!any)
		return;
	if (perf_sysfs_new(c->sysfs_root, &sysfs, &err) < 0) {
		diag_add(diags, DIAG_ERROR, config_ext_key_line(config, &pmu_config_ext, "sysfs_root"),
			 "[pmu] cannot list the PMUs: %s", err.text);
		return;
	}
	for (int r = 0; r < PMU_ROLES; r++) {
		struct perf_event_desc desc;
		if (!c->events[r] || perf_resolve(sysfs, c->events[r], &desc, &err) == 0) {
			if (c->events[r])
				perf_event_desc_clear(&desc);
			continue;
		}
		diag_add(diags, DIAG_ERROR, config_ext_key_line(config, &pmu_config_ext, role_names[r]),
			 "[pmu] %s = %s: %s", role_names[r], c->events[r], err.text);
	}
	perf_sysfs_free(sysfs);
}

static const struct config_section_def pmu_section = { "pmu", false, pmu_keys, sizeof(pmu_keys) / sizeof(pmu_keys[0]) };

const struct config_ext pmu_config_ext = {
	.name = "pmu",
	.section = &pmu_section,
	.size = sizeof(struct pmu_config),
	.init = pmu_init,
	.fini = pmu_fini,
	.check = pmu_check,
};

const struct pmu_config *pmu_config_of(const struct config *config)
{
	return config_ext_data(config, &pmu_config_ext);
}

bool pmu_config_disabled(const struct config *config)
{
	const struct pmu_config *c = pmu_config_of(config);

	return !c || c->enabled == PMU_ENABLED_NO;
}
