/* Checks that involve more than one key or section, and the resolution that needs the whole file
 * (defaults that depend on other keys, PARTIDs picked for the simulator). */
#include "core/config_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned config_section_key_line(const struct config_section *s, const char *key)
{
	int index = config_key_index(s->kind, key);

	return index < 0 ? 0 : s->key_line[index];
}

static unsigned later(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

static const struct config_section *find_kept(const struct config_section *sections, size_t count,
					      enum section_kind kind)
{
	for (size_t i = 0; i < count; i++)
		if (sections[i].kind == kind && !sections[i].discarded)
			return &sections[i];
	return NULL;
}

static int resolve_global(struct config *c, const struct config_overrides *o)
{
	if (o && o->has_backend)
		c->global.backend = o->backend;
	if (!c->global.resctrl_root)
		c->global.resctrl_root = strdup(DEFAULT_RESCTRL_ROOT);
	if (!c->global.socket)
		c->global.socket = strdup(DEFAULT_SOCKET_PATH);
	return c->global.resctrl_root && c->global.socket ? 0 : -1;
}

/* Where to point a message about the backend: the key's line, or 0 (the command line). */
static unsigned backend_line(const struct config_section *global, const struct config_overrides *o)
{
	if (o && o->has_backend)
		return 0;
	return global ? config_section_key_line(global, "backend") : 0;
}

static void check_backend(const struct config *c, const struct config_section *global, const struct config_overrides *o,
			  struct diag_list *d)
{
	const char *backend = backend_kind_names[c->global.backend];
	const char *origin = o && o->has_backend ? "--backend " : "backend = ";
	unsigned monitor_line = global ? config_section_key_line(global, "monitor") : 0;

	if (c->global.backend == BACKEND_MMIO && c->msc_count == 0)
		diag_add(d, DIAG_ERROR, backend_line(global, o),
			 "%smmio needs at least one [msc \"NAME\"] section with base and size", origin);
	if (c->global.monitor == MONITOR_MMIO && c->msc_count == 0 && c->global.backend == BACKEND_RESCTRL)
		diag_add(d, DIAG_ERROR, monitor_line, "monitor = mmio needs at least one [msc \"NAME\"] section");
	if (c->global.monitor == MONITOR_RESCTRL && c->global.backend != BACKEND_RESCTRL)
		diag_add(d, DIAG_ERROR, monitor_line, "monitor = resctrl needs backend = resctrl (the backend is %s)",
			 backend);
	if (c->msc_count > CONFIG_MAX_MSCS)
		diag_add(d, DIAG_ERROR, c->mscs[CONFIG_MAX_MSCS].line, "too many [msc] sections: at most %d",
			 CONFIG_MAX_MSCS);
	if (c->global.backend == BACKEND_SIM && c->msc_count > 0)
		diag_add(d, DIAG_WARNING, c->mscs[0].line,
			 "[msc] sections are not used with backend = sim ([sim] mscs sets the simulated MSCs)");
}

/* The rules between a partition's limits, shared by the loader (with line numbers) and run-time
 * `set` (config_partition_check). */
enum limit_rule {
	RULE_MIN_ABOVE_MAX,
	RULE_GUARANTEE_CLASS,
	RULE_TARGET_AND_GUARANTEE,
	RULE_COUNT,
};

static bool limit_rule_broken(const struct partition_config *p, enum limit_rule rule, char *msg, size_t len)
{
	switch (rule) {
	case RULE_MIN_ABOVE_MAX:
		if (p->mb_min <= p->mb_max)
			return false;
		snprintf(msg, len, "mb_min = %u is above mb_max = %u", p->mb_min, p->mb_max);
		return true;
	case RULE_GUARANTEE_CLASS:
		if (!p->guarantee_mbps || p->class == CLASS_LATENCY_CRITICAL)
			return false;
		snprintf(msg, len, "guarantee_mbps is only for class = latency-critical (partition \"%s\" is %s)",
			 p->name, partition_class_names[p->class]);
		return true;
	case RULE_TARGET_AND_GUARANTEE:
		if (!p->guarantee_mbps || !p->target_mbps)
			return false;
		snprintf(msg, len, "a partition has either target_mbps or guarantee_mbps, not both");
		return true;
	case RULE_COUNT:
		break;
	}
	return false;
}

int config_partition_check(const struct partition_config *p, struct err *err)
{
	char msg[256];

	for (int rule = 0; rule < RULE_COUNT; rule++)
		if (limit_rule_broken(p, (enum limit_rule)rule, msg, sizeof(msg)))
			return err_set(err, -EINVAL, "%s", msg);
	return 0;
}

static void check_partition_limits(const struct config_section *s, struct diag_list *d)
{
	const struct partition_config *p = s->object;
	unsigned min_line = config_section_key_line(s, "mb_min");
	unsigned max_line = config_section_key_line(s, "mb_max");
	unsigned guarantee_line = config_section_key_line(s, "guarantee_mbps");
	unsigned target_line = config_section_key_line(s, "target_mbps");
	/* Each rule is reported where it is broken: at the later of the keys involved. */
	const unsigned rule_line[RULE_COUNT] = {
		[RULE_MIN_ABOVE_MAX] = later(min_line, max_line),
		[RULE_GUARANTEE_CLASS] = guarantee_line,
		[RULE_TARGET_AND_GUARANTEE] = later(guarantee_line, target_line),
	};
	char msg[256];

	for (int rule = 0; rule < RULE_COUNT; rule++)
		if (limit_rule_broken(p, (enum limit_rule)rule, msg, sizeof(msg)))
			diag_add(d, DIAG_ERROR, rule_line[rule], "%s", msg);
}

static const struct config_section *partid_owner(const struct config_section *sections, size_t count,
						 const struct config_section *upto, uint16_t partid)
{
	for (const struct config_section *s = sections; s < upto && s < sections + count; s++) {
		const struct partition_config *p = s->object;
		if (s->kind == SECTION_PARTITION && !s->discarded && p->has_partid && p->partid == partid)
			return s;
	}
	return NULL;
}

static void check_explicit_partids(const struct config *c, const struct config_section *sections, size_t count,
				   struct diag_list *d)
{
	for (size_t i = 0; i < count; i++) {
		const struct config_section *s = &sections[i];
		const struct partition_config *p = s->object;
		if (s->kind != SECTION_PARTITION || s->discarded)
			continue;
		unsigned line = config_section_key_line(s, "partid");
		if (!p->has_partid) {
			if (c->global.backend == BACKEND_MMIO)
				diag_add(d, DIAG_ERROR, s->line,
					 "partition \"%s\" needs a partid: backend = mmio programs MSCs by PARTID",
					 p->name);
			continue;
		}
		const struct config_section *owner = partid_owner(sections, count, s, p->partid);
		if (owner)
			diag_add(d, DIAG_ERROR, line, "partid %u is already used by partition \"%s\" (line %u)",
				 p->partid, ((const struct partition_config *)owner->object)->name,
				 config_section_key_line(owner, "partid"));
		if (c->global.backend == BACKEND_SIM && p->partid > c->sim.partid_max)
			diag_add(d, DIAG_ERROR, line, "partid %u is above the simulated partid_max %u", p->partid,
				 c->sim.partid_max);
	}
}

static bool partid_in_use(const struct config *c, uint16_t partid)
{
	for (size_t i = 0; i < c->partition_count; i++)
		if (c->partitions[i].has_partid && c->partitions[i].partid == partid)
			return true;
	return false;
}

/* The simulator needs a PARTID for every partition: give the lowest free one from 1 up
 * (PARTID 0 is the default partition that everything else runs in). */
static void assign_sim_partids(struct config *c, struct diag_list *d)
{
	unsigned next = 1;

	for (size_t i = 0; i < c->partition_count; i++) {
		struct partition_config *p = &c->partitions[i];
		if (p->has_partid)
			continue;
		while (next <= c->sim.partid_max && partid_in_use(c, (uint16_t)next))
			next++;
		if (next > c->sim.partid_max) {
			diag_add(d, DIAG_ERROR, p->line, "no free PARTID for partition \"%s\" (partid_max is %u)",
				 p->name, c->sim.partid_max);
			continue;
		}
		p->partid = (uint16_t)next;
		p->has_partid = true;
		p->partid_auto = true;
	}
}

static void check_pids_unique(const struct config_section *sections, size_t count, struct diag_list *d)
{
	for (size_t i = 0; i < count; i++) {
		const struct partition_config *p = sections[i].object;
		if (sections[i].kind != SECTION_PARTITION || sections[i].discarded)
			continue;
		for (size_t k = 0; k < p->pid_count; k++) {
			for (size_t j = 0; j < i; j++) {
				const struct partition_config *q = sections[j].object;
				if (sections[j].kind != SECTION_PARTITION || sections[j].discarded)
					continue;
				for (size_t m = 0; m < q->pid_count; m++)
					if (q->pids[m] == p->pids[k])
						diag_add(d, DIAG_ERROR, config_section_key_line(&sections[i], "pids"),
							 "pid %d is already in partition \"%s\" (line %u)",
							 (int)p->pids[k], q->name,
							 config_section_key_line(&sections[j], "pids"));
			}
		}
	}
}

static void check_cpus_unique(const struct config *c, const struct config_section *sections, size_t count,
			      struct diag_list *d)
{
	(void)c;
	for (size_t i = 0; i < count; i++) {
		const struct partition_config *p = sections[i].object;
		if (sections[i].kind != SECTION_PARTITION || sections[i].discarded || !p->cpus)
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct partition_config *q = sections[j].object;
			if (sections[j].kind != SECTION_PARTITION || sections[j].discarded || !q->cpus)
				continue;
			for (unsigned w = 0; w < CPU_LIMIT / 64; w++) {
				uint64_t both = p->cpus->bits[w] & q->cpus->bits[w];
				if (!both)
					continue;
				/* A CPU belongs to one resctrl group at a time. */
				diag_add(d, DIAG_ERROR, config_section_key_line(&sections[i], "cpus"),
					 "cpu %u is already in partition \"%s\" (line %u)",
					 w * 64 + __builtin_ctzll(both), q->name,
					 config_section_key_line(&sections[j], "cpus"));
				break;
			}
		}
	}
}

