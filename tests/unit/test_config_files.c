/* The files a configuration is read from, as a local user or a bad drop-in may leave them: a FIFO, a
 * device behind a symbolic link, a directory, a file larger than any configuration, a line without
 * end. Each is refused with FILE: or FILE:LINE: and why, promptly and in bounded memory. Each load
 * runs in a child process with an alarm (and, outside AddressSanitizer, a cap on its address space),
 * so that a loader that blocks on a FIFO or grows on /dev/zero fails the test instead of hanging it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config/config.h"
#include "core/engine/registry.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define CHILD_SECONDS 20
#define CHILD_MEMORY  (768ull * 1024 * 1024)

/* What a load in the child came to: its return, and its first error as diag_text prints it. */
struct outcome {
	int r;
	int killed_by; /* the signal that ended the child (SIGALRM: it blocked), 0 when it finished */
	size_t errors;
	char first[1024];
	char all[4096];
};

static char dir[64];

static int setup(void **state)
{
	(void)state;
	make_test_dir(dir, sizeof(dir), "config-files");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(dir);
}

static void path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void child_limits(void)
{
	alarm(CHILD_SECONDS);
#ifndef __SANITIZE_ADDRESS__
	struct rlimit rl = { CHILD_MEMORY, CHILD_MEMORY };
	setrlimit(RLIMIT_AS, &rl);
#endif
}

/* In the child: load, then report "R ERRORS\nFIRST\nALL" on `fd`. `path` NULL: the stream `in`. */
static void child_load(int fd, const char *path, FILE *in)
{
	struct diag_list d;
	struct config *c = NULL;

	child_limits();
	diag_list_init(&d, path ? path : "<stream>");
	int r = path ? config_load_path(path, engine_default_schema(), NULL, &c, &d)
		     : config_load(in, engine_default_schema(), NULL, &c, &d);
	dprintf(fd, "%d %zu\n", r, diag_error_count(&d));
	for (size_t i = 0; i < d.count; i++) {
		char *text = diag_text(&d, &d.items[i]);
		dprintf(fd, "%s\n", text ? text : "?");
		free(text);
	}
	config_free(c);
	diag_list_fini(&d);
	_exit(0);
}

static struct outcome load_guarded(const char *path, const char *stream_path)
{
	struct outcome o = { .r = 1 };
	char buf[8192] = "";
	size_t used = 0;
	int p[2], status;

	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_load(p[1], path, stream_path ? fopen(stream_path, "re") : NULL);
	}
	close(p[1]);
	for (ssize_t n; used + 1 < sizeof(buf) && (n = read(p[0], buf + used, sizeof(buf) - 1 - used)) > 0;)
		used += (size_t)n;
	close(p[0]);
	buf[used] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status)) {
		o.killed_by = WTERMSIG(status);
		return o;
	}
	char *nl = strchr(buf, '\n');
	sscanf(buf, "%d %zu", &o.r, &o.errors);
	if (nl) {
		snprintf(o.all, sizeof(o.all), "%s", nl + 1);
		snprintf(o.first, sizeof(o.first), "%.*s", (int)strcspn(nl + 1, "\n"), nl + 1);
	}
	return o;
}

static void expect_refused(const struct outcome *o, int r, const char *says)
{
	if (o->killed_by)
		fail_msg("the load did not end: %s after %d s", strsignal(o->killed_by), CHILD_SECONDS);
	if (o->r != r || !strstr(o->all, says))
		fail_msg("expected %d and '%s', got %d and:\n%s", r, says, o->r, o->all);
}

static const char valid[] = "[global]\nbackend = sim\n[partition \"web\"]\nmb_max = 50\n";

/* The main file: a FIFO nobody writes, /dev/zero behind a symbolic link, a directory. */
static void test_main_file_must_be_regular(void **state)
{
	char fifo[96], zero[96], sub[96], expect[160];

	(void)state;
	path_in_dir(fifo, sizeof(fifo), "fifo.ini");
	path_in_dir(zero, sizeof(zero), "zero.ini");
	path_in_dir(sub, sizeof(sub), "sub.ini");
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink("/dev/zero", zero), 0);
	assert_int_equal(mkdir(sub, 0755), 0);

	struct outcome o = load_guarded(fifo, NULL);
	snprintf(expect, sizeof(expect), "%s: error: a FIFO, not a regular file", fifo);
	expect_refused(&o, -EINVAL, expect);
	o = load_guarded(zero, NULL);
	snprintf(expect, sizeof(expect), "%s: error: a character device, not a regular file", zero);
	expect_refused(&o, -EINVAL, expect);
	o = load_guarded(sub, NULL);
	snprintf(expect, sizeof(expect), "%s: error: a directory, not a regular file", sub);
	expect_refused(&o, -EINVAL, expect);
}

/* include = GLOB matching a FIFO, /dev/zero behind a link and a directory beside a good file: each
 * is an error at the include line naming it; the good file is still read. */
