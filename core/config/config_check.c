/* Checks that involve more than one key or section, and the resolution that needs the whole file.
 * Rules that only concern one backend are that backend's (its config extension's check). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/decimal_text.h"
#include "core/base/grow.h"
#include "core/config/config_internal.h"

static unsigned later(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

static int resolve_global(struct config *c)
{
	if (!c->global.resctrl_root)
		c->global.resctrl_root = strdup(DEFAULT_RESCTRL_ROOT);
	if (!c->global.socket)
		c->global.socket = strdup(DEFAULT_SOCKET_PATH);
	return c->global.resctrl_root && c->global.socket ? 0 : -ENOMEM;
}

static bool name_listed(const char *const *names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* backend and monitor name what the schema's registry has; the loader only checked their syntax. */
static void check_kinds(const struct config *c, const struct config_schema *schema, struct diag_list *d)
{
	char expected[256];

	if (!schema)
		return;
	if (!name_listed(schema->backends, c->global.backend)) {
		config_names_list(schema->backends, expected, sizeof(expected));
		unsigned line = c->global.backend_from_command_line ? 0 : config_global_key_line(c, "backend");
		diag_add(d, DIAG_ERROR, line, "%s%s: expected one of %s",
			 c->global.backend_from_command_line ? "--backend " : "backend = ", c->global.backend,
			 expected);
	}
	if (strcmp(c->global.monitor, "auto") && !name_listed(schema->monitors, c->global.monitor)) {
		size_t used = (size_t)snprintf(expected, sizeof(expected), "auto");
		for (size_t i = 0; schema->monitors && schema->monitors[i] && used < sizeof(expected); i++)
			used += (size_t)snprintf(expected + used, sizeof(expected) - used, " | %s",
						 schema->monitors[i]);
		diag_add(d, DIAG_ERROR, config_global_key_line(c, "monitor"), "monitor = %s: expected one of %s",
			 c->global.monitor, expected);
	}
	if (c->msc_count > CONFIG_MAX_MSCS)
		diag_add(d, DIAG_ERROR, c->mscs[CONFIG_MAX_MSCS].origin.line, "too many [msc] sections: at most %d",
			 CONFIG_MAX_MSCS);
}

/* The rules between a partition's goals, shared by the loader (with line numbers) and run-time `set`
 * (config_partition_check). */
enum goal_rule {
	RULE_MIN_ABOVE_MAX,
	RULE_GUARANTEE_CLASS,
	RULE_TARGET_AND_GUARANTEE,
	RULE_IPC_GUARD_CLASS,
	RULE_COUNT,
};

/* "50%" or "6000MB/s". */
static void limit_text(double v, bool mbps, char *buf, size_t len)
{
	char digits[40];

	decimal_text(v, digits, sizeof(digits));
	snprintf(buf, len, "%s%s", digits, mbps ? "MB/s" : "%");
}

/* mb_min above mb_max (each on domain `id`, or for every domain: `on` NULL), said in msg. */
static bool min_above_max_is(const struct partition_goals *g, double min, double max, const char *on, char *msg,
			     size_t len)
{
	char a[48], b[48];

	if (min <= max)
		return false;
	limit_text(min, g->mb_min_mbps, a, sizeof(a));
	limit_text(max, g->mb_max_mbps, b, sizeof(b));
	snprintf(msg, len, "mb_min = %s is above mb_max = %s%s", a, b, on ? on : "");
	return true;
}

static bool min_above_max_on(const struct partition_goals *g, uint32_t id, char *msg, size_t len)
{
	char on[24];

	snprintf(on, sizeof(on), " on domain %u", id);
	return min_above_max_is(g, domain_values_get(&g->mb_min_at, id, g->mb_min),
				domain_values_get(&g->mb_max_at, id, g->mb_max), on, msg, len);
}

/* On every domain: the values for all of them, and each domain either key names. A percent and MB/s
 * compare only on a host that knows its capacity (core/engine/domain_limits.c checks them there). */
