/* The fault suite: every error Linux's resctrl returns on each file mpamd writes (schemata, tasks,
 * cpus_list, mkdir, rmdir, the counter assignments), every state a counter file can read, a group
 * removed behind mpamd's back, the counter mode switched under it, and the mount gone and back,
 * injected through the resctrl emulator, one row of a table at a time (errno x file x expectation).
 *
 * Partition p meets the fault; q never does. For every row mpamd keeps running and never shows a
 * limit of 0% nor an invalid sample as a number; q is open and measured on every tick; p shows what
 * the row expects while the fault holds (failed with its error and next retry, or its limit in force
 * and its error, or an invalid sample with its reason), the log names p's group or p and says what
 * the kernel said; and once the fault clears, p is as configured again (limit, task, CPU, measured)
 * without a reload.
 *
 * The engine runs in this process on its real clock (10 ms ticks); every wait is a count of ticks
 * with a generous bound, so a loaded machine only makes a row take longer. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base/ladder.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "core/engine/registry.h"
#include "tests/util/emu_in_step.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"

#define FAULT_TICK    3			 /* the fault is armed after this tick */
#define CLEAR_TICK    (FAULT_TICK + 14)	 /* a lasting fault is cleared after this one */
#define MAX_TICKS     (CLEAR_TICK + 400) /* healing takes a few retries; 4 s of 10 ms ticks at least */
#define P_MB_MAX      60
#define Q_MB_MAX      40
#define OUTSIDE_MB    30 /* what "another tool" writes into p's schemata */
#define SET_MB	      50
#define MAX_LOG_LINES 8

#define note(run, ...) note_first((run)->failure, sizeof((run)->failure), __VA_ARGS__)

enum trigger {
	AT_OPEN, /* armed before mpamd starts: opening p meets it */
	/* The same on a host whose new groups get no counter (mbm_assign_on_mkdir 0): p's comes from
	 * mpamd's assignment. */
	AT_OPEN_UNASSIGNED,
	AT_TICK,       /* armed at FAULT_TICK (counter files) */
	AT_RESTORE,    /* p's schemata changed outside mpamd at FAULT_TICK: the restore meets it */
	AT_SET,	       /* mpamctl set mb_max meets it */
	AT_RELOAD,     /* a reload that changes p's mb_max meets it */
	AT_POLICY,     /* p gets a target_mbps at FAULT_TICK: each limit the policy moves to meets it */
	AT_REMOVE,     /* a reload without p: removing its group meets it */
	GROUP_REMOVED, /* p's group removed behind mpamd's back (with the fault, if any) */
	MODE_SWITCHED, /* mbm_assign_mode set to default and back behind mpamd's back */
	MOUNT_GONE,    /* resctrl unmounted at FAULT_TICK, mounted again at CLEAR_TICK */
};

enum expect {
	FAILS,	   /* p failed with the error and a retry, no limit shown; opened again by itself */
	REFUSED,   /* the set is refused with the kernel's reason, p's limit stays; a later set works */
	KEEPS,	   /* p stays open, shows the limit in force and the error; restored after */
	SKIPPED,   /* not an error: p opens */
	INVALID,   /* p's sample invalid with the reason, never a number; measured again after */
	LEFT,	   /* the group stays and the log says so */
	RECREATED, /* p's group made again with its limit, task and CPU */
};

struct row {
	const char *name; /* file and errno */
	const char *profile;
	enum trigger trigger;
	const char *fault; /* the emulator command(s), ';'-separated; NULL: none */
	bool lasting;	   /* holds until CLEAR_TICK ("clear"); else it clears itself */
	enum expect expect;
	const char *says; /* in p's error or reason, and (FAILS, KEEPS, LEFT) the log */
};

