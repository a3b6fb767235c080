/* See emu_assign.h. Rules from fs/resctrl/monitor.c: rdtgroup_alloc_assign_cntr ("Failed to
 * allocate counter for %s in domain %d", ENOSPC), rdtgroup_assign_cntr_event (7.2 and 7.3: every
 * domain is tried and the last failure returned; 6.18 stopped at the first), resctrl_parse_mbm_assignment (no all-or-nothing: earlier lines stay
 * applied; "*" ends the line), mbm_L3_assignments_write, resctrl_mbm_assign_mode_show/_write (a mode
 * change frees every counter and restarts every count; with mbm_cntr_assign_fixed only the current
 * mode is listed and a change fails with "Counter assignment mode is not configurable"),
 * resctrl_mbm_assign_on_mkdir_write, and event_filter_show/_write. */
#include "emu_assign.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu_counters.h"
#include "emu_state.h"

#define ALL_DOMAINS (-1)

static const enum emu_event mbm_events[] = { EMU_EVT_TOTAL, EMU_EVT_LOCAL };
#define MBM_EVENT_COUNT (sizeof(mbm_events) / sizeof(mbm_events[0]))

/* include/linux/resctrl_types.h */
#define READS_TO_LOCAL_MEM	    (1u << 0)
#define NON_TEMP_WRITE_TO_LOCAL_MEM (1u << 2)
#define READS_TO_LOCAL_S_MEM	    (1u << 4)

/* resctrl_l3_mon_resource_init() with assignable counters: total counts every transaction the
 * hardware can, local only those to local memory. */
void emu_assign_init(struct emu *e)
{
	e->assign.enabled = e->prof.cntr_assignable;
	e->assign.on_mkdir = e->assign.enabled;
	e->assign.evt_cfg[EMU_EVT_TOTAL] = e->prof.mbm_cfg_mask;
	e->assign.evt_cfg[EMU_EVT_LOCAL] =
		e->prof.mbm_cfg_mask & (READS_TO_LOCAL_MEM | READS_TO_LOCAL_S_MEM | NON_TEMP_WRITE_TO_LOCAL_MEM);
	memset(e->assign.cntr, 0, sizeof(e->assign.cntr));
}

static int alloc_one(struct emu *e, struct emu_group *g, unsigned d, enum emu_event ev)
{
	if (g->mon[d].cntr[ev] >= 0)
		return 0;
	for (unsigned i = 0; i < e->prof.num_mbm_cntrs; i++) {
		struct emu_cntr *c = &e->assign.cntr[d][i];
		if (c->group)
			continue;
		c->group = g;
		c->event = ev;
		g->mon[d].cntr[ev] = (int)i;
		emu_counter_assigned(e, g, d, ev);
		return 0;
	}
	emu_status_printf(&e->status, "Failed to allocate counter for %s in domain %u\n", emu_event_name(ev), d);
	return -ENOSPC;
}

static void free_one(struct emu *e, struct emu_group *g, unsigned d, enum emu_event ev)
{
	int i = g->mon[d].cntr[ev];

	if (i < 0)
		return;
	e->assign.cntr[d][i].group = NULL;
	g->mon[d].cntr[ev] = -1;
}

static int assign_event(struct emu *e, struct emu_group *g, int domain, enum emu_event ev)
{
	int ret = 0;

	for (unsigned d = 0; d < e->prof.domains; d++) {
		if (domain != ALL_DOMAINS && (unsigned)domain != d)
			continue;
		int r = alloc_one(e, g, d, ev);
		if (r)
			ret = r;
	}
	return ret;
}

static void unassign_event(struct emu *e, struct emu_group *g, int domain, enum emu_event ev)
{
	for (unsigned d = 0; d < e->prof.domains; d++)
		if (domain == ALL_DOMAINS || (unsigned)domain == d)
			free_one(e, g, d, ev);
}

void emu_assign_group_new(struct emu *e, struct emu_group *g)
{
	if (!e->assign.enabled || !e->assign.on_mkdir)
		return;
	for (size_t i = 0; i < MBM_EVENT_COUNT; i++)
		if (emu_profile_has_event(&e->prof, mbm_events[i]))
			assign_event(e, g, ALL_DOMAINS, mbm_events[i]);
}

void emu_assign_group_free(struct emu *e, struct emu_group *g)
{
	for (size_t i = 0; i < MBM_EVENT_COUNT; i++)
		unassign_event(e, g, ALL_DOMAINS, mbm_events[i]);
}

int emu_assign_mode_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	if (!e->prof.cntr_assignable)
		emu_buf_printf(out, "[default]\n");
	else if (e->prof.assign_fixed)
		emu_buf_printf(out, "%s\n", e->assign.enabled ? "[mbm_event]" : "[default]");
	else if (e->assign.enabled)
		emu_buf_printf(out, "[mbm_event]\ndefault\n");
	else
		emu_buf_printf(out, "[default]\nmbm_event\n");
	return 0;
}