static bool min_above_max(const struct partition_goals *g, char *msg, size_t len)
{
	if (g->mb_min_mbps != g->mb_max_mbps)
		return false;
	for (uint32_t i = 0; i < g->mb_min_at.count; i++)
		if (min_above_max_on(g, g->mb_min_at.at[i].domain, msg, len))
			return true;
	for (uint32_t i = 0; i < g->mb_max_at.count; i++)
		if (min_above_max_on(g, g->mb_max_at.at[i].domain, msg, len))
			return true;
	return min_above_max_is(g, g->mb_min, g->mb_max, NULL, msg, len);
}

static bool goal_rule_broken(const struct partition_config *p, enum goal_rule rule, char *msg, size_t len)
{
	const struct partition_goals *g = &p->goals;

	switch (rule) {
	case RULE_MIN_ABOVE_MAX:
		return min_above_max(g, msg, len);
	case RULE_GUARANTEE_CLASS:
		if (!g->guarantee_mbps || g->class == CLASS_LATENCY_CRITICAL)
			return false;
		snprintf(msg, len, "guarantee_mbps is only for class = latency-critical (partition \"%s\" is %s)",
			 p->name, partition_class_names[g->class]);
		return true;
	case RULE_TARGET_AND_GUARANTEE:
		if (!g->guarantee_mbps || !g->target_mbps)
			return false;
		snprintf(msg, len, "a partition has either target_mbps or guarantee_mbps, not both");
		return true;
	case RULE_IPC_GUARD_CLASS:
		if (!(g->ipc_guard > 0) || g->class == CLASS_LATENCY_CRITICAL)
			return false;
		snprintf(msg, len, "ipc_guard is only for class = latency-critical (partition \"%s\" is %s)", p->name,
			 partition_class_names[g->class]);
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
		if (goal_rule_broken(p, (enum goal_rule)rule, msg, sizeof(msg)))
			return err_set(err, -EINVAL, "%s", msg);
	return 0;
}

static void check_goals(const struct config *c, const struct partition_config *p, struct diag_list *d)
{
	unsigned min_line = config_partition_key_line(c, p, "mb_min");
	unsigned max_line = config_partition_key_line(c, p, "mb_max");
	unsigned guarantee_line = config_partition_key_line(c, p, "guarantee_mbps");
	unsigned target_line = config_partition_key_line(c, p, "target_mbps");
	unsigned ipc_guard_line = config_partition_key_line(c, p, "ipc_guard");
	/* Each rule is reported where it is broken: at the later of the keys involved. */
	const unsigned rule_line[RULE_COUNT] = {
		[RULE_MIN_ABOVE_MAX] = later(min_line, max_line),
		[RULE_GUARANTEE_CLASS] = guarantee_line,
		[RULE_TARGET_AND_GUARANTEE] = later(guarantee_line, target_line),
		[RULE_IPC_GUARD_CLASS] = ipc_guard_line,
	};
	char msg[256];

	for (int rule = 0; rule < RULE_COUNT; rule++)
		if (goal_rule_broken(p, (enum goal_rule)rule, msg, sizeof(msg)))
			diag_add(d, DIAG_ERROR, rule_line[rule], "%s", msg);
}

/* PARTIDs are 16-bit: a table of first owners finds every clash in one pass. */
static void check_partids_distinct(const struct config *c, struct diag_list *d)
{
	size_t *owner = calloc(UINT16_MAX + 1u, sizeof(*owner)); /* index + 1; 0: free */

	if (!owner) {
		diag_add(d, DIAG_ERROR, 0, "out of memory checking PARTIDs");
		return;
	}
	for (size_t i = 0; i < c->partition_count; i++) {
		const struct partition_config *p = &c->partitions[i];
		if (!p->has_partid)
			continue;
		if (!owner[p->partid]) {
			owner[p->partid] = i + 1;
			continue;
		}
		const struct partition_config *q = &c->partitions[owner[p->partid] - 1];
		diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, "partid"),
			 "partid %u is already used by partition \"%s\" (line %u)", p->partid, q->name,
			 config_partition_key_line(c, q, "partid"));
	}
	free(owner);
}

struct pid_entry {
	pid_t pid;
	size_t partition;
};

