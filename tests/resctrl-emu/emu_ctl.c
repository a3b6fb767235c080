/* See emu_ctl.h. */
#include "emu_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_counters.h"
#include "emu_ids.h"
#include "emu_state.h"
#include "emu_tree.h"

#define MAX_ARGS  6 /* the most words a command takes before its free text */
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

/* "3" or "always". */
static int parse_count(const char *text, long *ret)
{
	unsigned v;

	if (strcmp(text, "always") == 0) {
		*ret = EMU_FAULT_ALWAYS;
		return 0;
	}
	if (emu_kstrtouint(text, 10, &v) || v == 0)
		return -EINVAL;
	*ret = (long)v;
	return 0;
}

/* Arms `f` from ERRNO [SUFFIX [COUNT]] ("*": any path); `rest` is the text after COUNT, the message
 * last_cmd_status shows. */
static int arm(struct emu_fault *f, char **argv, int argc, const char *rest)
{
	struct emu_fault armed = { .remaining = 1 };
	int at = 1;

	if (argc < 2 || (armed.err = parse_errno(argv[at++])) < 0)
		return -EINVAL;
	if (at < argc) {
		const char *suffix = argv[at++];
		if (strlen(suffix) >= sizeof(armed.suffix))
			return -EINVAL;
		snprintf(armed.suffix, sizeof(armed.suffix), "%s", strcmp(suffix, "*") ? suffix : "");
	}
	if (at < argc && parse_count(argv[at++], &armed.remaining) < 0)
		return -EINVAL;
	if (rest && strlen(rest) >= sizeof(armed.status))
		return -EINVAL;
	snprintf(armed.status, sizeof(armed.status), "%s", rest ? rest : "");
	*f = armed;
	return 0;
}

static int cmd_fail_write(struct emu *e, char **argv, int argc, const char *rest)
{
	return arm(&e->faults.write, argv, argc, rest);
}

/* The first form of fail_write: the next write only, no message. */
static int cmd_fail_next_write(struct emu *e, char **argv, int argc, const char *rest)
{
	if (argc > 3 || rest)
		return -EINVAL;
	return arm(&e->faults.write, argv, argc, NULL);
}

static int cmd_fail_mkdir(struct emu *e, char **argv, int argc, const char *rest)
{
	return arm(&e->faults.mkdir, argv, argc, rest);
}

static int cmd_fail_rmdir(struct emu *e, char **argv, int argc, const char *rest)
{
	return rest ? -EINVAL : arm(&e->faults.rmdir, argv, argc, NULL);
}

static int cmd_fail_rename(struct emu *e, char **argv, int argc, const char *rest)
{
	return arm(&e->faults.rename, argv, argc, rest);
}