static void check_msc_windows(const struct config *c, const struct config_section *sections, size_t count,
			      struct diag_list *d)
{
	for (size_t i = 0; i < count; i++) {
		const struct config_section *s = &sections[i];
		const struct msc_config *m = s->object;
		if (s->kind != SECTION_MSC || s->discarded)
			continue;
		if (!config_section_key_line(s, "base") || !config_section_key_line(s, "size")) {
			diag_add(d, DIAG_ERROR, s->line, "msc \"%s\" needs both base and size", m->name);
			continue;
		}
		if (m->base + m->size < m->base) {
			diag_add(d, DIAG_ERROR, config_section_key_line(s, "size"),
				 "msc \"%s\": base + size is beyond the 64-bit address space", m->name);
			continue;
		}
		for (size_t j = 0; j < c->msc_count; j++) {
			const struct msc_config *o = &c->mscs[j];
			if (o == m || o->line > m->line || !o->size || o->base + o->size < o->base)
				continue;
			if (m->base < o->base + o->size && o->base < m->base + m->size)
				diag_add(d, DIAG_ERROR, config_section_key_line(s, "base"),
					 "msc \"%s\" window 0x%llx+0x%llx overlaps msc \"%s\" (line %u)", m->name,
					 (unsigned long long)m->base, (unsigned long long)m->size, o->name, o->line);
		}
	}
}