static int by_pid_then_partition(const void *a, const void *b)
{
	const struct pid_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->partition < y->partition ? -1 : x->partition > y->partition;
}

/* Every pid listed by two partitions, found by sorting (pid, partition): O(n log n). Within one
 * partition the parser already refuses a pid listed twice. */
static void check_pids_unique(const struct config *c, struct diag_list *d)
{
	size_t total = 0, n = 0;

	for (size_t i = 0; i < c->partition_count; i++)
		total += c->partitions[i].pid_count;
	if (total < 2)
		return;
	struct pid_entry *all = malloc(total * sizeof(*all));
	if (!all) {
		diag_add(d, DIAG_ERROR, 0, "out of memory checking pids");
		return;
	}
	for (size_t i = 0; i < c->partition_count; i++)
		for (size_t k = 0; k < c->partitions[i].pid_count; k++)
			all[n++] = (struct pid_entry){ c->partitions[i].pids[k], i };
	qsort(all, n, sizeof(*all), by_pid_then_partition);
	for (size_t k = 1; k < n; k++) {
		if (all[k].pid != all[k - 1].pid)
			continue;
		size_t first = k - 1;
		while (first > 0 && all[first - 1].pid == all[k].pid)
			first--;
		const struct partition_config *p = &c->partitions[all[k].partition],
					      *q = &c->partitions[all[first].partition];
		diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, "pids"),
			 "pid %d is already in partition \"%s\" (line %u)", (int)all[k].pid, q->name,
			 config_partition_key_line(c, q, "pids"));
	}
	free(all);
}

/* A CPU belongs to one resctrl group at a time: the first partition listing it owns it, and each
 * later one is told once per owner it clashes with (at the lowest shared CPU). */
static void check_cpus_unique(const struct config *c, struct diag_list *d)
{
	size_t *owner = calloc(CPU_LIMIT, sizeof(*owner)), *told = calloc(c->partition_count + 1, sizeof(*told));

	if (!owner || !told) {
		diag_add(d, DIAG_ERROR, 0, "out of memory checking cpus");
		free(owner);
		free(told);
		return;
	}
	for (size_t i = 0; i < c->partition_count; i++) {
		const struct partition_config *p = &c->partitions[i];
		for (unsigned w = 0; p->cpus && w < CPU_LIMIT / 64; w++) {
			for (uint64_t bits = p->cpus->bits[w]; bits; bits &= bits - 1) {
				unsigned cpu = w * 64 + (unsigned)__builtin_ctzll(bits);
				if (!owner[cpu]) {
					owner[cpu] = i + 1;
					continue;
				}
				if (told[owner[cpu]] == i + 1)
					continue;
				told[owner[cpu]] = i + 1;
				const struct partition_config *q = &c->partitions[owner[cpu] - 1];
				diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, "cpus"),
					 "cpu %u is already in partition \"%s\" (line %u)", cpu, q->name,
					 config_partition_key_line(c, q, "cpus"));
			}
		}
	}
	free(owner);
	free(told);
}

static unsigned msc_key_line(const struct msc_config *m, const char *key)
{
	int index = config_section_key_index(&config_msc_section, key);

	return config_origin_key_line(&m->origin, index);
}

static uint64_t page_size_set;

uint64_t config_page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page_size_set ? page_size_set : page > 0 ? (uint64_t)page : 4096;
}

void config_page_size_set(uint64_t bytes)
{
	page_size_set = bytes;
}

/* /dev/mem maps whole pages: a window that is not made of this kernel's pages would map its
 * neighbours too (other devices' registers). */
static void check_msc_pages(const struct msc_config *m, struct diag_list *d)
{
	uint64_t page = config_page_size();

	if (!m->size || (m->base % page == 0 && m->size % page == 0))
		return;
	diag_add(d, DIAG_ERROR, msc_key_line(m, m->base % page ? "base" : "size"),
		 "msc \"%s\" window 0x%llx+0x%llx is not made of whole pages of this kernel (0x%llx bytes): "
		 "/dev/mem would map its neighbours too",
		 m->name, (unsigned long long)m->base, (unsigned long long)m->size, (unsigned long long)page);
}

