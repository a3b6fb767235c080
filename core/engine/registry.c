#include "core/engine/registry.h"

#include <string.h>

#include "backends/cgroup/cgroup_ops.h"
#include "backends/mmio/mbwu_monitor.h"
#include "backends/mmio/mmio_control.h"
#include "backends/pmu/pmu_ops.h"
#include "backends/resctrl/resctrl_ops.h"
#include "backends/sim/sim_ops.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The first control is the default backend. */
static const struct control_ops *const controls[] = { &control_resctrl_ops, &control_mmio_ops, &control_sim_ops };
static const struct monitor_ops *const monitors[] = { &monitor_resctrl_ops, &monitor_mbwu_ops };
static const struct actuator_ops *const actuators[] = { &actuator_cpu_quota_ops, &actuator_sim_cpu_quota_ops,
							&actuator_placement_ops };
static const struct pmu_sampler_ops *const samplers[] = { &pmu_sampler_perf_ops, &pmu_sampler_sim_ops };

const struct engine_registry engine_registry_default = {
	.controls = controls,
	.control_count = COUNT(controls),
	.monitors = monitors,
	.monitor_count = COUNT(monitors),
	.actuators = actuators,
	.actuator_count = COUNT(actuators),
	.samplers = samplers,
	.sampler_count = COUNT(samplers),
};

const struct control_ops *engine_registry_control(const struct engine_registry *r, const char *name)
{
	for (size_t i = 0; i < r->control_count; i++)
		if (!strcmp(r->controls[i]->name, name))
			return r->controls[i];
	return NULL;
}

const struct monitor_ops *engine_registry_monitor(const struct engine_registry *r, const char *name)
{
	for (size_t i = 0; i < r->monitor_count; i++)
		if (!strcmp(r->monitors[i]->name, name))
			return r->monitors[i];
	return NULL;
}

const struct pmu_sampler_ops *engine_registry_sampler(const struct engine_registry *r, bool simulated)
{
	/* Only the simulator's own counts agree with its traffic: real counters of this host's tasks
	 * beside simulated bandwidth would mislead the policies. A registry may still pair them (tests). */
	for (size_t i = 0; i < r->sampler_count; i++)
		if (r->samplers[i]->simulated == simulated)
			return r->samplers[i];
	return NULL;
}

static void add_ext(struct engine_schema *s, const struct config_ext *ext)
{
	if (!ext || s->schema.ext_count >= CONFIG_MAX_EXTS)
		return;
	for (size_t i = 0; i < s->schema.ext_count; i++)
		if (s->exts[i] == ext)
			return;
	s->exts[s->schema.ext_count++] = ext;
}

void engine_schema_init(const struct engine_registry *r, struct engine_schema *s)
{
	size_t controls_n = r->control_count < ENGINE_REGISTRY_MAX ? r->control_count : ENGINE_REGISTRY_MAX;
	size_t monitors_n = r->monitor_count < ENGINE_REGISTRY_MAX ? r->monitor_count : ENGINE_REGISTRY_MAX;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0, sims = 0; i < controls_n; i++) {
		s->backends[i] = r->controls[i]->name;
		if (r->controls[i]->simulated)
			s->simulated[sims++] = r->controls[i]->name;
		add_ext(s, r->controls[i]->config_ext);
	}
	for (size_t i = 0; i < monitors_n; i++) {
		s->monitors[i] = r->monitors[i]->name;
		add_ext(s, r->monitors[i]->config_ext);
	}
	for (size_t i = 0; i < r->sampler_count; i++)
		add_ext(s, r->samplers[i]->config_ext);
	s->schema.backends = s->backends;
	s->schema.simulated = s->simulated;
	s->schema.monitors = s->monitors;
	s->schema.exts = s->exts;
}

const struct config_schema *engine_default_schema(void)
{
	static struct engine_schema schema;
	static bool built;

	if (!built) {
		engine_schema_init(&engine_registry_default, &schema);
		built = true;
	}
	return &schema.schema;
}

/* The controls' (or the monitors') names and descriptions, one a line, the names aligned. */
static void print_table(const struct engine_registry *r, FILE *out, const char *indent, bool of_monitors)
{
	size_t count = of_monitors ? r->monitor_count : r->control_count;
	const char *names[ENGINE_REGISTRY_MAX], *descriptions[ENGINE_REGISTRY_MAX];
	int width = 0;

	count = count < ENGINE_REGISTRY_MAX ? count : ENGINE_REGISTRY_MAX;
	for (size_t i = 0; i < count; i++) {
		names[i] = of_monitors ? r->monitors[i]->name : r->controls[i]->name;
		descriptions[i] = of_monitors ? r->monitors[i]->description : r->controls[i]->description;
		width = (int)strlen(names[i]) > width ? (int)strlen(names[i]) : width;
	}
	for (size_t i = 0; i < count; i++)
		fprintf(out, "%s%-*s  %s\n", indent, width, names[i], descriptions[i] ? descriptions[i] : "");
}

void engine_registry_print_controls(const struct engine_registry *r, FILE *out, const char *indent)
{
	print_table(r, out, indent, false);
}

void engine_registry_print_monitors(const struct engine_registry *r, FILE *out, const char *indent)
{
	print_table(r, out, indent, true);
}

void engine_registry_simulated_names(const struct engine_registry *r, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < r->control_count && used < len; i++)
		if (r->controls[i]->simulated)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " or " : "",
						 r->controls[i]->name);
}
