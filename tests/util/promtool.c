/* Prometheus' promtool for the tests that check what mpamd exports. */
#include "tests/util/promtool.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/util/testutil.h"

bool promtool_found(void)
{
	char *argv[] = { "/bin/sh", "-c", "command -v promtool", NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	bool found = r.exit_code == 0;
	run_result_fini(&r);
	if (!found)
		print_message("promtool not found (Debian package prometheus): its checks are skipped\n");
	return found;
}

void promtool_expect_ok(char *const argv[], const char *what)
{
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != 0)
		fail_msg("%s exited %d:\n%s%s", what, r.exit_code, r.out, r.err);
	run_result_fini(&r);
}

int promtool_exit_code(int failed, bool missing)
{
	return failed ? failed : missing ? 77 : 0;
}
