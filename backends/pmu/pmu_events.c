/* Which event counts each role: the [pmu] key's, else a default. cycles and instructions default to
 * perf's generic events; backend stalls to the stall_backend event of a core PMU that has one (Arm
 * PMUv3 lists it in events/ when PMCEID says it exists). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/base/log.h"
#include "backends/pmu/pmu_internal.h"

static const char *const generic_defaults[PMU_ROLES] = { "cycles", "instructions", NULL };

/* "<pmu>/stall_backend/" of the first core PMU that has the event, or false. */
static bool default_stalls(struct perf_sysfs *sysfs, char *buf, size_t size)
{
	for (size_t i = 0; i < perf_sysfs_count(sysfs); i++) {
		const struct perf_pmu *p;
		struct err ignored;
		if (perf_sysfs_pmu(sysfs, perf_sysfs_name(sysfs, i), &p, &ignored) < 0)
			continue;
		if (p->kind == PERF_PMU_CORE && perf_pmu_alias(p, "stall_backend")) {
			int n = snprintf(buf, size, "%.100s/stall_backend/", p->name);
			return n > 0 && (size_t)n < size;
		}
	}
	return false;
}

/* Whether the event opens as a task event on this process (uncore events are not task events:
 * they are only checked when opened on their CPUs). */
static int probe(const struct perf_event_desc *ev, struct err *err)
{
	struct pmu_counter c;
	pid_t self = getpid();

	if (ev->uncore)
		return 0;
	int r = pmu_counter_open(&c, ev, -1, &self, 1, err);
	if (r == 0)
		pmu_counter_close(&c);
	return r;
}

static int resolve_role(struct perf_sysfs *sysfs, const struct pmu_config *config, enum pmu_role role,
			struct pmu_role_event *out, struct err *err)
{
	char text[PERF_NAME_MAX];
	struct err why = { "" };
	const char *name = pmu_role_name(role);

	memset(out, 0, sizeof(*out));
	out->configured = config->events[role] != NULL;
	if (out->configured)
		snprintf(text, sizeof(text), "%s", config->events[role]);
	else if (generic_defaults[role])
		snprintf(text, sizeof(text), "%s", generic_defaults[role]);
	else if (!default_stalls(sysfs, text, sizeof(text))) {
		snprintf(out->note, sizeof(out->note), "%s: no core PMU has a stall_backend event", name);
		return 0;
	}
	int r = perf_resolve(sysfs, text, &out->desc, &why);
	if (r == 0 && (r = probe(&out->desc, &why)) < 0)
		perf_event_desc_clear(&out->desc);
	if (r == 0) {
		out->present = true;
		return 0;
	}
	if (snprintf(out->note, sizeof(out->note), "%s = %s: %s", name, text, why.text) >= (int)sizeof(out->note))
		log_debug("[pmu] %s = %s: %s", name, text, why.text); /* the note is cut: the whole of it */
	return out->configured ? err_set(err, r, "[pmu] %s", out->note) : 0;
}

int pmu_events_resolve(struct perf_sysfs *sysfs, const struct pmu_config *config, struct pmu_role_event *roles,
		       struct err *err)
{
	memset(roles, 0, PMU_ROLES * sizeof(*roles));
	for (int r = 0; r < PMU_ROLES; r++) {
		int ret = resolve_role(sysfs, config, (enum pmu_role)r, &roles[r], err);
		if (ret < 0) {
			pmu_events_clear(roles);
			return ret;
		}
	}
	return 0;
}

void pmu_events_clear(struct pmu_role_event *roles)
{
	for (int r = 0; r < PMU_ROLES; r++) {
		if (roles[r].present)
			perf_event_desc_clear(&roles[r].desc);
		roles[r].present = false;
	}
}
