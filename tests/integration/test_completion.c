/* The bash completion (etc/bash-completion/mpamctl) in a real bash: commands and options read from
 * this build's mpamctl, partition names from a running demo daemon. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/demo_daemon.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static struct demo_daemon demo;

/* What the completion offers for the words of `line` (the last one being completed), one line. */
static char *complete(const char *line)
{
	char script[1024], out[128];

	snprintf(out, sizeof(out), "%s/out", demo.dir);
	snprintf(script, sizeof(script),
		 "bash -c '. %s/etc/bash-completion/mpamctl; PATH=%s:$PATH; "
		 "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _mpamctl; "
		 "echo \"${COMPREPLY[*]}\"' >%s 2>&1",
		 MPAMD_SOURCE_DIR, BUILD_DIR, line, out);
	assert_int_equal(system(script), 0);
	char *text = read_text_file(out);
	assert_non_null(text);
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static void expect(const char *line, const char *offered)
{
	char *got = complete(line);

	if (strcmp(got, offered))
		fail_msg("completing [%s]: got '%s', expected '%s'", line, got, offered);
	free(got);
}

static void test_completion(void **state)
{
	char line[256];

	(void)state;
	demo_daemon_start(&demo, "completion", false);

	expect("mpamctl st", "status");
	expect("mpamctl re", "reload");
	expect("mpamctl show --j", "--json");
	expect("mpamctl list --w", "--wide");
	expect("mpamctl pmu \"\"", "list encode stat");
	snprintf(line, sizeof(line), "mpamctl --socket %s show \"\"", demo.sock);
	expect(line, "web batch tenant");
	snprintf(line, sizeof(line), "mpamctl --socket %s set b", demo.sock);
	expect(line, "batch");
	snprintf(line, sizeof(line), "mpamctl --socket %s set web mb_", demo.sock);
	expect(line, "mb_min= mb_max=");
	/* No daemon, no names, and no error on the terminal. */
	expect("mpamctl --socket /nonexistent/s show \"\"", "");
	/* discover --record takes a file: the daemon's log is the only one in the directory. */
	snprintf(line, sizeof(line), "mpamctl discover --record %s/mpamd.l", demo.dir);
	expect(line, demo.log);

	demo_daemon_stop(&demo);
}

/* The teardown leaves no mpamd and no directory behind, after a failed assertion too. */
TEST_MAIN({
	cmocka_unit_test_prestate_setup_teardown(test_completion, NULL, demo_daemon_teardown, &demo),
})
