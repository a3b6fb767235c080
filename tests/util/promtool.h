/* Prometheus' promtool for the tests that check what mpamd exports (Debian package prometheus); the
 * tests skip its checks where it is missing. */
#ifndef MPAMD_TESTS_PROMTOOL_H
#define MPAMD_TESTS_PROMTOOL_H

#include <stdbool.h>

/* Whether promtool is on PATH; says so on the test output when it is not. */
bool promtool_found(void);
/* Runs argv (a promtool command line, `what` naming it) and fails the test unless it exits 0, with
 * what promtool said. */
void promtool_expect_ok(char *const argv[], const char *what);
/* A program's exit code from cmocka's count of `failed` tests: that count, or 77 (ctest's skip) when
 * none failed but promtool was `missing`, so that its checks did not run. */
int promtool_exit_code(int failed, bool missing);

#endif
