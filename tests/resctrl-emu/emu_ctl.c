/* See emu_ctl.h. */
#include "emu_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_counters.h"
#include "emu_state.h"
#include "emu_tree.h"

#define MAX_ARGS  6
#define MAX_ERRNO 4095

static const char *const state_names[] = {
	[EMU_CNT_OK] = "ok",	   [EMU_CNT_UNAVAILABLE] = "unavailable",
	[EMU_CNT_ERROR] = "error", [EMU_CNT_UNASSIGNED] = "unassigned",
	[EMU_CNT_ZERO] = "zero",
};

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "?";
}

/* "EIO" or "5". */
static int parse_errno(const char *text)
{
	unsigned v;

	if (emu_kstrtouint(text, 10, &v) == 0)
		return v >= 1 && v <= MAX_ERRNO ? (int)v : -1;
	for (int err = 1; err < 256; err++) {
		const char *name = strerrorname_np(err);
		if (name && strcmp(name, text) == 0)
			return err;
	}
	return -1;
}

static int cmd_fail_next_write(struct emu *e, char **argv, int argc)
{
	int err = argc == 2 || argc == 3 ? parse_errno(argv[1]) : -1;

	if (err < 0 || (argc == 3 && strlen(argv[2]) >= sizeof(e->faults.write_suffix)))
		return -EINVAL;
	e->faults.write_errno = err;
	snprintf(e->faults.write_suffix, sizeof(e->faults.write_suffix), "%s", argc == 3 ? argv[2] : "");
	return 0;
}

static int cmd_fail_mkdir(struct emu *e, char **argv, int argc)
{
	int err = argc == 2 ? parse_errno(argv[1]) : -1;

	if (err < 0)
		return -EINVAL;
	e->faults.mkdir_errno = err;
	return 0;
}

static struct emu_group *group_by_path(struct emu *e, const char *text)
{
	char path[1024];
	struct emu_node node;

	if (strcmp(text, ".") == 0)
		return emu_default_group(e);
	snprintf(path, sizeof(path), "/%s", text);
	if (emu_resolve(e, path, &node) || node.kind != EMU_N_GROUP)
		return NULL;
	return node.group;
}

static int parse_state(const char *text)
{
	for (size_t i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (strcmp(text, state_names[i]) == 0)
			return (int)i;
	return -1;
}

static int cmd_counter(struct emu *e, char **argv, int argc)
{
	unsigned domain;

	if (argc != 5)
		return -EINVAL;
	struct emu_group *g = group_by_path(e, argv[1]);
	int ev = emu_event_by_name(&e->prof, argv[3]);
	bool reset = strcmp(argv[4], "reset") == 0;
	int state = reset ? EMU_CNT_OK : parse_state(argv[4]);
	if (!g || emu_kstrtouint(argv[2], 10, &domain) || domain >= e->prof.domains || ev < 0 || state < 0)
		return -EINVAL;
	if (reset) {
		if (ev == EMU_EVT_LLC)
			return -EINVAL; /* occupancy is not a count */
		emu_traffic_sync(e);
		emu_counter_restart(g, domain, (enum emu_event)ev);
		return 0;
	}
	g->mon[domain].forced[ev] = (enum emu_counter_state)state;
	return 0;
}

static int cmd_clock(struct emu *e, char **argv, int argc)
{
	if (argc != 2 || (strcmp(argv[1], "manual") && strcmp(argv[1], "real")))
		return -EINVAL;
	emu_traffic_sync(e); /* what happened before the switch used the old clock */
	emu_clock_set_manual(&e->clock, strcmp(argv[1], "manual") == 0);
	return 0;
}

static int cmd_advance(struct emu *e, char **argv, int argc)
{
	unsigned long long ms;

	if (argc != 2 || emu_kstrtoull(argv[1], 10, &ms) || ms > UINT64_MAX / 1000000u)
		return -EINVAL;
	return emu_clock_advance(&e->clock, ms * 1000000u);
}

static int cmd_vanish(struct emu *e, char **argv, int argc)
{
	(void)argv;
	if (argc != 1)
		return -EINVAL;
	e->vanish = true;
	return 0;
}

static const struct {
	const char *name;
	int (*run)(struct emu *e, char **argv, int argc);
	const char *usage;
} commands[] = {
	{ "fail_next_write", cmd_fail_next_write, "fail_next_write ERRNO [PATH_SUFFIX]" },
	{ "fail_mkdir", cmd_fail_mkdir, "fail_mkdir ERRNO" },
	{ "counter", cmd_counter, "counter GROUP DOMAIN EVENT ok|unavailable|error|unassigned|zero|reset" },
	{ "clock", cmd_clock, "clock manual|real" },
	{ "advance", cmd_advance, "advance MS" },
	{ "vanish", cmd_vanish, "vanish" },
};

int emu_ctl_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	char *argv[MAX_ARGS + 1], *save = NULL;
	int argc = 0;

	(void)n;
	(void)who;
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strlen(buf) != len || strchr(buf, '\n'))
		return -EINVAL; /* one command per write */
	for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (argc == MAX_ARGS)
			return -EINVAL;
		argv[argc++] = tok;
	}
	for (size_t i = 0; argc > 0 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[0], commands[i].name) == 0)
			return commands[i].run(e, argv, argc);
	return -EINVAL;
}

static void show_group_path(const struct emu_group *g, struct emu_buf *out)
{
	if (g->is_mon)
		emu_buf_printf(out, "%s/mon_groups/%s", g->parent->name[0] ? g->parent->name : ".", g->name);
	else
		emu_buf_printf(out, "%s", g->name[0] ? g->name : ".");
}

static void show_forced(struct emu *e, struct emu_buf *out)
{
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		for (unsigned d = 0; d < e->prof.domains; d++)
			for (int ev = 0; ev < EMU_EVT_COUNT; ev++) {
				if (g->mon[d].forced[ev] == EMU_CNT_OK)
					continue;
				emu_buf_printf(out, "counter ");
				show_group_path(g, out);
				emu_buf_printf(out, " %u %s %s\n", d, emu_event_name((enum emu_event)ev),
					       state_names[g->mon[d].forced[ev]]);
			}
}

int emu_ctl_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	const struct emu_faults *f = &e->faults;

	(void)n;
	emu_buf_printf(out, "# commands, one per write:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		emu_buf_printf(out, "#   %s\n", commands[i].usage);
	emu_buf_printf(out, "profile %s\nclock %s\ntime_ms %.3f\n", e->prof.name, e->clock.manual ? "manual" : "real",
		       (double)emu_clock_now(&e->clock) / 1e6);
	if (f->write_errno)
		emu_buf_printf(out, "fail_next_write %s %s\n", errno_name(f->write_errno), f->write_suffix);
	if (f->mkdir_errno)
		emu_buf_printf(out, "fail_mkdir %s\n", errno_name(f->mkdir_errno));
	show_forced(e, out);
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int emu_faults_take_write(struct emu *e, const char *path)
{
	int err = e->faults.write_errno;

	if (!err || !ends_with(path, e->faults.write_suffix))
		return 0;
	e->faults.write_errno = 0;
	return err;
}

int emu_faults_take_mkdir(struct emu *e)
{
	int err = e->faults.mkdir_errno;

	e->faults.mkdir_errno = 0;
	return err;
}
