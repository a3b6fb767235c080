/* See demo_daemon.h. */
#include "tests/util/demo_daemon.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/util/testutil.h"

void demo_daemon_start_with(struct demo_daemon *d, const char *mpamd, const char *config, const char *name, bool record)
{
	d->pid = 0;
	make_test_dir(d->dir, sizeof(d->dir), name);
	snprintf(d->sock, sizeof(d->sock), "%s/mpamd.sock", d->dir);
	snprintf(d->log, sizeof(d->log), "%s/mpamd.log", d->dir);
	snprintf(d->record, sizeof(d->record), "%s%s", record ? d->dir : "", record ? "/run.csv" : "");
	char *argv[] = { (char *)mpamd, "-c", (char *)config, "-f", "--socket", d->sock, "--record", d->record, NULL };
	if (!record)
		argv[6] = NULL;
	d->pid = spawn_background(argv, d->log);
	assert_true(d->pid > 0);
	assert_true(wait_for_text(d->log, "ready:", DEMO_WAIT_MS));
}

void demo_daemon_stop(struct demo_daemon *d)
{
	kill(d->pid, SIGTERM);
	assert_int_equal(wait_exit(d->pid, DEMO_WAIT_MS), 0);
	d->pid = 0;
}

int demo_daemon_cleanup(struct demo_daemon *d)
{
	kill_daemon(&d->pid);
	int r = remove_tree(d->dir);
	d->dir[0] = '\0';
	return r;
}

int demo_daemon_teardown(void **state)
{
	return demo_daemon_cleanup(*state);
}
