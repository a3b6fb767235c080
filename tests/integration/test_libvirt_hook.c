/* The libvirt qemu hook (etc/libvirt/qemu-hook) in a real shell: it asks a running mpamd to reload on
 * the operations where a VM's scope appears or goes, ignores the others, and exits 0 whatever mpamctl
 * does, as libvirt aborts a VM start whose hook fails. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/demo_daemon.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static struct demo_daemon demo; /* its directory also the fake mpamctl's */

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/* Runs the hook as libvirt would (GUEST OPERATION SUB-OP EXTRA, the XML on stdin) with MPAMCTL set;
 * returns its exit status. */
static int run_hook(const char *mpamctl, const char *operation)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "echo '<domain/>' | MPAMCTL='%s' %s/etc/libvirt/qemu-hook vm1 %s begin - >/dev/null 2>&1", mpamctl,
		 MPAMD_SOURCE_DIR, operation);
	int status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int calls_logged(const char *log)
{
	char *text = read_text_file(log);
	int n = 0;

	for (const char *p = text; p && (p = strstr(p, "reload")); p++)
		n++;
	free(text);
	return n;
}

/* A fake mpamctl that logs its arguments and fails: only the operations that change a VM's scope
 * call it, and its failure never reaches libvirt. */
static void test_operations_and_failures(void **state)
{
	char fake[128], log[128], cmd[256];

	(void)state;
	make_test_dir(demo.dir, sizeof(demo.dir), "hook");
	snprintf(fake, sizeof(fake), "%s/mpamctl", demo.dir);
	snprintf(log, sizeof(log), "%s/calls", demo.dir);
	snprintf(cmd, sizeof(cmd), "echo \"$@\" >>%s; exit 3", log);
	write_script(fake, cmd);

	assert_int_equal(run_hook(fake, "prepare"), 0);
	assert_int_equal(run_hook(fake, "release"), 0);
	assert_int_equal(calls_logged(log), 0);
	assert_int_equal(run_hook(fake, "started"), 0);
	assert_int_equal(calls_logged(log), 1);
	assert_int_equal(run_hook(fake, "stopped"), 0);
	assert_int_equal(run_hook(fake, "reconnect"), 0);
	assert_int_equal(calls_logged(log), 3);
	char *text = read_text_file(log);
	assert_string_equal(text, "reload\nreload\nreload\n");
	free(text);

	/* No mpamctl at all: still 0. */
	assert_int_equal(run_hook("/nonexistent/mpamctl", "started"), 0);
}

/* With this build's mpamctl against a running mpamd: the hook's reload reaches the daemon. */
static void test_reaches_the_daemon(void **state)
{
	char wrapper[128], body[512];

	(void)state;
	demo_daemon_start(&demo, "hook", false);
	snprintf(wrapper, sizeof(wrapper), "%s/mpamctl", demo.dir);
	snprintf(body, sizeof(body), "exec %s --socket %s \"$@\"", MPAMCTL, demo.sock);
	write_script(wrapper, body);
	assert_int_equal(run_hook(wrapper, "started"), 0);
	assert_true(wait_for_text(demo.log, "reloaded", 5000));
	demo_daemon_stop(&demo);
}

/* The teardown leaves no mpamd and no directory behind, after a failed assertion too. */
TEST_MAIN({
	cmocka_unit_test_prestate_setup_teardown(test_operations_and_failures, NULL, demo_daemon_teardown, &demo),
	cmocka_unit_test_prestate_setup_teardown(test_reaches_the_daemon, NULL, demo_daemon_teardown, &demo),
})
