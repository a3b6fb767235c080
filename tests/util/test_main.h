/* The main() of a test program whose tests run as one cmocka group with no group set-up or teardown:
 * the array of tests and the call that runs it, written once here instead of in every program.
 *
 *	TEST_MAIN({
 *		cmocka_unit_test(test_a),
 *		cmocka_unit_test(test_b),
 *	})
 *
 * stands at file scope, without a semicolon. The braces are the array's initializer: the preprocessor
 * splits it at its commas into the macro's arguments and __VA_ARGS__ joins them again. A program that
 * sets up its group, prepares something first or runs more than one group writes its own main(). */
#ifndef MPAMD_TESTS_TEST_MAIN_H
#define MPAMD_TESTS_TEST_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define TEST_MAIN(...)                                            \
	int main(void)                                            \
	{                                                         \
		const struct CMUnitTest tests[] = __VA_ARGS__;    \
		return cmocka_run_group_tests(tests, NULL, NULL); \
	}

#endif
