/* mpamctl top against a running mpamd on etc/demo.ini, in a real terminal: a detached tmux session
 * on a private tmux server. What is on screen is read with capture-pane, polled until a deadline.
 * Skipped (77) only when tmux is not installed. */
#include <errno.h>
#include <jansson.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/testutil.h"

#define WAIT_MS	     10000
#define POLL_MS	     50
#define MAX_PARTS    16
#define DEMO_INI     MPAMD_SOURCE_DIR "/etc/demo.ini"
#define SKIP_NO_TMUX 77

struct fixture {
	char dir[64];
	char socket[128], log[128], conf[128];
	char tmux[256];	 /* the tmux binary */
	char server[64]; /* -L: a tmux server of this test's own */
	int mpamd;	 /* pid */
	char names[MAX_PARTS][64];
	size_t count; /* partitions of the demo config */
};

static struct fixture fx;

/* ---- tmux ---- */

static bool find_in_path(const char *prog, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/bin:/bin");
	bool found = false;

	for (char *dir = strtok(copy, ":"); dir && !found; dir = strtok(NULL, ":")) {
		snprintf(buf, size, "%s/%s", dir, prog);
		found = access(buf, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* Runs tmux on the private server; returns its stdout (malloc'ed), its exit code in *ret_exit and, when
 * ret_err is not NULL, its stderr (malloc'ed). */
static char *tmux_full(const char *const *args, int *ret_exit, char **ret_err)
{
	char *argv[24] = { fx.tmux, "-L", fx.server, "-f", fx.conf };
	size_t n = 5;
	struct run_result r;

	for (; *args && n < 22; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	assert_int_equal(run_command(argv, &r), 0);
	if (ret_exit)
		*ret_exit = r.exit_code;
	if (ret_err)
		*ret_err = r.err;
	else
		free(r.err);
	return r.out;
}

static char *tmux(const char *const *args, int *ret_exit)
{
	return tmux_full(args, ret_exit, NULL);
}

static void tmux_do(const char *const *args)
{
	char *err;
	int rc;

	free(tmux_full(args, &rc, &err));
	if (rc != 0)
		fail_msg("tmux %s exited %d: %s", args[0], rc, err);
	free(err);
}

/* A detached session of cols x lines running `command` (a shell command line). */
static void start_session(const char *session, int cols, int lines, const char *command)
{
	char x[16], y[16];

	snprintf(x, sizeof(x), "%d", cols);
	snprintf(y, sizeof(y), "%d", lines);
	tmux_do((const char *[]){ "new-session", "-d", "-s", session, "-x", x, "-y", y, command, NULL });
}

static void start_top(const char *session, int cols, int lines, const char *env)
{
	char command[512];

	snprintf(command, sizeof(command), "exec %s '%s' --socket '%s' top", env ? env : "", MPAMCTL, fx.socket);
	start_session(session, cols, lines, command);
}

static char *capture(const char *session)
{
	return tmux((const char *[]){ "capture-pane", "-p", "-t", session, NULL }, NULL);
}

static void send_key(const char *session, const char *key)
{
	tmux_do((const char *[]){ "send-keys", "-t", session, key, NULL });
}

typedef bool (*screen_test)(const char *screen, const void *arg);

/* Polls the screen until `ok` says yes; returns that screen (malloc'ed) or fails with the last one. */
static char *wait_screen(const char *session, screen_test ok, const void *arg, const char *what)
{
	char *screen = NULL;

	for (int waited = 0; waited <= WAIT_MS; waited += POLL_MS) {
		free(screen);
		screen = capture(session);
		if (ok(screen, arg))
			return screen;
		usleep(POLL_MS * 1000);
	}
	fail_msg("%s: not on screen within %d ms:\n%s", what, WAIT_MS, screen);
	return NULL;
}

static bool has_text(const char *screen, const void *text)
{
	return strstr(screen, text) != NULL;
}

static bool lacks_text(const char *screen, const void *text)
{
	return strstr(screen, text) == NULL;
}

/* The pane's process ended and tmux has its exit status in *status.
 *
 * tmux marks a pane dead when its terminal closes and learns the status when it reaps the child on
 * SIGCHLD. Debian's tmux is built with libutempter, which runs a helper with SIGCHLD at its default
 * while the dead pane's utmp record is removed: a SIGCHLD that lands then is lost and the child stays
 * a zombie with no status (tmux/tmux#4559). Another SIGCHLD makes the server reap it. */
static bool pane_exit_status(const char *session, int *status)
{
	char *out = tmux((const char *[]){ "display-message", "-p", "-t", session,
					   "#{pane_dead}:#{pane_dead_status}:#{pid}", NULL },
			 NULL);
	char *dead_end, *status_end;
	long dead = strtol(out, &dead_end, 10), server = 0;
	bool known = false;

	if (dead == 1 && *dead_end == ':') {
		*status = (int)strtol(dead_end + 1, &status_end, 10);
		known = status_end != dead_end + 1;
		server = *status_end == ':' ? strtol(status_end + 1, NULL, 10) : 0;
	}
	if (dead == 1 && !known && server > 0)
		kill((pid_t)server, SIGCHLD);
	free(out);
	return known;
}

static void quit_and_expect_zero(const char *session)
{
	int status = -1;
	bool ended = false;

	send_key(session, "q");
	for (int waited = 0; waited <= WAIT_MS && !(ended = pane_exit_status(session, &status)); waited += POLL_MS)
		usleep(POLL_MS * 1000);
	if (!ended || status != 0) {
		char *screen = capture(session);
		fail_msg("top in %s: %s %d; the screen:\n%s", session, ended ? "exit status" : "still running after q",
			 status, screen);
	}
	tmux_do((const char *[]){ "kill-session", "-t", session, NULL });
}

/* ---- reading the screen ---- */

/* The line that starts with partition `name`, as a malloc'ed string, or NULL. */
static char *row_of(const char *screen, const char *name)
{
	size_t len = strlen(name);

	for (const char *line = screen; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		if (!strncmp(line, name, len) && line[len] == ' ')
			return strndup(line, end ? (size_t)(end - line) : strlen(line));
	}
	return NULL;
}

/* The MB/s after the bar of `name`'s row; false when there is no row or no number. */
static bool row_rate(const char *screen, const char *name, double *rate)
{
	char *row = row_of(screen, name), *end;
	const char *bar_end = row ? strchr(row, ']') : NULL;
	bool ok = false;

	if (bar_end) {
		*rate = strtod(bar_end + 1, &end);
		ok = end != bar_end + 1;
	}
	free(row);
	return ok;
}

/* The line index of `name`'s row, or -1. */
static int row_line(const char *screen, const char *name)
{
	char *row = row_of(screen, name);
	int line = -1;

	if (row) {
		const char *at = strstr(screen, row);
		line = 0;
		for (const char *p = screen; p < at; p++)
			line += *p == '\n';
	}
	free(row);
	return line;
}

static bool all_rates_shown(const char *screen, const void *arg)
{
	double rate;

	(void)arg;
	for (size_t i = 0; i < fx.count; i++)
		if (!row_rate(screen, fx.names[i], &rate))
			return false;
	return true;
}

/* Rows top to bottom by rate: descending (arg NULL) or ascending (non-NULL). */
static bool rows_by_rate(const char *screen, const void *ascending)
{
	double last = 0;
	int seen = 0;

	if (!all_rates_shown(screen, NULL))
		return false;
	for (int line = 0; line < 100 && seen < (int)fx.count; line++) {
		for (size_t i = 0; i < fx.count; i++) {
			double rate;
			if (row_line(screen, fx.names[i]) != line || !row_rate(screen, fx.names[i], &rate))
				continue;
			if (seen++ && (ascending ? rate < last : rate > last))
				return false;
			last = rate;
		}
	}
	return seen == (int)fx.count;
}

static bool rows_by_name(const char *screen, const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < fx.count; i++)
		for (size_t j = 0; j < fx.count; j++)
			if (strcmp(fx.names[i], fx.names[j]) < 0 &&
			    row_line(screen, fx.names[i]) >= row_line(screen, fx.names[j]))
				return false;
	return all_rates_shown(screen, NULL);
}

static long screen_ticks(const char *screen)
{
	const char *t = strstr(screen, "ticks ");

	return t ? strtol(t + 6, NULL, 10) : -1;
}

static long daemon_ticks(void)
{
	char *argv[] = { MPAMCTL, "--socket", fx.socket, "--json", "status", NULL };
	struct run_result r;
	long ticks = -1;

	assert_int_equal(run_command(argv, &r), 0);
	json_t *status = json_loads(r.out, 0, NULL);
	if (json_is_integer(json_object_get(status, "ticks")))
		ticks = (long)json_integer_value(json_object_get(status, "ticks"));
	json_decref(status);
	run_result_fini(&r);
	return ticks;
}

/* ---- the daemon ---- */

static void read_demo_names(void)
{
	char *text = read_text_file(DEMO_INI);
	const char *p = text;

	assert_non_null(text);
	fx.count = 0;
	while ((p = strstr(p, "[partition \"")) && fx.count < MAX_PARTS) {
		p += strlen("[partition \"");
		const char *end = strchr(p, '"');
		assert_non_null(end);
		snprintf(fx.names[fx.count++], sizeof(fx.names[0]), "%.*s", (int)(end - p), p);
	}
	free(text);
	assert_true(fx.count >= 2); /* a sort order needs two */
}

static void start_mpamd(void)
{
	char *argv[] = { MPAMD, "-c", DEMO_INI, "-f", "--socket", fx.socket, NULL };

	unlink(fx.log);
	fx.mpamd = spawn_background(argv, fx.log);
	assert_true(fx.mpamd > 0);
	assert_true(wait_for_text(fx.log, "ready:", WAIT_MS));
}

static void stop_mpamd(void)
{
	if (fx.mpamd <= 0)
		return;
	kill(fx.mpamd, SIGTERM);
	assert_int_equal(wait_exit(fx.mpamd, WAIT_MS), 0);
	fx.mpamd = 0;
}

static int setup(void **state)
{
	(void)state;
	make_test_dir(fx.dir, sizeof(fx.dir), "top");
	snprintf(fx.socket, sizeof(fx.socket), "%s/s", fx.dir);
	snprintf(fx.log, sizeof(fx.log), "%s/mpamd.log", fx.dir);
	snprintf(fx.conf, sizeof(fx.conf), "%s/tmux.conf", fx.dir);
	snprintf(fx.server, sizeof(fx.server), "mpamd-top-%d", (int)getpid());
	/* The server's socket goes under our directory; a tmux we may run inside is not ours. */
	setenv("TMUX_TMPDIR", fx.dir, 1);
	unsetenv("TMUX");
	FILE *conf = fopen(fx.conf, "w");
	if (!conf)
		return -1;
	/* A dead pane stays to be asked its exit status; no status line takes a row; the server outlives
	 * each test's session (else the next new-session races its exit) until teardown kills it. */
	fputs("set -g remain-on-exit on\nset -g status off\nset -s exit-empty off\n", conf);
	fclose(conf);
	read_demo_names();
	start_mpamd();
	return 0;
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	int rc;
	free(tmux((const char *[]){ "kill-server", NULL }, &rc));
	stop_mpamd();
	snprintf(path, sizeof(path), "%s/tmux-%d/%s", fx.dir, (int)getuid(), fx.server);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tmux-%d", fx.dir, (int)getuid());
	rmdir(path);
	unlink(fx.conf);
	unlink(fx.log);
	unlink(fx.socket);
	return rmdir(fx.dir);
}

/* ---- tests ---- */

/* 80x24: every partition with a number, sorted by name, then by bandwidth both ways; pause holds
 * the screen while the daemon ticks on; q ends with status 0. */
static void test_live_view(void **state)
{
	(void)state;
	start_top("live", 80, 24, NULL);
	char *screen = wait_screen("live", rows_by_name, NULL, "every partition with a rate, by name");
	assert_non_null(strstr(screen, "EVENT")); /* 80 columns hold every column */
	assert_non_null(strstr(screen, "sort: name"));
	free(screen);

	send_key("live", "s");
	free(wait_screen("live", has_text, "sort: bandwidth", "the bandwidth sort"));
	free(wait_screen("live", rows_by_rate, NULL, "rows by rate, highest first"));
	send_key("live", "r");
	free(wait_screen("live", has_text, "(reversed)", "the reversed sort"));
	free(wait_screen("live", rows_by_rate, "ascending", "rows by rate, lowest first"));

	send_key("live", "p");
	screen = wait_screen("live", has_text, "PAUSED", "PAUSED");
	long frozen = screen_ticks(screen);
	free(screen);
	assert_true(frozen >= 0);
	/* The daemon ticks on; the paused screen does not. */
	for (int waited = 0; waited <= WAIT_MS && daemon_ticks() < frozen + 5; waited += POLL_MS)
		usleep(POLL_MS * 1000);
	assert_true(daemon_ticks() >= frozen + 5);
	screen = capture("live");
	assert_int_equal(screen_ticks(screen), frozen);
	assert_true(all_rates_shown(screen, NULL));
	free(screen);
	send_key("live", "p");
	free(wait_screen("live", lacks_text, "PAUSED", "the end of the pause"));

	/* mpamd sends each partition's numbers on each of the demo's two domains: 'd' shows them, one
	 * row per domain under its partition, named as the configuration names them. */
	send_key("live", "d");
	screen = wait_screen("live", has_text, "\n  1 ", "the rows of domain 1");
	assert_non_null(strstr(screen, "\n  0 "));
	assert_null(strstr(screen, "no per-domain numbers"));
	free(screen);
	quit_and_expect_zero("live");
}

/* 60x20 from the start, and 80x24 shrunk to 60x20 (KEY_RESIZE): names and rates, no event column. */
static void test_small_terminal(void **state)
{
	(void)state;
	start_top("small", 60, 20, NULL);
	char *screen = wait_screen("small", all_rates_shown, NULL, "names and rates at 60x20");
	assert_null(strstr(screen, "EVENT"));
	free(screen);
	quit_and_expect_zero("small");

	start_top("resized", 80, 24, NULL);
	free(wait_screen("resized", has_text, "EVENT", "the event column at 80x24"));
	tmux_do((const char *[]){ "resize-window", "-t", "resized", "-x", "60", "-y", "20", NULL });
	screen = wait_screen("resized", lacks_text, "EVENT", "the layout for 60x20");
	free(screen);
	screen = wait_screen("resized", all_rates_shown, NULL, "names and rates after the resize");
	for (const char *line = screen; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		assert_true((end ? end - line : (long)strlen(line)) <= 60);
	}
	free(screen);
	quit_and_expect_zero("resized");
}

/* Every row whose mb_max is below 100% has the limit marker in its bar. */
static bool limit_markers_shown(const char *screen, const void *arg)
{
	int limited = 0;

	if (!all_rates_shown(screen, arg))
		return false;
	for (size_t i = 0; i < fx.count; i++) {
		char *row = row_of(screen, fx.names[i]);
		char *bar = strchr(row, '['), *bar_end = strchr(row, ']'), *slash = strchr(row, '/');
		int mb_max = 100;
		bool ok = bar && bar_end && slash;
		if (ok) {
			const char *p = slash;
			while (p > row && p[-1] >= '0' && p[-1] <= '9')
				p--;
			mb_max = atoi(p);
			*bar_end = '\0';
			if (mb_max < 100)
				ok = strchr(bar, '|') != NULL;
			limited += mb_max < 100;
		}
		free(row);
		if (!ok)
			return false;
	}
	return limited > 0;
}

/* Without colour (vt100, NO_COLOR) the bars and their markers are characters. */
static void test_no_colour(void **state)
{
	(void)state;
	start_top("mono", 80, 24, "env TERM=vt100 NO_COLOR=1");
	char *screen = wait_screen("mono", limit_markers_shown, NULL, "limit markers without colour");
	assert_non_null(strchr(screen, '#'));
	free(screen);
	quit_and_expect_zero("mono");
}

/* The daemon goes away: the screen names the socket and keeps trying; it comes back: the rows do. */
static void test_daemon_goes_away(void **state)
{
	(void)state;
	start_top("gone", 80, 24, NULL);
	free(wait_screen("gone", all_rates_shown, NULL, "the rows"));
	stop_mpamd();
	char *screen = wait_screen("gone", has_text, "no data", "the daemon's absence");
	assert_non_null(strstr(screen, fx.socket));
	assert_non_null(strstr(screen, "retrying"));
	free(screen);
	start_mpamd();
	free(wait_screen("gone", all_rates_shown, NULL, "the rows again"));
	quit_and_expect_zero("gone");
}

/* Not a terminal: one plain frame, every row, then exit 0; no daemon: exit 1 with the socket named. */
static void test_plain_frame(void **state)
{
	char *argv[] = { MPAMCTL, "--socket", fx.socket, "top", NULL };
	struct run_result r;

	(void)state;
	setenv("COLUMNS", "60", 1);
	assert_int_equal(run_command(argv, &r), 0);
	unsetenv("COLUMNS");
	assert_int_equal(r.exit_code, 0);
	assert_true(all_rates_shown(r.out, NULL));
	assert_null(strstr(r.out, "q quit"));
	assert_null(strchr(r.out, '\033')); /* no terminal codes */
	for (const char *line = r.out; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		assert_true((end ? end - line : (long)strlen(line)) <= 60);
	}
	run_result_fini(&r);

	char missing[160];
	snprintf(missing, sizeof(missing), "%s/nobody", fx.dir);
	char *argv_gone[] = { MPAMCTL, "--socket", missing, "top", "--once", NULL };
	assert_int_equal(run_command(argv_gone, &r), 0);
	assert_int_equal(r.exit_code, 3); /* unreachable, as for every command that asks mpamd */
	assert_non_null(strstr(r.out, missing));
	assert_non_null(strstr(r.err, missing));
	run_result_fini(&r);
}

int main(void)
{
	char path[256];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_view),   cmocka_unit_test(test_small_terminal),
		cmocka_unit_test(test_no_colour),   cmocka_unit_test(test_daemon_goes_away),
		cmocka_unit_test(test_plain_frame),
	};

	if (!find_in_path("tmux", path, sizeof(path))) {
		printf("tmux is not installed: skipped\n");
		return SKIP_NO_TMUX;
	}
	snprintf(fx.tmux, sizeof(fx.tmux), "%s", path);
	return cmocka_run_group_tests(tests, setup, teardown);
}
