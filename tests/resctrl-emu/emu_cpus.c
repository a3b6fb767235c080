/* See emu_cpus.h. Rules from fs/resctrl/rdtgroup.c: rdtgroup_cpus_write, cpus_ctrl_write,
 * cpus_mon_write and cpumask_rdtgrp_clear. */
#include "emu_cpus.h"

#include <errno.h>

#include "emu_state.h"

int emu_cpus_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	emu_cpumask_print(&n->group->cpus, e->opt.possible_cpus, out);
	return 0;
}

int emu_cpus_list_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	emu_cpulist_print(&n->group->cpus, e->opt.possible_cpus, out);
	return 0;
}

/* Removes m from r and from r's MON groups. */
static void clear_from(struct emu_group *r, const struct emu_cpumask *m)
{
	emu_cpumask_andnot(&r->cpus, &r->cpus, m);
	for (struct emu_group *c = r->mons; c; c = c->next)
		emu_cpumask_and(&c->cpus, &c->cpus, &r->cpus);
}

static int ctrl_write(struct emu *e, struct emu_group *g, const struct emu_cpumask *newmask)
{
	struct emu_group *root = emu_default_group(e);
	struct emu_cpumask dropped, added;

	emu_cpumask_andnot(&dropped, &g->cpus, newmask);
	if (!emu_cpumask_empty(&dropped)) {
		if (g == root) {
			emu_status_printf(&e->status, "Can't drop CPUs from default group\n");
			return -EINVAL;
		}
		emu_cpumask_or(&root->cpus, &root->cpus, &dropped);
	}
	emu_cpumask_andnot(&added, newmask, &g->cpus);
	if (!emu_cpumask_empty(&added))
		for (struct emu_group *r = e->groups; r; r = r->next)
			if (r != g)
				clear_from(r, &added);
	g->cpus = *newmask;
	/* The kernel empties the MON groups' masks whenever the parent's changes. */
	for (struct emu_group *c = g->mons; c; c = c->next)
		emu_cpumask_zero(&c->cpus);
	return 0;
}

static int mon_write(struct emu *e, struct emu_group *g, const struct emu_cpumask *newmask)
{
	struct emu_group *parent = g->parent;
	struct emu_cpumask outside, added;

	emu_cpumask_andnot(&outside, newmask, &parent->cpus);
	if (!emu_cpumask_empty(&outside)) {
		emu_status_printf(&e->status, "Can only add CPUs to mongroup that belong to parent\n");
		return -EINVAL;
	}
	/* Dropped CPUs simply fall back to the parent, which still owns them. */
	emu_cpumask_andnot(&added, newmask, &g->cpus);
	if (!emu_cpumask_empty(&added))
		for (struct emu_group *c = parent->mons; c; c = c->next)
			if (c != g)
				emu_cpumask_andnot(&c->cpus, &c->cpus, &added);
	g->cpus = *newmask;
	return 0;
}

/* rdtgroup_cpus_write() clears last_cmd_status first (7.2 explicitly, 7.3 in rdtgroup_kn_lock_live),
 * parses the possible CPUs' width (a CPU past them: "Bad CPU list/mask", ERANGE or EOVERFLOW), then
 * refuses a possible CPU that is offline. */
static int cpus_write(struct emu *e, struct emu_group *g, const char *buf, bool list)
{
	struct emu_cpumask newmask, online, offline;
	unsigned nbits = e->opt.possible_cpus;
	int r = list ? emu_cpulist_parse(buf, nbits, &newmask) : emu_cpumask_parse(buf, nbits, &newmask);

	emu_status_clear(&e->status);
	if (r) {
		emu_status_printf(&e->status, "Bad CPU list/mask\n");
		return r;
	}
	emu_cpumask_fill(&online, e->opt.ncpus);
	emu_cpumask_andnot(&offline, &newmask, &online);
	if (!emu_cpumask_empty(&offline)) {
		emu_status_printf(&e->status, "Can only assign online CPUs\n");
		return -EINVAL;
	}
	return g->is_mon ? mon_write(e, g, &newmask) : ctrl_write(e, g, &newmask);
}

int emu_cpus_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	(void)len;
	(void)who;
	return cpus_write(e, n->group, buf, false);
}

int emu_cpus_list_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	(void)len;
	(void)who;
	return cpus_write(e, n->group, buf, true);
}

void emu_cpus_group_removed(struct emu *e, struct emu_group *g)
{
	struct emu_group *root = emu_default_group(e);

	if (!g->is_mon)
		emu_cpumask_or(&root->cpus, &root->cpus, &g->cpus);
}