/* The kernel's messages, from fs/resctrl (rdtgroup.c, ctrlmondata.c, monitor.c). */
static const struct row rows[] = {
	/* mkdir */
	{ "mkdir ENOSPC (no CLOSID)", "intel", AT_OPEN, "fail_mkdir ENOSPC mpamd-p always Out of CLOSIDs", true, FAILS,
	  "Out of CLOSIDs" },
	{ "mkdir ENOSPC (no RMID)", "intel", AT_OPEN, "fail_mkdir ENOSPC mpamd-p always Out of RMIDs", true, FAILS,
	  "Out of RMIDs" },
	{ "mkdir EBUSY (RMIDs in limbo)", "intel", AT_OPEN, "fail_mkdir EBUSY mpamd-p 3 Out of RMIDs", false, FAILS,
	  "Device or resource busy" },
	{ "mkdir ENOMEM", "intel", AT_OPEN, "fail_mkdir ENOMEM mpamd-p always", true, FAILS,
	  "cannot create resctrl group mpamd-p: Cannot allocate memory" },
	{ "mkdir EINVAL", "intel", AT_OPEN, "fail_mkdir EINVAL mpamd-p always", true, FAILS,
	  "cannot create resctrl group mpamd-p: Invalid argument" },
	{ "mkdir EEXIST (gone again before it is opened)", "intel", AT_OPEN, "fail_mkdir EEXIST mpamd-p 2", false,
	  FAILS, "cannot open resctrl group mpamd-p" },
	/* tasks */
	{ "tasks ESRCH (the thread exited)", "intel", AT_OPEN, "fail_write ESRCH mpamd-p/tasks always", true, SKIPPED,
	  NULL },
	{ "tasks EPERM", "intel", AT_OPEN, "fail_write EPERM mpamd-p/tasks always No permission to move task", true,
	  FAILS, "No permission to move task" },
	{ "tasks EINVAL", "intel", AT_OPEN,
	  "fail_write EINVAL mpamd-p/tasks always Can't move task to different control group", true, FAILS,
	  "Can't move task to different control group" },
	/* cpus_list */
	{ "cpus_list EINVAL (CPU offline)", "intel", AT_OPEN,
	  "fail_write EINVAL mpamd-p/cpus_list always Can only assign online CPUs", true, FAILS,
	  "Can only assign online CPUs" },
	{ "cpus_list ENOMEM", "intel", AT_OPEN, "fail_write ENOMEM mpamd-p/cpus_list always", true, FAILS,
	  "writing cpus_list: Cannot allocate memory" },
	/* schemata */
	{ "schemata EINVAL at open", "intel", AT_OPEN,
	  "fail_write EINVAL mpamd-p/schemata always MB value 60 out of range [70,100]", true, FAILS,
	  "MB value 60 out of range [70,100]" },
	{ "schemata EINVAL, no message (unknown domain)", "intel", AT_OPEN, "fail_write EINVAL mpamd-p/schemata always",
	  true, FAILS, "kernel gave no reason: last_cmd_status was empty" },
	{ "schemata ENOMEM at open", "intel", AT_OPEN, "fail_write ENOMEM mpamd-p/schemata always", true, FAILS,
	  "writing schemata 'MB:0=60;1=60': Cannot allocate memory" },
	{ "schemata ENODEV at open (group removed meanwhile)", "intel", AT_OPEN, "fail_write ENODEV mpamd-p/schemata 2",
	  false, FAILS, "No such device" },
	{ "schemata EINVAL restoring a change made outside", "intel", AT_RESTORE,
	  "fail_write EINVAL mpamd-p/schemata always Overlaps with exclusive group", true, KEEPS,
	  "Overlaps with exclusive group" },
	{ "schemata ENOMEM restoring a change made outside", "intel", AT_RESTORE,
	  "fail_write ENOMEM mpamd-p/schemata always", true, KEEPS, "Cannot allocate memory" },
	{ "schemata EINVAL as a policy moves the limit", "intel", AT_POLICY,
	  "fail_write EINVAL mpamd-p/schemata always MB value 50 out of range [70,100]", true, KEEPS,
	  "MB value 50 out of range [70,100]" },
	{ "schemata EINVAL on a reload that changes mb_max", "intel", AT_RELOAD,
	  "fail_write EINVAL mpamd-p/schemata always MB value 50 out of range [70,100]", true, KEEPS,
	  "MB value 50 out of range [70,100]" },
	{ "schemata EINVAL on mpamctl set", "intel", AT_SET,
	  "fail_write EINVAL mpamd-p/schemata always MB value 50 out of range [70,100]", true, REFUSED,
	  "MB value 50 out of range [70,100]" },
	/* rmdir */
	{ "rmdir EBUSY", "intel", AT_REMOVE, "fail_rmdir EBUSY mpamd-p always", true, LEFT,
	  "cannot remove resctrl group mpamd-p: Device or resource busy" },
	{ "rmdir EPERM", "intel", AT_REMOVE, "fail_rmdir EPERM mpamd-p always", true, LEFT,
	  "cannot remove resctrl group mpamd-p: Operation not permitted" },
	/* counter files */
	{ "mbm_total_bytes Unavailable", "intel", AT_TICK, "counter mpamd-p 0 mbm_total_bytes unavailable", true,
	  INVALID, "Unavailable" },
	{ "mbm_total_bytes Error", "intel", AT_TICK, "counter mpamd-p 0 mbm_total_bytes error", true, INVALID,
	  "Error" },
	{ "mbm_total_bytes Unassigned", "intel", AT_TICK, "counter mpamd-p 0 mbm_total_bytes unassigned", true, INVALID,
	  "no counter assigned" },
	{ "mbm_total_bytes 0 (EBUSY on Linux 7.3)", "intel", AT_TICK, "counter mpamd-p 0 mbm_total_bytes zero", true,
	  INVALID, "reads 0" },
	{ "mbm_total_bytes reset", "intel", AT_TICK, "counter mpamd-p 0 mbm_total_bytes reset", false, INVALID,
	  "backwards" },
	/* counter assignment (mbm_event mode) */
	{ "mbm_L3_assignments ENOSPC", "amd", AT_OPEN_UNASSIGNED,
	  "fail_write ENOSPC mpamd-p/mbm_L3_assignments always Failed to allocate counter for mbm_total_bytes in "
	  "domain 0",
	  true, INVALID, "no counter assigned" },
	{ "mbm_L3_assignments EINVAL", "amd", AT_OPEN_UNASSIGNED,
	  "fail_write EINVAL mpamd-p/mbm_L3_assignments always mbm_event mode is not enabled", true, INVALID,
	  "no counter assigned" },
	{ "mbm_L3_assignments ENOENT (invalid event)", "amd", AT_OPEN_UNASSIGNED,
	  "fail_write ENOENT mpamd-p/mbm_L3_assignments always Invalid event mbm_total_bytes", true, INVALID,
	  "no counter assigned" },
	{ "mbm_assign_mode switched to default and back", "amd", MODE_SWITCHED, NULL, true, INVALID,
	  "no counter assigned" },
	/* groups and the mount */
	{ "group removed (ENOENT, ENODEV)", "intel", GROUP_REMOVED, NULL, false, RECREATED, NULL },
	{ "group removed, mkdir ENOSPC meanwhile", "intel", GROUP_REMOVED,
	  "fail_mkdir ENOSPC mpamd-p always Out of CLOSIDs", true, FAILS, "Out of CLOSIDs" },
	{ "resctrl unmounted and mounted again", "intel", MOUNT_GONE, NULL, true, FAILS,
	  "waiting for resctrl to be mounted" },
};

