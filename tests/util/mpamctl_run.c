/* mpamctl against a running daemon's control socket, as root or as an unprivileged user. */
#include "tests/util/mpamctl_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#define MAX_ARGS 24

struct run_result mpamctl_run_with(const char *mpamctl, const char *setpriv_groups, const char *socket_path,
				   const char *first, ...)
{
	char *argv[MAX_ARGS] = { 0 }, groups[64];
	size_t n = 0;
	struct run_result r;
	va_list ap;

	if (setpriv_groups) {
		argv[n++] = "/usr/bin/setpriv";
		argv[n++] = "--reuid=65534";
		argv[n++] = "--regid=65534";
		snprintf(groups, sizeof(groups), "--groups=%s", setpriv_groups);
		argv[n++] = *setpriv_groups ? groups : "--clear-groups";
	}
	argv[n++] = (char *)mpamctl;
	argv[n++] = "--socket";
	argv[n++] = (char *)socket_path;
	va_start(ap, first);
	for (const char *a = first; a && n < MAX_ARGS - 1; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

json_t *mpamctl_json_with(const char *mpamctl, const char *socket_path, const char *cmd, const char *name)
{
	struct run_result r = mpamctl_run_with(mpamctl, NULL, socket_path, "--json", cmd, name, NULL);
	json_error_t error;

	if (r.exit_code != 0)
		fail_msg("mpamctl %s exited %d: %s", cmd, r.exit_code, r.err);
	json_t *j = json_loads(r.out, 0, &error);
	if (!j)
		fail_msg("mpamctl --json %s: not JSON (%s):\n%s", cmd, error.text, r.out);
	run_result_fini(&r);
	return j;
}
