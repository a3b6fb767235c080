/* See emu_tree.h. */
#include "emu_tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "emu_ctl.h"
#include "emu_state.h"

static int step_file(struct emu *e, struct emu_node *n, const char *name)
{
	size_t count;
	const struct emu_file *files = emu_files_of(n->kind, n->res, &count);

	for (size_t i = 0; i < count; i++) {
		char buf[64];
		if (strcmp(emu_file_name(e, &files[i], buf, sizeof(buf)), name) != 0 ||
		    !emu_file_present(e, n, &files[i]))
			continue;
		n->dir = n->kind;
		n->kind = EMU_N_FILE;
		n->file = &files[i];
		return 0;
	}
	return -ENOENT;
}

static int step_group(struct emu *e, struct emu_node *n, const char *name)
{
	struct emu_group *g = n->group;

	if (g == emu_default_group(e)) {
		struct emu_group *child = emu_find_ctrl(e, name);
		if (child) {
			n->group = child;
			return 0;
		}
		if (strcmp(name, "info") == 0) {
			*n = (struct emu_node){ .kind = EMU_N_INFO, .res = EMU_INFO_TOP };
			return 0;
		}
		if (strcmp(name, EMU_CTL_NAME) == 0) {
			*n = (struct emu_node){
				.kind = EMU_N_FILE, .dir = EMU_N_GROUP, .group = g, .file = emu_ctl_file()
			};
			return 0;
		}
	}
	if (!g->is_mon && strcmp(name, "mon_groups") == 0) {
		n->kind = EMU_N_MON_GROUPS;
		return 0;
	}
	if (strcmp(name, "mon_data") == 0) {
		n->kind = EMU_N_MON_DATA;
		return 0;
	}
	return step_file(e, n, name);
}

static int step_mon_data(struct emu *e, struct emu_node *n, const char *name)
{
	char buf[32];

	for (unsigned d = 0; d < e->prof.domains; d++) {
		emu_domain_name(e, d, buf, sizeof(buf));
		if (strcmp(buf, name) == 0) {
			n->kind = EMU_N_MON_DOMAIN;
			n->domain = d;
			return 0;
		}
	}
	return -ENOENT;
}

static int step_info(struct emu *e, struct emu_node *n, const char *name)
{
	for (int r = EMU_INFO_L3; r < EMU_INFO_COUNT; r++) {
		if (emu_info_res_present(e, (enum emu_info_res)r) &&
		    strcmp(name, emu_info_res_name(e, (enum emu_info_res)r)) == 0) {
			n->kind = EMU_N_INFO_RES;
			n->res = (enum emu_info_res)r;
			return 0;
		}
	}
	return step_file(e, n, name);
}

static bool has_event_configs(const struct emu *e, const struct emu_node *n)
{
	return n->res == EMU_INFO_L3_MON && e->prof.cntr_assignable;
}

static bool is_mbm_event(int ev)
{
	return ev == EMU_EVT_TOTAL || ev == EMU_EVT_LOCAL;
}

static int step_info_res(struct emu *e, struct emu_node *n, const char *name)
{
	if (has_event_configs(e, n) && strcmp(name, "event_configs") == 0) {
		n->kind = EMU_N_EVENT_CONFIGS;
		return 0;
	}
	return step_file(e, n, name);
}

static int step_event_configs(struct emu *e, struct emu_node *n, const char *name)
{
	int ev = emu_event_by_name(&e->prof, name);

	if (!is_mbm_event(ev))
		return -ENOENT;
	n->kind = EMU_N_EVENT_CONFIG;
	n->event = ev;
	return 0;
}