/* One row's run. */
struct run {
	const struct row *row;
	struct emu *emu;
	struct engine *engine;
	pid_t task; /* p's process: one sleeping thread */
	char dir[64], config[96], traffic[96];
	struct log_capture log;
	uint64_t fault_ticks;  /* ticks on which p showed the fault as expected */
	uint64_t healed_ticks; /* ticks in a row p was healed, after the clear */
	uint64_t stop_tick;
	bool cleared;
	bool emu_gone;	    /* vanished: its clock cannot be moved until it is back */
	char failure[1024]; /* the first thing found wrong */
};

static struct run *current;

/* ---- the emulated host ---- */

static char *group_file(const struct run *run, const char *group, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s%s%s", emu_root(run->emu), group, file[0] ? "/" : "", file);
	return read_text_file(path);
}

/* Each ';'-separated command of `commands`; false (and noted) when the emulator refused one. */
static bool emu_commands(struct run *run, const char *commands)
{
	char copy[512], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", commands);
	for (char *c = strtok_r(copy, ";", &save); c; c = strtok_r(NULL, ";", &save)) {
		int r = emu_ctl(run->emu, c);
		if (r < 0) {
			note(run, "the emulator refused '%s': %s", c, strerror(-r));
			return false;
		}
	}
	return true;
}