/* A simulated backend maps no window: its [msc] sections (unused) are not held to pages. */
static void check_msc_windows(const struct config *c, const struct config_schema *schema, struct diag_list *d)
{
	bool mapped = !schema || !name_listed(schema->simulated, c->global.backend);

	for (size_t i = 0; i < c->msc_count; i++) {
		const struct msc_config *m = &c->mscs[i];
		if (!msc_key_line(m, "base") || !msc_key_line(m, "size")) {
			diag_add(d, DIAG_ERROR, m->origin.line, "msc \"%s\" needs both base and size", m->name);
			continue;
		}
		if (m->base + m->size < m->base) {
			diag_add(d, DIAG_ERROR, msc_key_line(m, "size"),
				 "msc \"%s\": base + size is beyond the 64-bit address space", m->name);
			continue;
		}
		if (mapped)
			check_msc_pages(m, d);
		for (size_t j = 0; j < i; j++) {
			const struct msc_config *o = &c->mscs[j];
			if (!o->size || o->base + o->size < o->base)
				continue;
			if (m->base < o->base + o->size && o->base < m->base + m->size)
				diag_add(d, DIAG_ERROR, msc_key_line(m, "base"),
					 "msc \"%s\" window 0x%llx+0x%llx overlaps msc \"%s\" (line %u)", m->name,
					 (unsigned long long)m->base, (unsigned long long)m->size, o->name,
					 o->origin.line);
		}
	}
}

/* A partition naming the same cgroup or VM as an earlier one (`earlier`), or naming both (SIZE_MAX). */
struct source_clash {
	size_t partition, earlier;
	bool vm;
};

struct source_entry {
	const char *name;
	size_t partition;
};

static int by_name_then_partition(const void *a, const void *b)
{
	const struct source_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->partition < y->partition ? -1 : x->partition > y->partition;
}

/* In the order the pairwise check told them: by partition, then the earlier one, cgroup before vm. */
static int by_clash_order(const void *a, const void *b)
{
	const struct source_clash *x = a, *y = b;

	if (x->partition != y->partition)
		return x->partition < y->partition ? -1 : 1;
	if (x->earlier != y->earlier)
		return x->earlier + 1 < y->earlier + 1 ? -1 : 1; /* SIZE_MAX (both) + 1 wraps to first */
	return (int)x->vm - (int)y->vm;
}

static int add_clash(struct source_clash **all, size_t *n, size_t *cap, struct source_clash c)
{
	if (array_grow((void **)all, cap, *n + 1, sizeof(**all), NULL) < 0)
		return -ENOMEM;
	(*all)[(*n)++] = c;
	return 0;
}

/* Every pair of partitions naming the same cgroup (vm: VM), found by sorting (name, partition). */
static int find_shared_sources(const struct config *c, bool vm, struct source_entry *scratch, struct source_clash **all,
			       size_t *n, size_t *cap)
{
	size_t count = 0;

	for (size_t i = 0; i < c->partition_count; i++) {
		const char *name = vm ? c->partitions[i].vm : c->partitions[i].cgroup;
		if (name)
			scratch[count++] = (struct source_entry){ name, i };
	}
	qsort(scratch, count, sizeof(*scratch), by_name_then_partition);
	for (size_t k = 1, first = 0; k < count; k++) {
		if (strcmp(scratch[k].name, scratch[first].name)) {
			first = k;
			continue;
		}
		for (size_t f = first; f < k; f++)
			if (add_clash(all, n, cap,
				      (struct source_clash){ scratch[k].partition, scratch[f].partition, vm }) < 0)
				return -ENOMEM;
	}
	return 0;
}

static void tell_clash(const struct config *c, const struct source_clash *x, struct diag_list *d)
{
	const struct partition_config *p = &c->partitions[x->partition];

	if (x->earlier == SIZE_MAX) {
		diag_add(d, DIAG_ERROR,
			 later(config_partition_key_line(c, p, "cgroup"), config_partition_key_line(c, p, "vm")),
			 "partition \"%s\" has both cgroup and vm: a VM's tasks are its scope's, give one", p->name);
		return;
	}
	const struct partition_config *q = &c->partitions[x->earlier];
	const char *key = x->vm ? "vm" : "cgroup";
	diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, key), "%s %s is already partition \"%s\"'s (line %u)",
		 key, x->vm ? p->vm : p->cgroup, q->name, config_partition_key_line(c, q, key));
}