static void test_include_must_be_regular(void **state)
{
	char main_path[96], text[256], path[96];

	(void)state;
	path_in_dir(main_path, sizeof(main_path), "main.ini");
	snprintf(text, sizeof(text), "[global]\nbackend = sim\ninclude = %s/d/*.ini\n[partition \"web\"]\n", dir);
	write_text(main_path, text);
	path_in_dir(path, sizeof(path), "d");
	assert_int_equal(mkdir(path, 0755), 0);
	path_in_dir(path, sizeof(path), "d/10-good.ini");
	write_text(path, "[partition \"vm-a\"]\nmb_max = 40\n[partition \"vm-a\"]\n");
	path_in_dir(path, sizeof(path), "d/20-fifo.ini");
	assert_int_equal(mkfifo(path, 0644), 0);
	path_in_dir(path, sizeof(path), "d/30-zero.ini");
	assert_int_equal(symlink("/dev/zero", path), 0);
	path_in_dir(path, sizeof(path), "d/40-dir.ini");
	assert_int_equal(mkdir(path, 0755), 0);

	struct outcome o = load_guarded(main_path, NULL);
	char expect[256];
	snprintf(expect, sizeof(expect), "%s:3: error: include: %s/d/20-fifo.ini: a FIFO, not a regular file",
		 main_path, dir);
	expect_refused(&o, -EINVAL, expect);
	snprintf(expect, sizeof(expect),
		 "%s:3: error: include: %s/d/30-zero.ini: a character device, not a regular file", main_path, dir);
	expect_refused(&o, -EINVAL, expect);
	snprintf(expect, sizeof(expect), "%s:3: error: include: %s/d/40-dir.ini: a directory, not a regular file",
		 main_path, dir);
	expect_refused(&o, -EINVAL, expect);
	/* The good file was read: its duplicate is found at its own line. */
	snprintf(expect, sizeof(expect), "%s/d/10-good.ini:3: error: duplicate partition \"vm-a\"", dir);
	expect_refused(&o, -EINVAL, expect);
	assert_int_equal(o.errors, 4);
}

/* A file of CONFIG_MAX_FILE_BYTES loads; one byte more is refused, as main file and as included. */
static void test_file_size_limit(void **state)
{
	char main_path[96], big[96], text[256];
	size_t pad = CONFIG_MAX_FILE_BYTES - strlen(valid);

	(void)state;
	path_in_dir(big, sizeof(big), "big.ini");
	FILE *f = fopen(big, "w");
	assert_non_null(f);
	fputs(valid, f);
	for (size_t i = 0; i < pad / 100; i++)
		fprintf(f, ";%098zu\n", i);
	for (size_t i = 0; i < pad % 100; i++)
		fputc('\n', f);
	fclose(f);
	struct outcome o = load_guarded(big, NULL);
	if (o.killed_by || o.r != 0)
		fail_msg("a file of exactly %d bytes: %d %s", CONFIG_MAX_FILE_BYTES, o.r, o.all);

	f = fopen(big, "a");
	fputc('\n', f);
	fclose(f);
	o = load_guarded(big, NULL);
	expect_refused(&o, -EFBIG, "bytes, larger than 1048576, the most a file may hold");

	path_in_dir(main_path, sizeof(main_path), "main.ini");
	snprintf(text, sizeof(text), "[global]\nbackend = sim\ninclude = %s\n[partition \"web\"]\n", big);
	write_text(main_path, text);
	o = load_guarded(main_path, NULL);
	expect_refused(&o, -EINVAL, ":3: error: include: ");
	expect_refused(&o, -EINVAL, "big.ini: 1048577 bytes, larger than 1048576");
}

/* A line far longer than CONFIG_MAX_LINE is one error at its line, and the lines after it are read. */
static void test_long_line(void **state)
{
	char path[96];

	(void)state;
	path_in_dir(path, sizeof(path), "long.ini");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[global]\nbackend = sim\nrecord = /", f);
	for (int i = 0; i < 500000; i++)
		fputc('x', f);
	fputs("\n[partition \"web\"]\nmb_max = 500\n", f);
	fclose(f);
	struct outcome o = load_guarded(path, NULL);
	char expect[160];
	snprintf(expect, sizeof(expect), "%s:3: error: line longer than %d characters", path, CONFIG_MAX_LINE);
	expect_refused(&o, -EINVAL, expect);
	expect_refused(&o, -EINVAL, ":5: error: mb_max = 500");
	assert_int_equal(o.errors, 2);
}

/* A stream without end (config_load of a FILE *): read up to the limit, then refused. */
static void test_stream_without_end(void **state)
{
	(void)state;
	struct outcome o = load_guarded(NULL, "/dev/zero");
	expect_refused(&o, -EFBIG, "<stream>: error: larger than 1048576 bytes");
}

TEST_MAIN({
	fixture_test(test_main_file_must_be_regular),
	fixture_test(test_include_must_be_regular),
	fixture_test(test_file_size_limit),
	fixture_test(test_long_line),
	fixture_test(test_stream_without_end),
})