static bool write_group_file(struct run *run, const char *rel, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", emu_root(run->emu), rel);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		close(fd);
	if (!ok)
		note(run, "writing %s: %s", rel, strerror(errno));
	return ok;
}

static bool at_open(const struct row *row)
{
	return row->trigger == AT_OPEN || row->trigger == AT_OPEN_UNASSIGNED;
}

/* ---- what mpamd shows ---- */

static const char *str(json_t *row, const char *key)
{
	const char *s = json_string_value(json_object_get(row, key));

	return s ? s : "";
}

static bool has(const char *text, const char *part)
{
	return text && part && strstr(text, part);
}

/* What holds on every tick of every row: no limit of 0%, no invalid sample shown as a number, and
 * a state that agrees with the limits (a failed partition has none). */
static void check_list_truthful(struct run *run, struct engine *e, uint64_t t)
{
	json_t *list = engine_snapshot_list(e), *row;
	size_t i;

	json_array_foreach(json_object_get(list, "partitions"), i, row) {
		json_t *mb_max = json_object_get(row, "mb_max"), *mbps = json_object_get(row, "mbps");
		bool failed = !strcmp(str(row, "state"), "failed");
		if (json_is_integer(mb_max) && json_integer_value(mb_max) == 0)
			note(run, "tick %llu: %s shows a limit of 0%%", (unsigned long long)t, str(row, "name"));
		if (!json_is_true(json_object_get(row, "valid")) && !json_is_null(mbps))
			note(run, "tick %llu: %s has an invalid sample shown as %g MB/s", (unsigned long long)t,
			     str(row, "name"), json_number_value(mbps));
		if (failed && (!json_is_null(mb_max) || !str(row, "error")[0]))
			note(run, "tick %llu: failed %s shows a limit or no error", (unsigned long long)t,
			     str(row, "name"));
	}
	json_decref(list);
}

/* Faults that hit every group: the mount gone, the counter mode switched. */
static bool hits_all(const struct row *row)
{
	return row->trigger == MOUNT_GONE || row->trigger == MODE_SWITCHED;
}

/* The row's emulated host's MB settings (core/base/ladder.h), as mpamd's resctrl probe finds them. */
static struct ladder host_ladder(const struct run *run)
{
	struct ladder l;

	if (!strcmp(run->row->profile, "amd"))
		ladder_units(1, 2048, 125, &l);
	else if (!strncmp(run->row->profile, "mpam", 4))
		ladder_resctrl_mpam(5, &l);
	else
		ladder_percent(10, 10, &l);
	return l;
}

/* What a limit of pct is held as there: its nearest setting. */
static double held(const struct run *run, double pct)
{
	struct ladder l = host_ladder(run);

	return ladder_pct(&l, ladder_snap(&l, pct, LADDER_NEAREST));
}

/* What a value another tool wrote into the schemata stands for. */
static double held_shown(const struct run *run, uint32_t shown)
{
	struct ladder l = host_ladder(run);
	uint32_t rung;

	ladder_of_shown(&l, shown, &rung);
	return ladder_pct(&l, rung);
}

static bool q_healthy(const struct run *run, struct engine *e)
{
	const struct partition_status *q = engine_find(e, "q", NULL);

	return q && q->open && q->valid && q->mb_max == held(run, Q_MB_MAX);
}

