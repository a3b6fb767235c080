/* See emu_state.h. mkdir and rmdir follow fs/resctrl/rdtgroup.c: a CTRL_MON group takes a CLOSID
 * ("Out of CLOSIDs"), then an RMID ("Out of RMIDs", ENOSPC or EBUSY), then counters, then its initial
 * controls; a MON group takes an RMID of its parent's CLOSID. How CLOSIDs and RMIDs are chosen, and
 * how a freed RMID waits in limbo: emu_ids.h. On MPAM an RMID is a (CLOSID, PMG) pair, so each
 * CTRL_MON group can hold only pmg_max MON groups. */
#include "emu_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_assign.h"
#include "emu_counters.h"
#include "emu_cpus.h"
#include "emu_ids.h"
#include "emu_schemata.h"
#include "emu_threads.h"

static struct emu_group *group_new(const char *name, bool is_mon)
{
	static unsigned long serial;
	struct emu_group *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->serial = ++serial;
	g->name = strdup(name);
	if (!g->name) {
		free(g);
		return NULL;
	}
	g->is_mon = is_mon;
	g->partition = -1;
	g->mba_mbps_event = EMU_EVT_LOCAL; /* mba_mbps_default_event, where the profile has it */
	for (unsigned d = 0; d < EMU_MAX_DOMAINS; d++)
		for (int ev = 0; ev < EMU_EVT_COUNT; ev++)
			g->mon[d].cntr[ev] = -1;
	return g;
}

static void group_free(struct emu_group *g)
{
	free(g->name);
	free(g);
}

/* mkdir_rdt_prepare_rmid_alloc(): an RMID, then counters. */
static int attach_rmid(struct emu *e, struct emu_group *g)
{
	int r = emu_rmid_alloc(e, g);

	if (r) {
		emu_status_printf(&e->status, "Out of RMIDs\n");
		return r;
	}
	emu_assign_group_new(e, g);
	return 0;
}

static void detach_rmid(struct emu *e, struct emu_group *g)
{
	emu_assign_group_free(e, g);
	emu_rmid_free(e, g);
}

int emu_init(struct emu *e, const struct emu_profile *p, const struct emu_options *o, const struct config *config)
{
	memset(e, 0, sizeof(*e));
	e->prof = *p;
	e->opt = *o;
	if (!e->opt.proc_root)
		e->opt.proc_root = "/proc";
	e->config = config;
	e->mount_time = time(NULL);
	e->max_threshold = (unsigned)(emu_realloc_limit(p) / p->num_rmids);
	emu_status_clear(&e->status);
	emu_clock_init(&e->clock);
	emu_ids_init(e);
	emu_assign_init(e);
	for (unsigned c = 0; c < EMU_MAX_CLOSIDS; c++)
		for (unsigned d = 0; d < EMU_MAX_DOMAINS; d++) {
			e->l3[c][d] = e->l3_code[c][d] = (uint32_t)((UINT64_C(1) << p->cbm_len) - 1);
			e->mb[c][d] = emu_mb_to_hw(p, p->mb_max);
		}
	/* what an earlier tool left in the default group (CLOSID 0); a zeroed emu_options is the maximum */
	for (unsigned d = 0; o->root_mb > 0 && d < EMU_MAX_DOMAINS; d++)
		e->mb[0][d] = emu_mb_to_hw(p, (unsigned)o->root_mb);
	struct emu_group *root = group_new("", false);
	if (!root)
		return -ENOMEM;
	e->groups = root;
	emu_cpumask_fill(&root->cpus, o->ncpus);
	emu_assign_group_new(e, root);			  /* rdt_get_tree() assigns the default group's counters */
	if (emu_traffic_init(e) || emu_threads_sync(e)) { /* the first look reads every process's stat: now */
		emu_fini(e);
		return -ENOMEM;
	}
	emu_traffic_bind(e);
	return 0;
}

void emu_fini(struct emu *e)
{
	struct emu_group *g = e->groups;

	while (g) {
		struct emu_group *next = g->next;
		for (struct emu_group *m = g->mons, *mnext; m; m = mnext) {
			mnext = m->next;
			group_free(m);
		}
		group_free(g);
		g = next;
	}
	e->groups = NULL;
	emu_threads_fini(e);
	emu_traffic_fini(e);
}

bool emu_debug(const struct emu *e)
{
	return e->opt.debug;
}

bool emu_kernel_at_least(const struct emu *e, unsigned version)
{
	return e->prof.kernel >= version;
}

/* 7.3's rdtgroup_kn_lock_live() calls rdt_last_cmd_clear() after taking rdtgroup_mutex; 7.2's does
 * not (fs/resctrl/rdtgroup.c). */
void emu_group_locked(struct emu *e)
{
	if (emu_kernel_at_least(e, 703))
		emu_status_clear(&e->status);
}

/* 7.2: rdtgroup_schemata_write() and rdtgroup_mba_mbps_event_write() check the newline before
 * rdtgroup_kn_lock_live(), rdtgroup_mode_write() after it but without a message; 7.3 checks it after
 * the lock and says so. */
int emu_missing_newline(struct emu *e, const char *file)
{
	if (emu_kernel_at_least(e, 703))
		emu_status_printf(&e->status, "%s: Invalid input\n", file);
	return -EINVAL;
}

struct emu_group *emu_default_group(struct emu *e)
{
	return e->groups;
}

struct emu_group *emu_next_group(struct emu *e, struct emu_group *g)
{
	if (!g)
		return e->groups;
	if (!g->is_mon && g->mons)
		return g->mons;
	if (g->next)
		return g->next;
	return g->is_mon ? g->parent->next : NULL;
}

