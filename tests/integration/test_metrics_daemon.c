/* mpamd's metrics end to end, on the demo host (etc/demo.ini plus a metrics_textfile): what
 * `mpamctl metrics` prints passes `promtool check metrics`, a reload's outcome shows, the textfile
 * is only ever seen whole while mpamd rewrites it (at most once a second), passes promtool too and
 * goes with a clean stop, and a directory that is not there yet is said once and then written.
 * Without promtool the rest still runs and the program exits 77 (skipped). */
#include <errno.h>
#include <fcntl.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/engine_util.h"
#include "tests/util/promtool.h"
#include "tests/util/testutil.h"

#define WAIT_MS	     5000
#define LAST_FAMILY  "# TYPE mpamd_policy_events_total counter\n"
#define FIRST_FAMILY "# HELP mpamd_build_info "

static bool promtool_missing;

struct files {
	char dir[64];
	char config[96], socket[96], log[96], textfile[128], tmp[136], out[96];
	const char *textfile_dir; /* under dir, or NULL */
	int pid;		  /* the daemon while it runs, else 0 */
};

static void make_files(struct files *f, const char *textfile_dir)
{
	make_test_dir(f->dir, sizeof(f->dir), "metrics");
	snprintf(f->config, sizeof(f->config), "%s/demo.ini", f->dir);
	snprintf(f->socket, sizeof(f->socket), "%s/mpamd.sock", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/mpamd.log", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/out.prom", f->dir);
	snprintf(f->textfile, sizeof(f->textfile), "%s%s%s/mpamd.prom", f->dir, textfile_dir ? "/" : "",
		 textfile_dir ? textfile_dir : "");
	snprintf(f->tmp, sizeof(f->tmp), "%s.tmp", f->textfile);
	f->textfile_dir = textfile_dir;
}

static int setup(void **state)
{
	struct files *f = calloc(1, sizeof(*f));

	*state = f;
	return f ? 0 : -1;
}

/* Also after a failed test: the daemon stopped, every file removed. */
static int teardown(void **state)
{
	struct files *f = *state;
	char sub[128];

	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		wait_exit(f->pid, WAIT_MS);
	}
	if (f->dir[0]) {
		unlink(f->config);
		unlink(f->log);
		unlink(f->out);
		unlink(f->textfile);
		unlink(f->tmp);
		unlink(f->socket);
		if (f->textfile_dir) {
			snprintf(sub, sizeof(sub), "%s/%s", f->dir, f->textfile_dir);
			rmdir(sub);
		}
		rmdir(f->dir);
	}
	free(f);
	return 0;
}

/* After a clean stop only what the test made is left: the socket and the textfile went with mpamd. */
static void assert_only_test_files_left(const struct files *f)
{
	assert_int_equal(access(f->socket, F_OK), -1);
	assert_int_equal(access(f->textfile, F_OK), -1);
	assert_int_equal(access(f->tmp, F_OK), -1);
}

/* etc/demo.ini with metrics_textfile added to its [global] section. */
static void write_demo_config(const struct files *f)
{
	char *demo = read_text_file(MPAMD_SOURCE_DIR "/etc/demo.ini");
	assert_non_null(demo);
	char *global = strstr(demo, "[global]\n");
	assert_non_null(global);
	global += strlen("[global]\n");
	char *text;
	assert_true(asprintf(&text, "%.*smetrics_textfile = %s\n%s", (int)(global - demo), demo, f->textfile, global) >
		    0);
	write_file(f->config, "%s", text);
	free(text);
	free(demo);
}

static void start_mpamd(struct files *f)
{
	char *argv[] = { MPAMD, "-c", f->config, "-f", "--socket", f->socket, NULL };

	f->pid = spawn_background(argv, f->log);
	assert_true(f->pid > 0);
	if (!wait_for_text(f->log, "ready:", WAIT_MS))
		fail_msg("mpamd did not get ready; its log:\n%s", read_text_file(f->log));
}