/* q is never disturbed (except by a fault that hits every group). */
static void check_q(struct run *run, struct engine *e, uint64_t t)
{
	const struct partition_status *q = engine_find(e, "q", NULL);

	if (t < 2 || (hits_all(run->row) && t <= CLEAR_TICK + 200))
		return;
	if (!q || !q->open || !q->valid || q->mb_max != held(run, Q_MB_MAX))
		note(run, "tick %llu: q was disturbed (open %d, valid %d, mb_max %g, reason %s)", (unsigned long long)t,
		     q && q->open, q && q->valid, q ? q->mb_max : 0.0, q && q->reason ? q->reason : "-");
}

/* The task is in p's group, and so is CPU 1. */
static bool placed(const struct run *run)
{
	char pid[16];
	char *tasks = group_file(run, "mpamd-p", "tasks"), *cpus = group_file(run, "mpamd-p", "cpus_list");
	bool ok;

	snprintf(pid, sizeof(pid), "\n%d\n", (int)run->task);
	ok = tasks && cpus && (!strncmp(tasks, pid + 1, strlen(pid + 1)) || strstr(tasks, pid)) && !strcmp(cpus, "1\n");
	free(tasks);
	free(cpus);
	return ok;
}

/* p's group holds MB `pct` on both domains (Intel's percent). */
static bool schemata_shows(const struct run *run, double pct)
{
	char line[48];

	snprintf(line, sizeof(line), "MB:0=%g;1=%g\n", pct, pct);
	return emu_group_file_has(run->emu, "mpamd-p", "schemata", line);
}

/* p shows the fault as the row expects. */
static bool shows_fault(struct run *run, struct engine *e)
{
	const struct row *row = run->row;
	const struct partition_status *p = engine_find(e, "p", NULL);
	json_t *lr = engine_list_row(e, "p");
	bool ok = false;

	switch (row->expect) {
	case FAILS:
		ok = p && p->failed && !p->open && p->retry_ms > 0 && has(p->reason, row->says) && lr &&
		     !strcmp(str(lr, "state"), "failed") && has(str(lr, "error"), row->says) &&
		     json_is_number(json_object_get(lr, "retry_in_s")) && json_is_null(json_object_get(lr, "mb_max"));
		break;
	case REFUSED:
		ok = p && p->open && p->mb_max == held(run, P_MB_MAX);
		break;
	case KEEPS:
		/* The limit in force (what another tool wrote, when the restore failed), and p says why. */
		ok = p && p->open && !p->failed &&
		     p->mb_max == (row->trigger == AT_RESTORE ? held_shown(run, OUTSIDE_MB) : held(run, P_MB_MAX)) &&
		     lr && has(str(lr, "error"), row->says);
		break;
	case SKIPPED:
		ok = p && p->open && !p->failed;
		break;
	case INVALID:
		ok = p && p->open && !p->valid && has(p->reason, row->says) && lr &&
		     json_is_null(json_object_get(lr, "mbps")) && has(str(lr, "reason"), row->says);
		break;
	case LEFT:
		ok = !p && emu_group_exists(run->emu, "mpamd-p");
		break;
	case RECREATED:
		ok = p && !p->valid; /* its counter files went with the group */
		break;
	}
	json_decref(lr);
	return ok;
}

/* p is as configured again (for LEFT: gone from mpamd, its group still there). */
static bool healed(struct run *run, struct engine *e)
{
	const struct partition_status *p = engine_find(e, "p", NULL);
	json_t *lr = engine_list_row(e, "p");
	bool ok;

	if (run->row->expect == LEFT)
		ok = !p && emu_group_exists(run->emu, "mpamd-p");
	else if (run->row->trigger == AT_POLICY)
		ok = p && p->open && p->mb_max < P_MB_MAX && schemata_shows(run, p->mb_max) && lr &&
		     json_is_null(json_object_get(lr, "error"));
	else if (run->row->expect == REFUSED || run->row->trigger == AT_RELOAD)
		ok = p && p->open && p->mb_max == held(run, SET_MB) && lr && json_is_null(json_object_get(lr, "error"));
	else
		ok = p && p->open && p->valid && !p->failed && p->mb_max == held(run, P_MB_MAX) && p->mbps > 0 &&
		     p->mbps < 5000 && placed(run) && lr && json_is_null(json_object_get(lr, "error"));
	if (run->row->expect == SKIPPED)
		ok = p && p->open && p->valid && p->mb_max == held(run, P_MB_MAX);
	json_decref(lr);
	return ok && q_healthy(run, e);
}