struct emu_group *emu_ctrl_of(struct emu_group *g)
{
	return g->is_mon ? g->parent : g;
}

struct emu_group *emu_find_ctrl(struct emu *e, const char *name)
{
	for (struct emu_group *g = e->groups->next; g; g = g->next)
		if (strcmp(g->name, name) == 0)
			return g;
	return NULL;
}

struct emu_group *emu_find_mon(struct emu_group *ctrl, const char *name)
{
	for (struct emu_group *m = ctrl->mons; m; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

struct emu_group *emu_group_of_closid(struct emu *e, unsigned closid)
{
	for (struct emu_group *g = e->groups; g; g = g->next)
		if (g->closid == closid)
			return g;
	return NULL;
}

bool emu_closid_allocated(const struct emu *e, unsigned closid)
{
	return closid < emu_closids(e) && !((e->ids.closid_free >> closid) & 1);
}

/* schemata_list_add(): a schema under CDP has half the resource's CLOSIDs. */
unsigned emu_closids(const struct emu *e)
{
	return e->prof.cdp ? e->prof.num_closids / 2 : e->prof.num_closids;
}

bool emu_has_mb(const struct emu *e)
{
	return !(e->prof.cdp && e->prof.mb_kind == EMU_MB_MPAM);
}

uint32_t *emu_cbm(struct emu *e, bool code, unsigned closid, unsigned d)
{
	return code && e->prof.cdp ? &e->l3_code[closid][d] : &e->l3[closid][d];
}

static void append(struct emu_group **head, struct emu_group *g)
{
	while (*head)
		head = &(*head)->next;
	*head = g;
}

static void unlink_group(struct emu_group **head, struct emu_group *g)
{
	while (*head != g)
		head = &(*head)->next;
	*head = g->next;
}

int emu_mkdir_ctrl(struct emu *e, const char *name)
{
	if (strchr(name, '\n'))
		return -EINVAL;
	emu_status_clear(&e->status);
	emu_limbo_run(e);
	int closid = emu_closid_alloc(e);
	if (closid < 0) {
		emu_status_printf(&e->status, "Out of CLOSIDs\n");
		return -ENOSPC;
	}
	struct emu_group *g = group_new(name, false);
	int r = g ? 0 : -ENOMEM;
	if (g) {
		g->closid = (unsigned)closid;
		r = attach_rmid(e, g);
	}
	if (!r) {
		r = emu_schemata_init_group(e, g);
		if (r)
			detach_rmid(e, g);
	}
	if (r) {
		emu_closid_free(e, (unsigned)closid);
		if (g)
			group_free(g);
		return r;
	}
	append(&e->groups, g);
	emu_traffic_bind(e);
	return 0;
}

/* mkdir_rdt_prepare() clears last_cmd_status once it holds the parent's group (7.2 by itself, 7.3 in
 * rdtgroup_kn_lock_live()), before is_mon_groups() refuses a MON group named mon_groups. */
int emu_mkdir_mon(struct emu *e, struct emu_group *ctrl, const char *name)
{
	if (strchr(name, '\n'))
		return -EINVAL;
	emu_status_clear(&e->status);
	if (strcmp(name, "mon_groups") == 0)
		return -EPERM;
	struct emu_group *g = group_new(name, true);
	if (!g)
		return -ENOMEM;
	g->parent = ctrl;
	g->closid = ctrl->closid;
	emu_limbo_run(e);
	int r = attach_rmid(e, g);
	if (r) {
		group_free(g);
		return r;
	}
	append(&ctrl->mons, g);
	emu_traffic_bind(e);
	return 0;
}

/* rdtgroup_mkdir() sends every parent but the root to rdtgroup_mkdir_mon(): mkdir_rdt_prepare() finds
 * no group for info/ and its directories (kernfs_to_rdtgroup()), and refuses any other parent that is
 * not a mon_groups (is_mon_groups()) after clearing last_cmd_status. */
int emu_mkdir_elsewhere(struct emu *e, enum emu_node_kind parent)
{
	switch (parent) {
	case EMU_N_INFO:
	case EMU_N_INFO_RES:
	case EMU_N_EVENT_CONFIGS:
	case EMU_N_EVENT_CONFIG:
		return -ENODEV;
	default:
		emu_status_clear(&e->status);
		return -EPERM;
	}
}

void emu_mon_reparent(struct emu_group *m, struct emu_group *parent)
{
	unlink_group(&m->parent->mons, m);
	m->next = NULL;
	append(&parent->mons, m);
	m->parent = parent;
	m->closid = parent->closid;
}

/* The RMID goes first, while the group still counts: limbo takes the occupancy it has. */
static void remove_mon(struct emu *e, struct emu_group *m)
{
	detach_rmid(e, m);
	unlink_group(&m->parent->mons, m);
	group_free(m);
}

int emu_rmdir(struct emu *e, struct emu_group *g)
{
	struct emu_group *root = emu_default_group(e);

	if (g == root)
		return -EPERM;
	emu_group_locked(e);
	emu_threads_regroup(e, g, g->is_mon ? g->parent : root);
	emu_cpus_group_removed(e, g);
	if (g->is_mon) {
		remove_mon(e, g);
	} else {
		while (g->mons)
			remove_mon(e, g->mons);
		detach_rmid(e, g);
		unlink_group(&e->groups, g);
		emu_closid_free(e, g->closid);
		group_free(g);
	}
	emu_traffic_bind(e);
	return 0;
}
