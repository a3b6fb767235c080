#include "core/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const backend_kind_names[] = { "resctrl", "mmio", "sim", NULL };
const char *const monitor_kind_names[] = { "auto", "resctrl", "mmio", NULL };
const char *const partition_class_names[] = { "default", "latency-critical", "best-effort", NULL };

void global_config_defaults(struct global_config *g)
{
	memset(g, 0, sizeof(*g));
	g->backend = BACKEND_RESCTRL;
	g->monitor = MONITOR_AUTO;
	g->interval_ms = 100;
	snprintf(g->group_prefix, sizeof(g->group_prefix), "mpamd-");
}

bool cpu_set_has(const struct cpu_set *set, unsigned cpu)
{
	return cpu < CPU_LIMIT && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int cpu_set_format(const struct cpu_set *set, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned cpu = 0; cpu < CPU_LIMIT; cpu++) {
		if (!cpu_set_has(set, cpu))
			continue;
		unsigned last = cpu;
		while (last + 1 < CPU_LIMIT && cpu_set_has(set, last + 1))
			last++;
		char part[24];
		int n = last == cpu ? snprintf(part, sizeof(part), "%s%u", used ? "," : "", cpu)
				    : snprintf(part, sizeof(part), "%s%u-%u", used ? "," : "", cpu, last);
		if (used + (size_t)n < len)
			memcpy(buf + used, part, (size_t)n + 1);
		used += (size_t)n;
		cpu = last;
	}
	return (int)used;
}

void sim_config_defaults(struct sim_config *s)
{
	*s = (struct sim_config){
		.mscs = 1,
		.capacity_mbps = 20000,
		.monitors = 16,
		.counter_bits = 44,
		.scale = 0,
		.bwa_wd = 8,
		.nrdy_ticks = 1,
		.partid_max = 63,
		.seed = 1,
		.noise_pct = 0,
	};
}

void partition_config_defaults(struct partition_config *p)
{
	memset(p, 0, sizeof(*p));
	p->class = CLASS_DEFAULT;
	p->mb_max = 100;
	p->weight = 100;
}

void partition_config_fini(struct partition_config *p)
{
	free(p->cgroup);
	free(p->pids);
	free(p->cpus);
	free(p->sim_demand.points);
	memset(p, 0, sizeof(*p));
}

void config_free(struct config *config)
{
	if (!config)
		return;
	free(config->global.resctrl_root);
	free(config->global.socket);
	free(config->global.record);
	for (size_t i = 0; i < config->partition_count; i++)
		partition_config_fini(&config->partitions[i]);
	free(config->partitions);
	free(config->mscs);
	free(config);
}

uint32_t demand_profile_at(const struct demand_profile *d, uint64_t tick)
{
	uint32_t mbps = 0;

	for (size_t i = 0; i < d->count && d->points[i].tick <= tick; i++)
		mbps = d->points[i].mbps;
	return mbps;
}