/* A sample right after a fault clears must not carry what the fault hid (a count that jumps back). */
static void check_no_spike(struct run *run, struct engine *e, uint64_t t)
{
	const struct partition_status *p = engine_find(e, "p", NULL);

	if (p && p->valid && p->mbps > 5000)
		note(run, "tick %llu: p measured %.0f MB/s, demand is 1000", (unsigned long long)t, p->mbps);
}

/* ---- the row's script ---- */

/* The file again, with p's mb_max (or without p), and a reload of it. */
static void reload(struct run *run, struct engine *e, unsigned p_mb_max, bool keep_p)
{
	struct err err = { "" };
	char p[128] = "";

	if (keep_p)
		snprintf(p, sizeof(p), "[partition \"p\"]\nmb_max = %u\npids = %d\ncpus = 1\nsim_demand = 1000\n",
			 p_mb_max, (int)run->task);
	if (write_text_file(run->config,
			    "[global]\nbackend = resctrl\ninterval_ms = 10\nresctrl_root = %s\n%s"
			    "[partition \"q\"]\nmb_max = %d\nsim_demand = 2000\n",
			    emu_root(run->emu), p, Q_MB_MAX) < 0)
		note(run, "cannot write %s", run->config);
	else if (engine_reload(e, &err) < 0)
		note(run, "the reload was refused: %s", err.text);
}

static void trigger(struct run *run, struct engine *e)
{
	const struct row *row = run->row;
	char text[128];
	struct err err = { "" };

	switch (row->trigger) {
	case AT_OPEN:
	case AT_OPEN_UNASSIGNED:
		break;
	case AT_TICK:
		emu_commands(run, row->fault);
		break;
	case AT_RESTORE:
		snprintf(text, sizeof(text), "MB:0=%d;1=%d\n", OUTSIDE_MB, OUTSIDE_MB);
		if (write_group_file(run, "mpamd-p/schemata", text))
			emu_commands(run, row->fault);
		break;
	case AT_SET: {
		emu_commands(run, row->fault);
		snprintf(text, sizeof(text), "mb_max=%d", SET_MB);
		const char *settings[] = { text };
		if (engine_set(e, "p", settings, 1, NULL, NULL, &err) == 0)
			note(run, "the set was taken although the kernel refused it");
		else if (!has(err.text, row->says) || !has(err.text, "mpamd-p"))
			note(run, "the set's refusal does not say where and why: %s", err.text);
		break;
	}
	case AT_POLICY: {
		emu_commands(run, row->fault);
		const char *settings[] = { "target_mbps=500" };
		if (engine_set(e, "p", settings, 1, NULL, NULL, &err) < 0)
			note(run, "set target_mbps: %s", err.text);
		break;
	}
	case AT_RELOAD:
		emu_commands(run, row->fault);
		reload(run, e, SET_MB, true);
		break;
	case AT_REMOVE:
		emu_commands(run, row->fault);
		reload(run, e, 0, false);
		break;
	case GROUP_REMOVED:
		if (row->fault)
			emu_commands(run, row->fault);
		snprintf(text, sizeof(text), "%s/mpamd-p", emu_root(run->emu));
		if (rmdir(text) < 0)
			note(run, "rmdir %s: %s", text, strerror(errno));
		break;
	case MODE_SWITCHED:
		write_group_file(run, "info/L3_MON/mbm_assign_mode", "default\n");
		write_group_file(run, "info/L3_MON/mbm_assign_mode", "mbm_event\n");
		break;
	case MOUNT_GONE:
		emu_commands(run, "vanish");
		run->emu_gone = true;
		break;
	}
}