/* Where a partition's tasks come from: a cgroup or a VM, not both, and each in one partition only (two
 * partitions placing the same threads would move them back and forth). Sorted, not pairwise: config
 * load stays n log n in partitions. */
static void check_task_sources(const struct config *c, struct diag_list *d)
{
	struct source_entry *scratch = malloc((c->partition_count + 1) * sizeof(*scratch));
	struct source_clash *all = NULL;
	size_t n = 0, cap = 0;
	int r = scratch ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < c->partition_count; i++)
		if (c->partitions[i].cgroup && c->partitions[i].vm)
			r = add_clash(&all, &n, &cap, (struct source_clash){ i, SIZE_MAX, false });
	if (r == 0)
		r = find_shared_sources(c, false, scratch, &all, &n, &cap);
	if (r == 0)
		r = find_shared_sources(c, true, scratch, &all, &n, &cap);
	if (r < 0)
		diag_add(d, DIAG_ERROR, 0, "out of memory checking cgroups and vms");
	else if (n)
		qsort(all, n, sizeof(*all), by_clash_order);
	for (size_t k = 0; r == 0 && k < n; k++)
		tell_clash(c, &all[k], d);
	free(all);
	free(scratch);
}

/* A template needs a pattern, and its goals follow the rules a partition's do. */
static void check_templates(const struct config *c, struct diag_list *d)
{
	for (size_t i = 0; i < c->template_count; i++) {
		const struct vm_template *t = &c->templates[i];
		if (!t->match)
			diag_add(d, DIAG_ERROR, t->partition.origin.line,
				 "vm-template \"%s\" needs match = PATTERN (the names of the VMs it is for)", t->name);
		check_goals(c, &t->partition, d);
	}
}

/* threads = vcpu picks QEMU's vCPU threads among those of the partition's cgroup or VM; with neither
 * (pids: every thread of each process is placed) it would pick nothing it says it does. */
static void check_threads_source(const struct config *c, struct diag_list *d)
{
	for (size_t i = 0; i < c->partition_count; i++) {
		const struct partition_config *p = &c->partitions[i];
		if (p->threads == THREADS_VCPU && !p->cgroup && !p->vm)
			diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, "threads"),
				 "threads = vcpu picks the vCPU threads of a cgroup or vm, and partition \"%s\" has "
				 "neither (pids places every thread of each process)",
				 p->name);
	}
}

static void warn_escalation_without_cgroup(const struct config *c, struct diag_list *d)
{
	for (size_t i = 0; c->global.escalate && i < c->partition_count; i++)
		if (c->partitions[i].goals.class == CLASS_BEST_EFFORT && !c->partitions[i].cgroup)
			diag_add(d, DIAG_WARNING, c->partitions[i].origin.line,
				 "escalate = true, but best-effort partition \"%s\" has no cgroup whose CPU quota "
				 "could be lowered",
				 c->partitions[i].name);
}

void config_check_base(struct config *c, const struct config_schema *schema, struct diag_list *d)
{
	if (resolve_global(c) < 0) {
		d->out_of_memory = true;
		return;
	}
	check_kinds(c, schema, d);
	for (size_t i = 0; i < c->partition_count; i++)
		check_goals(c, &c->partitions[i], d);
	check_partids_distinct(c, d);
	check_pids_unique(c, d);
	check_cpus_unique(c, d);
	check_task_sources(c, d);
	check_templates(c, d);
	check_threads_source(c, d);
	check_msc_windows(c, schema, d);
	warn_escalation_without_cgroup(c, d);
	if (c->partition_count == 0 && c->template_count == 0)
		diag_add(d, DIAG_WARNING, 0,
			 "no [partition \"NAME\"] or [vm-template \"NAME\"] sections: mpamd would have nothing to "
			 "manage");
}
