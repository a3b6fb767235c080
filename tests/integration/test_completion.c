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

#include "tests/util/testutil.h"

static char dir[64], sock[96];
static int daemon_pid; /* the test's mpamd, until it has exited */

/* What the completion offers for the words of `line` (the last one being completed), one line. */
static char *complete(const char *line)
{
	char script[1024], out[128];

	snprintf(out, sizeof(out), "%s/out", dir);
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
	char line[256], log[128], config[128];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mpamd-completion-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/mpamd.sock", dir);
	snprintf(log, sizeof(log), "%s/mpamd.log", dir);
	snprintf(config, sizeof(config), "%s/etc/demo.ini", MPAMD_SOURCE_DIR);
	char *argv[] = { MPAMD, "-c", config, "-f", "--socket", sock, NULL };
	int pid = daemon_pid = spawn_background(argv, log);
	assert_true(pid > 0);
	assert_true(wait_for_text(log, "ready:", 5000));

	expect("mpamctl st", "status");
	expect("mpamctl re", "reload");
	expect("mpamctl show --j", "--json");
	expect("mpamctl list --w", "--wide");
	expect("mpamctl pmu \"\"", "list encode stat");
	snprintf(line, sizeof(line), "mpamctl --socket %s show \"\"", sock);
	expect(line, "web batch tenant");
	snprintf(line, sizeof(line), "mpamctl --socket %s set b", sock);
	expect(line, "batch");
	snprintf(line, sizeof(line), "mpamctl --socket %s set web mb_", sock);
	expect(line, "mb_min= mb_max=");
	/* No daemon, no names, and no error on the terminal. */
	expect("mpamctl --socket /nonexistent/s show \"\"", "");
	/* discover --record takes a file: the daemon's log is the only one in the directory. */
	snprintf(line, sizeof(line), "mpamctl discover --record %s/mpamd.l", dir);
	snprintf(config, sizeof(config), "%s/mpamd.log", dir);
	expect(line, config);

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, 5000), 0);
	daemon_pid = 0;
}

/* Also after a failed assertion: no mpamd and no directory stay behind. */
static int teardown(void **state)
{
	(void)state;
	kill_daemon(&daemon_pid);
	return remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_completion, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