static void clear(struct run *run, struct engine *e)
{
	struct err err = { "" };
	char text[32];

	run->cleared = true;
	if (run->row->trigger == MOUNT_GONE) {
		if (emu_restart(run->emu) != 0 || emu_ctl(run->emu, "clock manual") != 0)
			note(run, "the emulator did not come back");
		run->emu_gone = false;
		return;
	}
	if (run->row->lasting && run->row->trigger != MODE_SWITCHED)
		emu_commands(run, "clear");
	if (run->row->expect == REFUSED) {
		snprintf(text, sizeof(text), "mb_max=%d", SET_MB);
		const char *settings[] = { text };
		if (engine_set(e, "p", settings, 1, NULL, NULL, &err) < 0)
			note(run, "the set after the fault cleared was refused: %s", err.text);
	}
}

/* The first tick that shows a fault: a fault met at the start shows at once (and one that clears
 * itself may be gone after a few ticks); one armed later shows from the next tick's read. */
static uint64_t window_start(const struct row *row)
{
	return at_open(row) ? 0 : FAULT_TICK + 1;
}

/* A lasting fault that leaves p failed or unmeasured shows on every tick (after a tick or two for the
 * first retry or read); the others show it at least once: a group removed or the mount gone is
 * found at the next tick that applies limits, within RECHECK_TICKS. */
static bool strict(const struct row *row)
{
	return row->lasting && (row->expect == FAILS || row->expect == INVALID) &&
	       (at_open(row) || row->trigger == AT_TICK);
}

/* The failure, with what p shows now. */
static void note_state(struct run *run, struct engine *e, const char *what)
{
	json_t *lr = engine_list_row(e, "p");
	char *text = lr ? json_dumps(lr, JSON_COMPACT) : NULL;

	note(run, "%s; p now: %s", what, text ? text : "not listed");
	free(text);
	json_decref(lr);
}

/* The emulator's time moves on by the interval after each tick (while it is mounted): the engine runs
 * on simulated time in step with it, so what the suite sees is the fault, not the machine's load. */
static void advance_emulator(struct run *run)
{
	if (!run->emu_gone)
		emu_advance(run->emu, 10);
}

static void on_tick(void *ctx, struct engine *e)
{
	struct run *run = ctx;
	uint64_t t = engine_ticks_done(e);

	advance_emulator(run);

	check_list_truthful(run, e, t);
	check_q(run, e, t);
	if (t == FAULT_TICK)
		trigger(run, e);
	if (t >= window_start(run->row) && t <= CLEAR_TICK) {
		bool shown = shows_fault(run, e);
		run->fault_ticks += shown;
		if (!shown && t >= window_start(run->row) + 2 && strict(run->row))
			note_state(run, e, "a lasting fault was not shown on every tick");
	}
	if (t == CLEAR_TICK && !run->fault_ticks)
		note_state(run, e, "p never showed the fault as expected");
	if (t == CLEAR_TICK)
		clear(run, e);
	if (t > CLEAR_TICK) {
		check_no_spike(run, e, t);
		run->healed_ticks = healed(run, e) ? run->healed_ticks + 1 : 0;
	}
	if (run->failure[0] || run->healed_ticks >= 3 || t >= MAX_TICKS) {
		run->stop_tick = t;
		engine_stop(e);
	}
}

/* ---- one row ---- */

static void run_free(struct run *run)
{
	if (!run)
		return;
	log_capture_end(&run->log);
	engine_free(run->engine);
	emu_stop(run->emu);
	if (run->task > 0) {
		kill(run->task, SIGKILL);
		waitpid(run->task, NULL, 0);
	}
	log_capture_free(&run->log);
	remove_tree(run->dir);
	free(run);
}

static int teardown(void **state)
{
	(void)state;
	run_free(current);
	current = NULL;
	return 0;
}

