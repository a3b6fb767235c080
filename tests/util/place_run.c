#include "tests/util/place_run.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "backends/shared/threads.h"
#include "core/base/log.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "tests/util/busy_task.h"
#include "tests/util/emu_runner.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"

bool place_run_init_path(struct place_run *run, const char *hierarchy, const char *emu_path)
{
	if (getuid() != 0 || access(hierarchy, W_OK) != 0)
		return false;
	make_test_dir(run->dir, sizeof(run->dir), "place");
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	snprintf(run->root, sizeof(run->root), "%s/mpamd-place-%d", hierarchy, (int)getpid());
	if (mkdir(run->root, 0755) < 0)
		return false;
	snprintf(run->cgroups[run->cgroup_count++], sizeof(run->cgroups[0]), "%s", run->root);
	assert_int_equal(emu_start_path(emu_path, "intel", NULL, NULL, &run->emu), 0);
	return true;
}

void place_run_fini(struct place_run *run)
{
	engine_free(run->engine);
	run->engine = NULL;
	place_run_remove_cgroups(run, 0);
	emu_stop(run->emu);
	run->emu = NULL;
	remove_tree(run->dir);
}

const char *place_run_cgroup(struct place_run *run, const char *fmt, ...)
{
	char rel[PLACE_RUN_PATH];
	va_list ap;

	assert_true(run->cgroup_count < PLACE_RUN_CGROUPS);
	va_start(ap, fmt);
	int n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	char *path = run->cgroups[run->cgroup_count];
	if (n < 0 || (size_t)n >= sizeof(rel) ||
	    (size_t)snprintf(path, PLACE_RUN_PATH, "%s/%s", run->root, rel) >= PLACE_RUN_PATH)
		fail_msg("cgroup path %s/%s is too long", run->root, rel);
	if (mkdir(path, 0755) < 0)
		fail_msg("mkdir %s: %s", path, strerror(errno));
	run->cgroup_count++;
	return path;
}

void place_run_remove_cgroups(struct place_run *run, size_t keep)
{
	while (run->cgroup_count > keep)
		cgroup_dir_remove(run->cgroups[--run->cgroup_count]);
}

int place_run_enter(const char *dir)
{
	char procs[PLACE_RUN_PATH + 16];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	int fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write(fd, "0\n", 2) == 2 ? 0 : -errno;
	close(fd);
	return r;
}

void place_run_config(struct place_run *run, const char *fmt, ...)
{
	FILE *out = fopen(run->config, "w");
	va_list ap;

	assert_non_null(out);
	fprintf(out, "[global]\nbackend = resctrl\nmonitor = resctrl\ninterval_ms = 100\nresctrl_root = %s\n",
		emu_root(run->emu));
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fclose(out);
}

static void on_tick(void *ctx, struct engine *e)
{
	struct place_run *run = ctx;

	if (run->script && !run->failure[0])
		run->script(run, engine_ticks_done(e));
	if (run->failure[0])
		engine_stop(e); /* what follows a failure says nothing more */
}

void place_run_engine(struct place_run *run, uint64_t ticks)
{
	struct engine_options opts = {
		.ticks = ticks, .config_path = run->config, .on_tick = on_tick, .on_tick_ctx = run
	};
	struct config *config = load_config_file(run->config);
	struct err err = { "" };

	assert_non_null(config);
	if (engine_new(config, &opts, &run->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);
	struct log_capture log = { .saved_stderr = -1 };
	log_capture_begin(&log);
	int r = engine_run(run->engine, &err);
	log_capture_end(&log);
	log_capture_pass_on(&log); /* to the test's own capture, if it has one */
	/* A tick that overran on a loaded machine is the machine's, not the placement's: not counted. */
	run->warnings = log_capture_count(&log, (const char *const[]){ "warning: ", NULL }) -
			log_capture_count(&log, (const char *const[]){ "warning: tick overran", NULL });
	log_capture_free(&log);
	if (r < 0)
		fail_msg("engine_run: %s", err.text);
	if (run->failure[0])
		fail_msg("%s", run->failure);
}

long place_run_members(const struct place_run *run, const char *group, pid_t **ids)
{
	char dir[PLACE_RUN_PATH];
	size_t count = 0, cap = 0;

	*ids = NULL;
	snprintf(dir, sizeof(dir), "%s/%s", emu_root(run->emu), group);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = task_file_read(fd, "tasks", ids, &count, &cap);
	close(fd);
	if (r < 0) {
		free(*ids);
		*ids = NULL;
		return -1;
	}
	thread_ids_sort(*ids, count);
	return (long)count;
}

bool place_run_holds(const struct place_run *run, const char *group, pid_t tid)
{
	return place_run_holds_all(run, group, &tid, 1);
}

bool place_run_holds_all(const struct place_run *run, const char *group, const pid_t *ids, size_t count)
{
	pid_t *members;
	long n = place_run_members(run, group, &members);
	bool all = n >= 0;

	for (size_t i = 0; all && i < count; i++)
		all = thread_ids_have(members, (size_t)n, ids[i]);
	free(members);
	return all;
}

struct place_counts place_run_counts(struct engine *e)
{
	json_t *status = engine_snapshot_status(e);
	json_t *placement = json_object_get(status, "placement");
	struct place_counts n = {
		.reconciles = (uint64_t)json_integer_value(json_object_get(placement, "reconciles")),
		.events_lost = (uint64_t)json_integer_value(json_object_get(placement, "events_lost")),
		.connector = json_is_true(json_object_get(placement, "proc_connector")),
	};

	json_decref(status);
	return n;
}