/* Switching modes frees every counter and restarts every MBM count from 0. */
static void switch_mode(struct emu *e, bool enable)
{
	e->assign.enabled = enable;
	if (enable)
		e->assign.on_mkdir = true;
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g)) {
		emu_assign_group_free(e, g);
		for (unsigned d = 0; d < e->prof.domains; d++)
			for (size_t i = 0; i < MBM_EVENT_COUNT; i++)
				emu_counter_restart(g, d, mbm_events[i]);
	}
}

int emu_assign_mode_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	bool enable;

	(void)n;
	(void)who;
	if (emu_status_one_line(&e->status, "mbm_assign_mode", buf, len) < 0)
		return -EINVAL;
	if (strcmp(buf, "default") == 0) {
		enable = false;
	} else if (strcmp(buf, "mbm_event") == 0 && e->prof.cntr_assignable) {
		enable = true;
	} else {
		emu_status_printf(&e->status, strcmp(buf, "mbm_event") == 0 ? "mbm_event mode is not supported\n"
									    : "Unsupported assign mode\n");
		return -EINVAL;
	}
	if (enable == e->assign.enabled)
		return 0;
	if (e->prof.assign_fixed) {
		emu_status_printf(&e->status, "Counter assignment mode is not configurable\n");
		return -EINVAL;
	}
	switch_mode(e, enable);
	return 0;
}

int emu_num_cntrs_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	for (unsigned d = 0; d < e->prof.domains; d++)
		emu_buf_printf(out, "%s%u=%u", d ? ";" : "", d, e->prof.num_mbm_cntrs);
	emu_buf_putc(out, '\n');
	return 0;
}

/* The shows that need mbm_event mode clear last_cmd_status and explain when it is off. */
static int need_enabled(struct emu *e)
{
	emu_status_clear(&e->status);
	if (e->assign.enabled)
		return 0;
	emu_status_printf(&e->status, "mbm_event counter assignment mode is not enabled\n");
	return -EINVAL;
}

int emu_available_cntrs_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	int r = need_enabled(e);
	if (r)
		return r;
	for (unsigned d = 0; d < e->prof.domains; d++) {
		unsigned free_count = 0;
		for (unsigned i = 0; i < e->prof.num_mbm_cntrs; i++)
			free_count += !e->assign.cntr[d][i].group;
		emu_buf_printf(out, "%s%u=%u", d ? ";" : "", d, free_count);
	}
	emu_buf_putc(out, '\n');
	return 0;
}

int emu_assign_on_mkdir_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	int r = need_enabled(e);
	if (r)
		return r;
	emu_buf_printf(out, "%u\n", e->assign.on_mkdir ? 1u : 0u);
	return 0;
}

int emu_assign_on_mkdir_write(struct emu *e, const struct emu_node *n, char *buf, size_t len,
			      const struct emu_caller *who)
{
	bool value;

	(void)n;
	(void)len;
	(void)who;
	emu_status_clear(&e->status);
	int r = emu_kstrtobool(buf, &value);
	if (r) {
		emu_status_printf(&e->status, "mbm_assign_on_mkdir: Invalid input\n");
		return r;
	}
	r = need_enabled(e);
	if (r)
		return r;
	e->assign.on_mkdir = value;
	return 0;
}

int emu_assignments_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	int r = need_enabled(e);

	if (r)
		return r;
	for (size_t i = 0; i < MBM_EVENT_COUNT; i++) {
		enum emu_event ev = mbm_events[i];
		if (!emu_profile_has_event(&e->prof, ev))
			continue;
		emu_buf_printf(out, "%s:", emu_event_name(ev));
		for (unsigned d = 0; d < e->prof.domains; d++)
			emu_buf_printf(out, "%s%u=%c", d ? ";" : "", d, n->group->mon[d].cntr[ev] >= 0 ? 'e' : '_');
		emu_buf_putc(out, '\n');
	}
	return 0;
}

/* rdtgroup_modify_assign_state(). */
static int modify(struct emu *e, struct emu_group *g, const char *state, int domain, enum emu_event ev)
{
	if (!state || strlen(state) != 1)
		return -EINVAL;
	if (state[0] == 'e')
		return assign_event(e, g, domain, ev);
	if (state[0] != '_')
		return -EINVAL;
	unassign_event(e, g, domain, ev);
	return 0;
}

static int mbm_event_by_name(struct emu *e, const char *name)
{
	int ev = emu_event_by_name(&e->prof, name);

	return ev == EMU_EVT_TOTAL || ev == EMU_EVT_LOCAL ? ev : -1;
}