/* The lines of the log that name p (or its group) and say what the row expects. */
static unsigned log_says(const struct run *run)
{
	const char *const by_name[] = { "partition p:", run->row->says, NULL };
	const char *const by_group[] = { "mpamd-p", run->row->says, NULL };

	if (!run->row->says)
		return 0;
	return log_capture_count(&run->log, by_name) + log_capture_count(&run->log, by_group) -
	       log_capture_count(&run->log, (const char *const[]){ "partition p:", "mpamd-p", run->row->says, NULL });
}

static bool logs_expected(const struct row *row)
{
	return row->expect == FAILS || row->expect == KEEPS || row->expect == LEFT;
}

static void run_row(const struct row *row)
{
	struct run *run = calloc(1, sizeof(*run));
	struct err err = { "" };

	assert_non_null(run);
	current = run;
	run->row = row;
	run->log.saved_stderr = -1;
	make_test_dir(run->dir, sizeof(run->dir), "faults");
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	snprintf(run->traffic, sizeof(run->traffic), "%s/traffic.ini", run->dir);
	run->task = spawn_sleeper(); /* p's pids */
	assert_true(run->task > 0);

	const char *parts = "[partition \"p\"]\nmb_max = 60\npids = %d\ncpus = 1\nsim_demand = 1000\n"
			    "[partition \"q\"]\nmb_max = 40\nsim_demand = 2000\n";
	char partitions[512];
	snprintf(partitions, sizeof(partitions), parts, (int)run->task);
	write_file(run->traffic, "[global]\ninterval_ms = 10\n%s", partitions);
	/* Enough counters for every group (rotation among scarce counters is another matter). */
	const char *const counters[] = { "--counters", "8", NULL };
	assert_int_equal(
		emu_start(row->profile, run->traffic, strcmp(row->profile, "amd") ? NULL : counters, &run->emu), 0);
	assert_int_equal(emu_ctl(run->emu, "clock manual"), 0);
	write_file(run->config, "[global]\nbackend = resctrl\ninterval_ms = 10\nresctrl_root = %s\n%s",
		   emu_root(run->emu), partitions);
	if (row->trigger == AT_OPEN_UNASSIGNED)
		assert_true(write_group_file(run, "info/L3_MON/mbm_assign_on_mkdir", "0\n"));
	if (at_open(row))
		assert_true(emu_commands(run, row->fault));

	struct engine_options opts = in_step_options(run->config, 0, on_tick, run);
	log_capture_begin(&run->log);
	struct config *config = load_config_file(run->config);
	assert_non_null(config);
	int r = engine_new(config, &opts, &run->engine, &err);
	advance_emulator(run); /* up to the first tick */
	if (r == 0 && at_open(row) && shows_fault(run, run->engine))
		run->fault_ticks++; /* before the first tick */
	if (r == 0)
		r = engine_run(run->engine, &err);
	log_capture_end(&run->log);
	expect_engine_ran(row->name, r, &err, run->failure);
	if (run->healed_ticks < 3)
		fail_msg("%s: p was not healed %d ticks after the fault cleared", row->name, MAX_TICKS - CLEAR_TICK);
	unsigned lines = log_says(run);
	if (logs_expected(row) && !lines)
		fail_msg("%s: the log does not name p with '%s'", row->name, row->says);
	/* Said once, and again at each retry of a failed partition (its pause doubles): never per tick. */
	if (lines > MAX_LOG_LINES)
		fail_msg("%s: the log says it %u times in %d ticks", row->name, lines, CLEAR_TICK);
	printf("  %-50s fault shown on %2llu ticks, healed %3llu ticks after the clear\n", row->name,
	       (unsigned long long)run->fault_ticks, (unsigned long long)(run->stop_tick - 2 - CLEAR_TICK));
	run_free(run);
	current = NULL;
}

static void test_row(void **state)
{
	run_row(*state);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(rows) / sizeof(rows[0])];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		tests[i] = (struct CMUnitTest){ rows[i].name, test_row, NULL, teardown, (void *)&rows[i] };
	return _cmocka_run_group_tests("fault_suite", tests, sizeof(rows) / sizeof(rows[0]), NULL, NULL);
}