/* Every fault disarmed, every counter reading as it counts. */
static int cmd_clear(struct emu *e, char **argv, int argc, const char *rest)
{
	(void)argv;
	if (argc != 1 || rest)
		return -EINVAL;
	memset(&e->faults, 0, sizeof(e->faults));
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		for (unsigned d = 0; d < EMU_MAX_DOMAINS; d++)
			for (int ev = 0; ev < EMU_EVT_COUNT; ev++)
				g->mon[d].forced[ev] = EMU_CNT_OK;
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

static int cmd_counter(struct emu *e, char **argv, int argc, const char *rest)
{
	if (rest)
		return -EINVAL;
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

static int cmd_clock(struct emu *e, char **argv, int argc, const char *rest)
{
	if (rest)
		return -EINVAL;
	if (argc != 2 || (strcmp(argv[1], "manual") && strcmp(argv[1], "real")))
		return -EINVAL;
	emu_traffic_sync(e); /* what happened before the switch used the old clock */
	emu_clock_set_manual(&e->clock, strcmp(argv[1], "manual") == 0);
	return 0;
}

/* "advance tick": on to the next boundary of the traffic's ticks (interval_ms), where demand, the
 * measurement noise and delayed MB values change; nothing when the clock is on one. */
static int cmd_advance_tick(struct emu *e)
{
	uint64_t into = emu_clock_now(&e->clock) % e->traffic.interval_ns;

	return emu_clock_advance(&e->clock, into ? e->traffic.interval_ns - into : 0);
}

static int cmd_advance(struct emu *e, char **argv, int argc, const char *rest)
{
	if (rest)
		return -EINVAL;
	unsigned long long ms;

	if (argc == 2 && strcmp(argv[1], "tick") == 0)
		return cmd_advance_tick(e);
	if (argc != 2 || emu_kstrtoull(argv[1], 10, &ms) || ms > UINT64_MAX / 1000000u)
		return -EINVAL;
	return emu_clock_advance(&e->clock, ms * 1000000u);
}

static int cmd_vanish(struct emu *e, char **argv, int argc, const char *rest)
{
	if (rest)
		return -EINVAL;
	(void)argv;
	if (argc != 1)
		return -EINVAL;
	e->vanish = true;
	return 0;
}

static const struct {
	const char *name;
	int (*run)(struct emu *e, char **argv, int argc, const char *rest);
	int max_args; /* the words after these are one argument, `rest` (NULL when there are none) */
	const char *usage;
} commands[] = {
	{ "fail_write", cmd_fail_write, 4, "fail_write ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]]" },
	{ "fail_next_write", cmd_fail_next_write, 3, "fail_next_write ERRNO [PATH_SUFFIX]" },
	{ "fail_mkdir", cmd_fail_mkdir, 4, "fail_mkdir ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]]" },
	{ "fail_rmdir", cmd_fail_rmdir, 4, "fail_rmdir ERRNO [PATH_SUFFIX|* [COUNT|always]]" },
	{ "fail_rename", cmd_fail_rename, 4, "fail_rename ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]]" },
	{ "clear", cmd_clear, 1, "clear" },
	{ "counter", cmd_counter, 5, "counter GROUP DOMAIN EVENT ok|unavailable|error|unassigned|zero|reset" },
	{ "clock", cmd_clock, 2, "clock manual|real" },
	{ "advance", cmd_advance, 2, "advance MS|tick" },
	{ "vanish", cmd_vanish, 1, "vanish" },
};

/* Splits `buf` into at most `max` words; what follows them (without its leading blanks) is *rest. */
static int split(char *buf, char **argv, int max, const char **rest)
{
	int argc = 0;
	char *p = buf;

	*rest = NULL;
	while (*p) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		if (argc == max) {
			*rest = p;
			break;
		}
		argv[argc++] = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
	}
	return argc;
}

int emu_ctl_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	char *argv[MAX_ARGS];
	const char *rest;

	(void)n;
	(void)who;
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strlen(buf) != len || strchr(buf, '\n'))
		return -EINVAL; /* one command per write */
	size_t name_len = strcspn(buf + strspn(buf, " \t"), " \t");
	const char *name = buf + strspn(buf, " \t");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strlen(commands[i].name) != name_len || strncmp(name, commands[i].name, name_len))
			continue;
		int argc = split(buf, argv, commands[i].max_args, &rest);
		return commands[i].run(e, argv, argc, rest);
	}
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

/* An armed fault as the command that arms it. */
static void show_fault(struct emu_buf *out, const char *command, const struct emu_fault *f)
{
	if (!f->err)
		return;
	emu_buf_printf(out, "%s %s %s", command, errno_name(f->err), f->suffix[0] ? f->suffix : "*");
	if (f->remaining == EMU_FAULT_ALWAYS)
		emu_buf_printf(out, " always");
	else
		emu_buf_printf(out, " %ld", f->remaining);
	emu_buf_printf(out, "%s%s\n", f->status[0] ? " " : "", f->status);
}

int emu_ctl_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	const struct emu_faults *f = &e->faults;

	(void)n;
	emu_buf_printf(out, "# commands, one per write:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		emu_buf_printf(out, "#   %s\n", commands[i].usage);
	emu_limbo_run(e);
	emu_buf_printf(out, "profile %s\nclock %s\ntime_ms %.3f\nchanges %lu\nlistings %lu\nlimbo %u\nnrdy_waits %lu\n",
		       e->prof.name, e->clock.manual ? "manual" : "real", (double)emu_clock_now(&e->clock) / 1e6,
		       e->changes, e->listings, emu_limbo_count(e), e->nrdy_waits);
	show_fault(out, "fail_write", &f->write);
	show_fault(out, "fail_mkdir", &f->mkdir);
	show_fault(out, "fail_rmdir", &f->rmdir);
	show_fault(out, "fail_rename", &f->rename);
	show_forced(e, out);
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The errno `f` makes this operation fail with, counting it down; 0 when it does not apply. The
 * kernel clears last_cmd_status at the start of each command and may then leave a message. */
static int take(struct emu *e, struct emu_fault *f, const char *path)
{
	int err = f->err;

	if (!err || !ends_with(path, f->suffix))
		return 0;
	if (f->remaining != EMU_FAULT_ALWAYS && --f->remaining == 0)
		f->err = 0;
	emu_status_clear(&e->status);
	if (f->status[0])
		emu_status_printf(&e->status, "%s\n", f->status);
	return err;
}

int emu_faults_take_write(struct emu *e, const char *path)
{
	return take(e, &e->faults.write, path);
}

int emu_faults_take_mkdir(struct emu *e, const char *path)
{
	return take(e, &e->faults.mkdir, path);
}

int emu_faults_take_rmdir(struct emu *e, const char *path)
{
	return take(e, &e->faults.rmdir, path);
}

int emu_faults_take_rename(struct emu *e, const char *path)
{
	return take(e, &e->faults.rename, path);
}