/* One "<event>:<id>=<state>;..." line. */
static int parse_line(struct emu *e, struct emu_group *g, const char *event, char *tok)
{
	int ev = mbm_event_by_name(e, event);

	if (ev < 0) {
		emu_status_printf(&e->status, "Invalid event %s\n", event);
		return -ENOENT;
	}
	while (tok && tok[0] != '\0') {
		char *state = emu_strim(strsep(&tok, ";"));
		char *id = strsep(&state, "=");
		unsigned long long dom;
		if (id && id[0] == '*') {
			int r = modify(e, g, state, ALL_DOMAINS, (enum emu_event)ev);
			if (r)
				emu_status_printf(&e->status, "Assign operation '%s:*=%s' failed\n", event,
						  state ? state : "(null)");
			return r; /* the kernel ignores anything after a '*' entry */
		}
		if (!id || emu_kstrtoull(id, 10, &dom)) {
			emu_status_printf(&e->status, "Missing domain id\n");
			return -EINVAL;
		}
		if (dom >= e->prof.domains) {
			emu_status_printf(&e->status, "Invalid domain id %llu\n", dom);
			return -EINVAL;
		}
		int r = modify(e, g, state, (int)dom, (enum emu_event)ev);
		if (r) {
			emu_status_printf(&e->status, "Assign operation '%s:%llu=%s' failed\n", event, dom,
					  state ? state : "(null)");
			return r;
		}
	}
	return 0;
}

int emu_assignments_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	char *line, file[48];

	(void)who;
	snprintf(file, sizeof(file), "mbm_%s_assignments", emu_mon_res(&e->prof));
	if (emu_status_one_line(&e->status, file, buf, len) < 0)
		return -EINVAL;
	if (!e->assign.enabled) {
		emu_status_printf(&e->status, "mbm_event mode is not enabled\n");
		return -EINVAL;
	}
	while ((line = strsep(&buf, "\n")) != NULL) {
		char *event = strsep(&line, ":");
		int r = parse_line(e, n->group, event, line);
		if (r)
			return r;
	}
	return 0;
}

/* event_filter_show(): the transactions in the event's configuration, comma separated. */
static const char *const transactions[] = {
	"local_reads",
	"remote_reads",
	"local_non_temporal_writes",
	"remote_non_temporal_writes",
	"local_reads_slow_memory",
	"remote_reads_slow_memory",
	"dirty_victim_writes_all",
};

#define TRANSACTION_COUNT (sizeof(transactions) / sizeof(transactions[0]))

int emu_event_filter_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	bool sep = false;

	int r = need_enabled(e);
	if (r)
		return r;
	for (size_t i = 0; i < TRANSACTION_COUNT; i++) {
		if (!((e->assign.evt_cfg[n->event] >> i) & 1u))
			continue;
		emu_buf_printf(out, "%s%s", sep ? "," : "", transactions[i]);
		sep = true;
	}
	emu_buf_putc(out, '\n');
	return 0;
}

/* resctrl_parse_mem_transactions(): names separated by commas, each trimmed; none is 0. */
static int parse_transactions(struct emu *e, char *text, uint32_t *ret)
{
	*ret = 0;
	while (text && text[0] != '\0') {
		char *name = emu_strim(strsep(&text, ","));
		size_t i = 0;
		while (i < TRANSACTION_COUNT && strcmp(transactions[i], name) != 0)
			i++;
		if (i == TRANSACTION_COUNT) {
			emu_status_printf(&e->status, "Invalid memory transaction type %s\n", name);
			return -EINVAL;
		}
		*ret |= 1u << i;
	}
	return 0;
}

/* resctrl_update_cntr_allrdtgrp(): each counter of the event is programmed again, which starts its
 * count anew. */
static void reprogram_event(struct emu *e, enum emu_event ev)
{
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		for (unsigned d = 0; d < e->prof.domains; d++)
			if (g->mon[d].cntr[ev] >= 0)
				emu_counter_assigned(e, g, d, ev);
}

/* event_filter_write(). 7.2 refuses a write without its newline before anything else, silently;
 * 7.3 clears last_cmd_status first and says so. Only configurable counters (AMD's) take it. */
int emu_event_filter_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	uint32_t cfg;

	(void)who;
	if (len == 0 || buf[len - 1] != '\n') {
		if (!emu_kernel_at_least(e, 703))
			return -EINVAL;
		emu_status_clear(&e->status);
		emu_status_printf(&e->status, "event_filter: Invalid input\n");
		return -EINVAL;
	}
	buf[len - 1] = '\0';
	int r = need_enabled(e);
	if (r)
		return r;
	if (!e->prof.cntr_configurable) {
		emu_status_printf(&e->status, "event_filter is not configurable\n");
		return -EPERM;
	}
	if ((r = parse_transactions(e, buf, &cfg)) != 0)
		return r;
	if (cfg != e->assign.evt_cfg[n->event]) {
		e->assign.evt_cfg[n->event] = cfg;
		reprogram_event(e, (enum emu_event)n->event);
	}
	return 0;
}
