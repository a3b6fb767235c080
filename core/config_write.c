#include "core/config_write.h"

#include <errno.h>

static void write_global(const struct global_config *g, FILE *out)
{
	fprintf(out,
		"[global]\nbackend = %s\nmonitor = %s\ninterval_ms = %u\nresctrl_root = %s\ngroup_prefix = %s\n"
		"socket = %s\n",
		backend_kind_names[g->backend], monitor_kind_names[g->monitor], g->interval_ms, g->resctrl_root,
		g->group_prefix, g->socket);
	if (g->record)
		fprintf(out, "record = %s\n", g->record);
	if (g->capacity_mbps)
		fprintf(out, "capacity_mbps = %u\n", g->capacity_mbps);
	fprintf(out, "escalate = %s\n", g->escalate ? "true" : "false");
}

static void write_sim(const struct sim_config *s, FILE *out)
{
	fprintf(out,
		"\n[sim]\nmscs = %u\ncapacity_mbps = %u\nmonitors = %u\ncounter_bits = %u\nscale = %u\nbwa_wd = %u\n"
		"nrdy_ticks = %u\npartid_max = %u\nseed = %llu\nnoise_pct = %u\n",
		s->mscs, s->capacity_mbps, s->monitors, s->counter_bits, s->scale, s->bwa_wd, s->nrdy_ticks,
		s->partid_max, (unsigned long long)s->seed, s->noise_pct);
}

static void write_partition(const struct partition_config *p, FILE *out)
{
	fprintf(out, "\n[partition \"%s\"]\nclass = %s\nmb_max = %u\nweight = %u\n", p->name,
		partition_class_names[p->class], p->mb_max, p->weight);
	if (p->has_partid && !p->partid_auto)
		fprintf(out, "partid = %u\n", p->partid);
	if (p->mb_min)
		fprintf(out, "mb_min = %u\n", p->mb_min);
	if (p->guarantee_mbps)
		fprintf(out, "guarantee_mbps = %u\n", p->guarantee_mbps);
	if (p->target_mbps)
		fprintf(out, "target_mbps = %u\n", p->target_mbps);
	if (p->l3_cbm)
		fprintf(out, "l3_cbm = 0x%llx\n", (unsigned long long)p->l3_cbm);
	if (p->cgroup)
		fprintf(out, "cgroup = %s\n", p->cgroup);
	if (p->cpus) {
		char buf[CPU_LIMIT * 6];
		cpu_set_format(p->cpus, buf, sizeof(buf));
		fprintf(out, "cpus = %s\n", buf);
	}
	for (size_t i = 0; i < p->pid_count; i++)
		fprintf(out, "%s%d%s", i ? " " : "pids = ", (int)p->pids[i], i + 1 == p->pid_count ? "\n" : "");
	for (size_t i = 0; i < p->sim_demand.count; i++)
		fprintf(out, "%s%u@%llu%s", i ? " " : "sim_demand = ", p->sim_demand.points[i].mbps,
			(unsigned long long)p->sim_demand.points[i].tick, i + 1 == p->sim_demand.count ? "\n" : "");
}

int config_write_ini(const struct config *c, FILE *out)
{
	write_global(&c->global, out);
	write_sim(&c->sim, out);
	for (size_t i = 0; i < c->msc_count; i++)
		fprintf(out, "\n[msc \"%s\"]\nbase = 0x%llx\nsize = 0x%llx\n", c->mscs[i].name,
			(unsigned long long)c->mscs[i].base, (unsigned long long)c->mscs[i].size);
	for (size_t i = 0; i < c->partition_count; i++)
		write_partition(&c->partitions[i], out);
	return ferror(out) ? -EIO : 0;
}
