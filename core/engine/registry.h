/* The table of everything the engine can compose: the controls (the backend key; the first is its
 * default), the monitors (the monitor key; "auto" takes the first one available), the actuators and
 * the PMU samplers. A new backend is its directory and one entry here: its name, description, keys
 * and claims come with its ops table, so the configuration, --help and the instance lock know it
 * without naming it. Tests may hand the engine a table of their own (engine_options.registry). */
#ifndef MPAMD_CORE_ENGINE_REGISTRY_H
#define MPAMD_CORE_ENGINE_REGISTRY_H

#include <stddef.h>
#include <stdio.h>

#include "backends/contracts/actuator.h"
#include "backends/contracts/control.h"
#include "backends/contracts/monitor.h"
#include "backends/contracts/pmu.h"
#include "core/config/schema.h"

#define ENGINE_REGISTRY_MAX 16

struct engine_registry {
	const struct control_ops *const *controls; /* the first is the backend key's default */
	size_t control_count;
	const struct monitor_ops *const *monitors; /* in the order monitor = auto tries them */
	size_t monitor_count;
	const struct actuator_ops *const *actuators;
	size_t actuator_count;
	/* PMU samplers: the one whose `simulated` matches the control's counts when [pmu] allows it. */
	const struct pmu_sampler_ops *const *samplers;
	size_t sampler_count;
};

extern const struct engine_registry engine_registry_default;

const struct control_ops *engine_registry_control(const struct engine_registry *registry, const char *name);
const struct monitor_ops *engine_registry_monitor(const struct engine_registry *registry, const char *name);

/* The sampler for a control, simulated or not as the control is; NULL when the registry has none. */
const struct pmu_sampler_ops *engine_registry_sampler(const struct engine_registry *registry, bool simulated);

/* The configuration schema a registry implies: its controls' and monitors' names for the backend and
 * monitor keys (the simulated controls among them), and every config extension they bring (samplers'
 * too). */
struct engine_schema {
	struct config_schema schema;
	const char *backends[ENGINE_REGISTRY_MAX + 1];
	const char *simulated[ENGINE_REGISTRY_MAX + 1];
	const char *monitors[ENGINE_REGISTRY_MAX + 1];
	const struct config_ext *exts[CONFIG_MAX_EXTS];
};

/* Fills *ret, which points into itself: keep it where it is (do not copy it). */
void engine_schema_init(const struct engine_registry *registry, struct engine_schema *ret);
/* The default registry's schema (built once). */
const struct config_schema *engine_default_schema(void);

/* Prints each control (monitors: each monitor) as "INDENT NAME  DESCRIPTION", one a line, names
 * aligned: what --help lists. */
void engine_registry_print_controls(const struct engine_registry *registry, FILE *out, const char *indent);
void engine_registry_print_monitors(const struct engine_registry *registry, FILE *out, const char *indent);
/* The simulated controls' names, " or " between them ("sim"), into buf. */
void engine_registry_simulated_names(const struct engine_registry *registry, char *buf, size_t len);

#endif