static void stop_mpamd(struct files *f)
{
	assert_int_equal(kill(f->pid, SIGTERM), 0);
	assert_int_equal(wait_exit(f->pid, WAIT_MS), 0);
	f->pid = 0;
	assert_only_test_files_left(f);
}

static struct run_result mpamctl(const struct files *f, const char *a1, const char *a2)
{
	char *argv[] = { MPAMCTL, "--socket", (char *)f->socket, (char *)a1, (char *)a2, NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

/* `promtool check metrics < path`: the format and Prometheus' naming lint. */
static void assert_promtool_accepts(const char *path)
{
	char *argv[] = { "/bin/sh", "-c", "exec promtool check metrics < \"$1\"", "sh", (char *)path, NULL };
	char what[512];

	if (promtool_missing)
		return;
	snprintf(what, sizeof(what), "promtool check metrics %s", path);
	promtool_expect_ok(argv, what);
}

/* The value of the unlabelled sample `name` in `text`. */
static double sample_value(const char *text, const char *name)
{
	char needle[128];

	snprintf(needle, sizeof(needle), "\n%s ", name);
	const char *at = strstr(text, needle);
	if (!at)
		fail_msg("no sample %s in:\n%s", name, text);
	return strtod(at + strlen(needle), NULL);
}

static char *metrics_text(const struct files *f)
{
	struct run_result r = mpamctl(f, "metrics", NULL);

	if (r.exit_code != 0)
		fail_msg("mpamctl metrics exited %d: %s", r.exit_code, r.err);
	char *out = r.out;
	r.out = NULL;
	run_result_fini(&r);
	return out;
}

static void test_mpamctl_metrics_pass_promtool(void **state)
{
	struct files *f = *state;

	make_files(f, NULL);
	write_demo_config(f);
	start_mpamd(f);
	/* The first tick only sees monitors that are not ready yet: wait for measured ones. */
	assert_true(wait_for_text(f->textfile, "mpamd_partition_bandwidth_bytes_per_second{", WAIT_MS));

	char *text = metrics_text(f);
	write_file(f->out, "%s", text);
	assert_promtool_accepts(f->out);
	/* Every demo partition on both simulated MSCs, named as the configuration names them. */
	const char *partitions[] = { "web", "batch", "tenant" };
	for (size_t p = 0; p < 3; p++)
		for (int d = 0; d < 2; d++) {
			char series[160];
			snprintf(series, sizeof(series),
				 "\nmpamd_partition_bandwidth_bytes_per_second{partition=\"%s\",domain=\"%d\"} ",
				 partitions[p], d);
			if (!strstr(text, series))
				fail_msg("no%s in:\n%s", series, text);
		}
	free(text);

	/* --json: the reply itself. */
	struct run_result r = mpamctl(f, "--json", "metrics");
	assert_int_equal(r.exit_code, 0);
	json_error_t error;
	json_t *reply = json_loads(r.out, 0, &error);
	assert_non_null(reply);
	assert_string_equal(json_string_value(json_object_get(reply, "format")), "prometheus-text-0.0.4");
	assert_true(!strncmp(json_string_value(json_object_get(reply, "text")), FIRST_FAMILY, strlen(FIRST_FAMILY)));
	json_decref(reply);
	run_result_fini(&r);

	/* A refused reload shows at once; the next good one clears it. */
	text = metrics_text(f);
	assert_true(sample_value(text, "mpamd_config_last_reload_success") == 1);
	double loaded_at = sample_value(text, "mpamd_config_last_reload_success_timestamp_seconds");
	free(text);
	write_file(f->config, "[global]\nbackend = sim\ninterval_ms = 5\n");
	r = mpamctl(f, "reload", NULL);
	assert_int_equal(r.exit_code, 1);
	run_result_fini(&r);
	text = metrics_text(f);
	assert_true(sample_value(text, "mpamd_config_last_reload_success") == 0);
	assert_true(sample_value(text, "mpamd_config_last_reload_success_timestamp_seconds") == loaded_at);
	free(text);
	write_demo_config(f);
	usleep(20000); /* a later timestamp than the start's, at its resolution */
	r = mpamctl(f, "reload", NULL);
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);
	text = metrics_text(f);
	assert_true(sample_value(text, "mpamd_config_last_reload_success") == 1);
	assert_true(sample_value(text, "mpamd_config_last_reload_success_timestamp_seconds") > loaded_at);
	free(text);

	stop_mpamd(f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The whole file as one read sees it, or NULL when it is not there. */
static char *read_whole(const char *path, ino_t *ret_inode)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return NULL;
	assert_int_equal(fstat(fd, &st), 0);
	*ret_inode = st.st_ino;
	char *buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	ssize_t n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	assert_true(n == st.st_size);
	buf[n] = '\0';
	return buf;
}

static void test_textfile_is_only_ever_whole(void **state)
{
	struct files *f = *state;
	struct stat st;

	make_files(f, NULL);
	write_demo_config(f);
	start_mpamd(f);
	assert_true(wait_for_text(f->textfile, LAST_FAMILY, WAIT_MS));
	assert_int_equal(stat(f->textfile, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	/* Read it as fast as we can for 3.5 s while mpamd replaces it. */
	double start = now_s(), last_ticks = -1;
	unsigned reads = 0, versions = 0, inodes = 0;
	ino_t last_inode = 0;
	while (now_s() - start < 3.5) {
		ino_t inode;
		char *text = read_whole(f->textfile, &inode);
		assert_non_null(text); /* renamed over, never removed first */
		if (strncmp(text, FIRST_FAMILY, strlen(FIRST_FAMILY)) || !strstr(text, LAST_FAMILY) ||
		    text[strlen(text) - 1] != '\n')
			fail_msg("read %u saw a partial file:\n%s", reads, text);
		double ticks = sample_value(text, "mpamd_ticks_total");
		versions += ticks != last_ticks;
		inodes += inode != last_inode;
		last_ticks = ticks;
		last_inode = inode;
		reads++;
		free(text);
	}
	print_message("%u reads, %u versions of the file\n", reads, versions);
	/* Rewritten (a new file each time, renamed into place), but at most once a second. */
	assert_true(versions >= 3);
	assert_true(versions <= 5);
	assert_int_equal(inodes, versions);

	char copy[160];
	snprintf(copy, sizeof(copy), "%s", f->out);
	ino_t inode;
	char *text = read_whole(f->textfile, &inode);
	write_file(copy, "%s", text);
	free(text);
	assert_promtool_accepts(copy);

	/* A clean stop takes the file along: no metrics rather than old ones. */
	stop_mpamd(f);
}

static unsigned count_text(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void test_textfile_failure_is_said_once(void **state)
{
	struct files *f = *state;
	char dir[128];

	make_files(f, "collector");
	write_demo_config(f);
	start_mpamd(f);
	/* Ticks go on without the directory, and the log says so once, at start-up. */
	usleep(2500000);
	assert_int_equal(kill(f->pid, 0), 0);
	char *log = read_text_file(f->log);
	assert_int_equal(count_text(log, "metrics textfile: "), 1);
	assert_int_equal(count_text(log, "/collector does not exist"), 1);
	free(log);
	char *text = metrics_text(f);
	assert_true(sample_value(text, "mpamd_ticks_total") >= 20);
	free(text);

	snprintf(dir, sizeof(dir), "%s/collector", f->dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_true(wait_for_text(f->textfile, LAST_FAMILY, WAIT_MS));
	assert_true(wait_for_text(f->log, "written again", WAIT_MS));
	stop_mpamd(f);
	log = read_text_file(f->log);
	assert_int_equal(count_text(log, "metrics textfile: "), 1);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_mpamctl_metrics_pass_promtool),
		fixture_test(test_textfile_is_only_ever_whole),
		fixture_test(test_textfile_failure_is_said_once),
	};
	promtool_missing = !promtool_found();
	return promtool_exit_code(cmocka_run_group_tests(tests, NULL, NULL), promtool_missing);
}
