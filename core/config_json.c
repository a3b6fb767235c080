#include "core/config_json.h"

#include <stdio.h>

static json_t *json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

/* Zero means "not set" for these keys; JSON says so with null rather than a fake 0. */
static json_t *json_optional_integer(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *demand_to_json(const struct demand_profile *d)
{
	json_t *points = json_array();

	for (size_t i = 0; i < d->count; i++)
		json_array_append_new(points, json_pack("{s:I,s:I}", "tick", (json_int_t)d->points[i].tick, "mbps",
							(json_int_t)d->points[i].mbps));
	return points;
}

static json_t *cpus_to_json(const struct cpu_set *cpus)
{
	char buf[CPU_LIMIT * 6];

	if (!cpus)
		return json_null();
	cpu_set_format(cpus, buf, sizeof(buf));
	return json_string(buf);
}

json_t *partition_config_to_json(const struct partition_config *p)
{
	json_t *pids = json_array();

	for (size_t i = 0; i < p->pid_count; i++)
		json_array_append_new(pids, json_integer(p->pids[i]));
	json_t *json = json_pack(
		"{s:s,s:o,s:b,s:s,s:o,s:o,s:o,s:I,s:o,s:o,s:o,s:o,s:I}", "name", p->name, "partid",
		p->has_partid ? json_integer(p->partid) : json_null(), "partid_auto", p->partid_auto, "class",
		partition_class_names[p->class], "cgroup", p->cgroup ? json_string(p->cgroup) : json_null(), "pids",
		pids, "mb_min", json_optional_integer(p->mb_min), "mb_max", (json_int_t)p->mb_max, "guarantee_mbps",
		json_optional_integer(p->guarantee_mbps), "target_mbps", json_optional_integer(p->target_mbps),
		"l3_cbm", p->l3_cbm ? json_hex(p->l3_cbm) : json_null(), "sim_demand", demand_to_json(&p->sim_demand),
		"line", (json_int_t)p->line);

	json_object_set_new(json, "cpus", cpus_to_json(p->cpus));
	json_object_set_new(json, "weight", json_integer(p->weight));
	return json;
}

static json_t *global_to_json(const struct global_config *g)
{
	return json_pack("{s:s,s:s,s:I,s:s,s:s,s:o}", "backend", backend_kind_names[g->backend], "monitor",
			 monitor_kind_names[g->monitor], "interval_ms", (json_int_t)g->interval_ms, "resctrl_root",
			 g->resctrl_root, "socket", g->socket, "record",
			 g->record ? json_string(g->record) : json_null());
}

static json_t *sim_to_json(const struct sim_config *s)
{
	char seed[24];

	/* The seed is any 64-bit value; JSON integers are signed, so carry it as a string. */
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)s->seed);
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:I}", "mscs", (json_int_t)s->mscs, "capacity_mbps",
			 (json_int_t)s->capacity_mbps, "monitors", (json_int_t)s->monitors, "counter_bits",
			 (json_int_t)s->counter_bits, "scale", (json_int_t)s->scale, "bwa_wd", (json_int_t)s->bwa_wd,
			 "nrdy_ticks", (json_int_t)s->nrdy_ticks, "partid_max", (json_int_t)s->partid_max, "seed", seed,
			 "noise_pct", (json_int_t)s->noise_pct);
}

json_t *config_to_json(const struct config *c)
{
	json_t *mscs = json_array();
	json_t *partitions = json_array();

	for (size_t i = 0; i < c->msc_count; i++)
		json_array_append_new(mscs, json_pack("{s:s,s:o,s:o,s:I}", "name", c->mscs[i].name, "base",
						      json_hex(c->mscs[i].base), "size", json_hex(c->mscs[i].size),
						      "line", (json_int_t)c->mscs[i].line));
	for (size_t i = 0; i < c->partition_count; i++)
		json_array_append_new(partitions, partition_config_to_json(&c->partitions[i]));
	return json_pack("{s:o,s:o,s:o,s:o}", "global", global_to_json(&c->global), "sim", sim_to_json(&c->sim), "msc",
			 mscs, "partitions", partitions);
}