void config_check(struct config *c, struct config_section *sections, size_t count, const struct config_overrides *o,
		  struct diag_list *d)
{
	const struct config_section *global = find_kept(sections, count, SECTION_GLOBAL);

	if (resolve_global(c, o) < 0) {
		d->out_of_memory = true;
		return;
	}
	check_backend(c, global, o, d);
	for (size_t i = 0; i < count; i++)
		if (sections[i].kind == SECTION_PARTITION && !sections[i].discarded)
			check_partition_limits(&sections[i], d);
	check_explicit_partids(c, sections, count, d);
	if (c->global.backend == BACKEND_SIM)
		assign_sim_partids(c, d);
	check_pids_unique(sections, count, d);
	check_cpus_unique(c, sections, count, d);
	check_msc_windows(c, sections, count, d);
	for (size_t i = 0; c->global.escalate && i < c->partition_count; i++)
		if (c->partitions[i].class == CLASS_BEST_EFFORT && !c->partitions[i].cgroup)
			diag_add(d, DIAG_WARNING, c->partitions[i].line,
				 "escalate = true, but best-effort partition \"%s\" has no cgroup whose CPU quota "
				 "could be lowered",
				 c->partitions[i].name);
	if (c->partition_count == 0)
		diag_add(d, DIAG_WARNING, 0, "no [partition \"NAME\"] sections: mpamd would have nothing to manage");
}