static int step(struct emu *e, struct emu_node *n, const char *name)
{
	struct emu_group *m;

	switch (n->kind) {
	case EMU_N_GROUP:
		return step_group(e, n, name);
	case EMU_N_MON_GROUPS:
		m = emu_find_mon(n->group, name);
		if (!m)
			return -ENOENT;
		n->kind = EMU_N_GROUP;
		n->group = m;
		return 0;
	case EMU_N_MON_DATA:
		return step_mon_data(e, n, name);
	case EMU_N_INFO:
		return step_info(e, n, name);
	case EMU_N_INFO_RES:
		return step_info_res(e, n, name);
	case EMU_N_EVENT_CONFIGS:
		return step_event_configs(e, n, name);
	case EMU_N_MON_DOMAIN:
	case EMU_N_EVENT_CONFIG:
		return step_file(e, n, name);
	case EMU_N_FILE:
	default:
		return -ENOTDIR;
	}
}

int emu_resolve(struct emu *e, const char *path, struct emu_node *ret)
{
	char copy[PATH_MAX], *save = NULL;

	if (strlen(path) >= sizeof(copy))
		return -ENAMETOOLONG;
	strcpy(copy, path);
	*ret = (struct emu_node){ .kind = EMU_N_GROUP, .group = emu_default_group(e) };
	for (char *name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		int r = step(e, ret, name);
		if (r)
			return r;
	}
	return 0;
}

static void list_files(struct emu *e, const struct emu_node *dir, emu_list_fn *fn, void *ctx)
{
	size_t count;
	const struct emu_file *files = emu_files_of(dir->kind, dir->res, &count);

	for (size_t i = 0; i < count; i++) {
		char buf[64];
		if (emu_file_present(e, dir, &files[i]))
			fn(ctx, emu_file_name(e, &files[i], buf, sizeof(buf)), false);
	}
}

static void list_group(struct emu *e, const struct emu_node *dir, emu_list_fn *fn, void *ctx)
{
	struct emu_group *g = dir->group;

	if (g == emu_default_group(e)) {
		fn(ctx, "info", true);
		for (struct emu_group *c = g->next; c; c = c->next)
			fn(ctx, c->name, true);
		fn(ctx, EMU_CTL_NAME, false);
	}
	if (!g->is_mon)
		fn(ctx, "mon_groups", true);
	fn(ctx, "mon_data", true);
	list_files(e, dir, fn, ctx);
}

int emu_list(struct emu *e, const struct emu_node *dir, emu_list_fn *fn, void *ctx)
{
	char buf[32];

	switch (dir->kind) {
	case EMU_N_GROUP:
		list_group(e, dir, fn, ctx);
		return 0;
	case EMU_N_MON_GROUPS:
		for (struct emu_group *m = dir->group->mons; m; m = m->next)
			fn(ctx, m->name, true);
		return 0;
	case EMU_N_MON_DATA:
		for (unsigned d = 0; d < e->prof.domains; d++) {
			emu_domain_name(e, d, buf, sizeof(buf));
			fn(ctx, buf, true);
		}
		return 0;
	case EMU_N_INFO:
		for (int r = EMU_INFO_L3; r < EMU_INFO_COUNT; r++)
			if (emu_info_res_present(e, (enum emu_info_res)r))
				fn(ctx, emu_info_res_name(e, (enum emu_info_res)r), true);
		list_files(e, dir, fn, ctx);
		return 0;
	case EMU_N_INFO_RES:
		if (has_event_configs(e, dir))
			fn(ctx, "event_configs", true);
		list_files(e, dir, fn, ctx);
		return 0;
	case EMU_N_EVENT_CONFIGS:
		for (int ev = 0; ev < EMU_EVT_COUNT; ev++)
			if (is_mbm_event(ev) && emu_profile_has_event(&e->prof, (enum emu_event)ev))
				fn(ctx, emu_event_name((enum emu_event)ev), true);
		return 0;
	case EMU_N_MON_DOMAIN:
	case EMU_N_EVENT_CONFIG:
		list_files(e, dir, fn, ctx);
		return 0;
	case EMU_N_FILE:
	default:
		return -ENOTDIR;
	}
}
