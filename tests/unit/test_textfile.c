/* The metrics textfile: the metrics_textfile key refuses what node_exporter would not read, the
 * writer replaces the file whole through PATH.tmp, says a failure once and its end once, and a stop
 * or a new path removes the file it wrote. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/log.h"
#include "core/config/config.h"
#include "core/engine/registry.h"
#include "core/report/textfile.h"
#include "tests/util/testutil.h"

/* ---- the key ---- */

/* Loads "[global]\nmetrics_textfile = VALUE\n"; returns the first error's message, or NULL. */
static char *load_textfile_key(const char *value, char *loaded, size_t len)
{
	char text[512];
	struct config *c = NULL;
	struct diag_list d;

	snprintf(text, sizeof(text), "[global]\nbackend = sim\nmetrics_textfile = %s\n[partition \"a\"]\n", value);
	FILE *in = fmemopen(text, strlen(text), "r");
	assert_non_null(in);
	diag_list_init(&d, "test.ini");
	int r = config_load(in, engine_default_schema(), NULL, &c, &d);
	fclose(in);
	char *message = NULL;
	for (size_t i = 0; i < d.count && !message; i++)
		if (d.items[i].severity == DIAG_ERROR)
			message = strdup(d.items[i].message);
	if (r == 0) {
		assert_null(message);
		snprintf(loaded, len, "%s", c->global.metrics_textfile);
		config_free(c);
	}
	diag_list_fini(&d);
	return message;
}

static void test_key_wants_an_absolute_prom_file(void **state)
{
	char loaded[256];

	(void)state;
	assert_null(load_textfile_key("/var/lib/node_exporter/textfile_collector/mpamd.prom", loaded, sizeof(loaded)));
	assert_string_equal(loaded, "/var/lib/node_exporter/textfile_collector/mpamd.prom");

	char *m = load_textfile_key("/var/lib/node_exporter/mpamd.txt", loaded, sizeof(loaded));
	assert_non_null(m);
	assert_non_null(strstr(m, "metrics_textfile = /var/lib/node_exporter/mpamd.txt"));
	assert_non_null(strstr(m, "must end in .prom"));
	free(m);
	m = load_textfile_key("/var/lib/node_exporter/.prom", loaded, sizeof(loaded));
	assert_non_null(m);
	assert_non_null(strstr(m, "something before .prom"));
	free(m);
	m = load_textfile_key("mpamd.prom", loaded, sizeof(loaded));
	assert_non_null(m);
	assert_non_null(strstr(m, "absolute path"));
	free(m);
}

/* ---- the writer ---- */

struct dir {
	char path[64], file[96], tmp[128];
};

static void make_dir(struct dir *d)
{
	make_test_dir(d->path, sizeof(d->path), "textfile");
	snprintf(d->file, sizeof(d->file), "%s/mpamd.prom", d->path);
	snprintf(d->tmp, sizeof(d->tmp), "%s.tmp", d->file);
}

static void remove_dir(struct dir *d)
{
	unlink(d->file);
	unlink(d->tmp);
	assert_int_equal(rmdir(d->path), 0); /* nothing else was left behind */
}

static void assert_file_is(const char *path, const char *text)
{
	char *got = read_text_file(path);

	assert_non_null(got);
	assert_string_equal(got, text);
	free(got);
}

static void test_writes_whole_files_and_removes_on_stop(void **state)
{
	struct textfile tf = { .path = NULL };
	struct err err = { "" };
	struct dir d;
	struct stat st;

	(void)state;
	make_dir(&d);
	umask(077); /* node_exporter reads it as another user, whatever mpamd's umask */
	assert_int_equal(textfile_set_path(&tf, d.file, &err), 0);
	assert_int_equal(textfile_write(&tf, "a 1\n", 4, &err), 0);
	assert_file_is(d.file, "a 1\n");
	assert_int_equal(stat(d.file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(textfile_write(&tf, "b 2\nc 3\n", 8, &err), 0);
	assert_file_is(d.file, "b 2\nc 3\n");
	assert_int_equal(access(d.tmp, F_OK), -1); /* renamed away, not left */
	umask(022);

	/* A new path: the old file would only go stale. */
	char other[128];
	snprintf(other, sizeof(other), "%s/other.prom", d.path);
	assert_int_equal(textfile_set_path(&tf, other, &err), 0);
	assert_int_equal(access(d.file, F_OK), -1);
	assert_int_equal(textfile_write(&tf, "d 4\n", 4, &err), 0);
	assert_file_is(other, "d 4\n");
	textfile_remove(&tf);
	assert_int_equal(access(other, F_OK), -1);
	assert_null(tf.path);
	remove_dir(&d);
}

static void test_a_failure_is_said_once_and_its_end_too(void **state)
{
	struct textfile tf = { .path = NULL };
	struct err err = { "" };
	struct dir d;
	char missing[128], file[160];

	(void)state;
	make_dir(&d);
	snprintf(missing, sizeof(missing), "%s/not-yet", d.path);
	snprintf(file, sizeof(file), "%s/mpamd.prom", missing);
	unsigned long errors = log_count(LOG_LEVEL_ERROR), infos = log_count(LOG_LEVEL_INFO);
	/* Said when the path is set (at start-up), and not again by the writes that fail after it. */
	assert_int_equal(textfile_set_path(&tf, file, &err), 0);
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors + 1);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(textfile_write(&tf, "a 1\n", 4, &err), -ENOENT);
		assert_non_null(strstr(err.text, "mpamd.prom.tmp"));
	}
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors + 1);
	assert_int_equal(mkdir(missing, 0755), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(textfile_write(&tf, "a 1\n", 4, &err), 0);
	assert_int_equal(log_count(LOG_LEVEL_INFO), infos + 1);
	assert_file_is(file, "a 1\n");
	/* Failing again after it worked is a new failure, said once more. */
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(missing), 0);
	assert_true(textfile_write(&tf, "a 1\n", 4, &err) < 0);
	assert_true(textfile_write(&tf, "a 1\n", 4, &err) < 0);
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors + 2);
	textfile_remove(&tf);
	assert_int_equal(rmdir(d.path), 0);
}

/* Whatever is under the temporary name (a file left by a crash, a hard link or a symbolic link to
 * another file) is replaced, never written through: the file it leads to is untouched, and the
 * textfile is written (before, a hard link was truncated through and a symbolic link stopped every
 * write). */
static void test_temporary_name_never_written_through(void **state)
{
	struct textfile tf = { .path = NULL };
	struct err err = { "" };
	struct dir d;
	char victim[128];

	(void)state;
	make_dir(&d);
	snprintf(victim, sizeof(victim), "%s/victim", d.path);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(textfile_set_path(&tf, d.file, &err), 0);

	assert_int_equal(link(victim, d.tmp), 0);
	assert_int_equal(textfile_write(&tf, "a 1\n", 4, &err), 0);
	assert_file_is(victim, "precious\n");
	assert_file_is(d.file, "a 1\n");

	assert_int_equal(symlink(victim, d.tmp), 0);
	assert_int_equal(textfile_write(&tf, "b 2\n", 4, &err), 0);
	assert_file_is(victim, "precious\n");
	assert_file_is(d.file, "b 2\n");
	assert_int_equal(access(d.tmp, F_OK), -1);
	textfile_remove(&tf);
	unlink(victim);
	remove_dir(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_wants_an_absolute_prom_file),
		cmocka_unit_test(test_writes_whole_files_and_removes_on_stop),
		cmocka_unit_test(test_a_failure_is_said_once_and_its_end_too),
		cmocka_unit_test(test_temporary_name_never_written_through),
	};
	log_setup("test_textfile", LOG_LEVEL_ERROR, false);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
