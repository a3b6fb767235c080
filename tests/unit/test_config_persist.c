/* persist_dir: the files mpamctl set --persist leaves, read after the main file. Their keys replace
 * the main file's for that partition, a later file's replace an earlier one's, only run-time keys are
 * taken, a partition the main file does not have is ignored with a warning (never an error that
 * keeps mpamd from starting), and check-config's list says which file each value came from. The
 * text a persist writes keeps what the file held and refuses what it did not write. */
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

#include "core/config/config.h"
#include "core/config/config_persist.h"
#include "core/engine/registry.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static char dir[64], persist[96], main_path[96];
static char findings[2048]; /* every finding of the last load(), a line each */

/* The main file: web (mb_max 80, mb_min 10) and batch, persist_dir set, `extra` in [global]. */
static void write_main(const char *extra)
{
	write_file(main_path,
		   "[global]\nbackend = sim\npersist_dir = %s\n%s\n[sim]\nmscs = 1\n"
		   "[partition \"web\"]\nclass = latency-critical\nmb_max = 80\nmb_min = 10\n"
		   "[partition \"batch\"]\nclass = best-effort\n",
		   persist, extra);
}

/* The main file with nothing in [global] beyond persist_dir, and persist_dir made empty. */
static int setup(void **state)
{
	(void)state;
	make_test_dir(dir, sizeof(dir), "config-persist");
	snprintf(persist, sizeof(persist), "%s/persist", dir);
	snprintf(main_path, sizeof(main_path), "%s/mpamd.ini", dir);
	write_main("");
	return mkdir(persist, 0755);
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(dir);
}

/* Loads the main file: its return, the config (NULL on errors) and every finding in `findings`. */
static int load(struct config **ret)
{
	struct diag_list diags;
	size_t len = sizeof(findings);

	diag_list_init(&diags, main_path);
	*ret = NULL;
	int r = config_load_path(main_path, engine_default_schema(), NULL, ret, &diags);
	findings[0] = '\0';
	for (size_t i = 0; i < diags.count; i++) {
		char *text = diag_text(&diags, &diags.items[i]);
		snprintf(findings + strlen(findings), len - strlen(findings), "%s\n", text ? text : "?");
		free(text);
	}
	diag_list_fini(&diags);
	return r;
}

/* persist/web.ini holds `text`, then load(). */
static int load_with_web(const char *text, struct config **ret)
{
	write_file_below(persist, "web.ini", text);
	return load(ret);
}

static const struct partition_config *web(const struct config *c)
{
	return config_find_partition(c, "web");
}

static void test_a_persisted_key_replaces_the_main_files(void **state)
{
	struct config *c;

	(void)state;
	assert_int_equal(load_with_web("; a comment\n[partition \"web\"]\nmb_max = 40\n", &c), 0);
	assert_true(web(c)->goals.mb_max == 40);
	assert_true(web(c)->goals.mb_min == 10); /* the others stay the main file's */
	assert_int_equal(web(c)->goals.class, CLASS_LATENCY_CRITICAL);
	assert_int_equal(c->persisted_count, 1);
	assert_string_equal(c->persisted[0].partition, "web");
	assert_string_equal(c->persisted[0].key, "mb_max");
	assert_int_equal(c->persisted[0].line, 3);
	assert_non_null(strstr(c->persisted[0].file, "/persist/web.ini"));
	config_free(c);
}

static void test_a_later_file_wins(void **state)
{
	struct config *c;

	(void)state;
	write_file_below(persist, "a.ini", "[partition \"web\"]\nmb_max = 40\ntarget_mbps = 3000\n");
	write_file_below(persist, "b.ini", "[partition \"web\"]\nmb_max = 30\n");
	assert_int_equal(load(&c), 0);
	assert_true(web(c)->goals.mb_max == 30);
	assert_int_equal(web(c)->goals.target_mbps, 3000);
	config_free(c);
}

static void test_only_run_time_keys_and_each_once(void **state)
{
	struct config *c;

	(void)state;
	assert_int_equal(load_with_web("[partition \"web\"]\ncgroup = x.slice\nmb_max = 40\nmb_max = 30\n", &c),
			 -EINVAL);
	assert_non_null(strstr(findings, "persist/web.ini:2: error: cgroup cannot be persisted"));
	assert_non_null(strstr(findings, "persist/web.ini:4: error: duplicate key 'mb_max' (first set at line 3)"));
}

static void test_the_rules_between_keys_name_the_persisted_line(void **state)
{
	struct config *c;

	(void)state;
	/* below the main file's mb_min 10 */
	assert_int_equal(load_with_web("[partition \"web\"]\nmb_max = 5\n", &c), -EINVAL);
	assert_non_null(strstr(findings, "persist/web.ini:"));
}

static void test_a_bad_value_and_a_foreign_section_are_errors(void **state)
{
	struct config *c;

	(void)state;
	assert_int_equal(load_with_web("[partition \"web\"]\nmb_max = 4x0\n[global]\ninterval_ms = 20\n", &c), -EINVAL);
	assert_non_null(strstr(findings, "persist/web.ini:2: error: mb_max = 4x0"));
	assert_non_null(strstr(findings, "persist/web.ini:3: error: [global] in a persist_dir file"));
}

/* A partition taken out of the main file, or one an included file defines: ignored, with a warning. */
static void test_a_partition_not_in_the_main_file_is_ignored(void **state)
{
	struct config *c;
	char inc[160];

	(void)state;
	snprintf(inc, sizeof(inc), "include = %s/vm.conf", dir);
	write_main(inc);
	char path[160];
	snprintf(path, sizeof(path), "%s/vm.conf", dir);
	write_file(path, "[partition \"vm\"]\nmb_max = 70\n");
	write_file_below(persist, "gone.ini", "[partition \"gone\"]\nmb_max = 40\nnot_a_key = 1\n");
	write_file_below(persist, "vm.ini", "[partition \"vm\"]\nmb_max = 40\n");
	assert_int_equal(load(&c), 0);
	assert_non_null(strstr(findings, "gone.ini:1: warning: partition \"gone\" is not one of the main file's"));
	assert_non_null(strstr(findings, "vm.ini:1: warning: partition \"vm\" is not one of the main file's"));
	assert_true(config_find_partition(c, "vm")->goals.mb_max == 70);
	assert_true(config_find_partition(c, "vm")->included);
	assert_false(web(c)->included);
	assert_int_equal(c->persisted_count, 0);
	config_free(c);
}

static void test_a_missing_directory_is_none_persisted_and_a_file_is_an_error(void **state)
{
	struct config *c;

	(void)state;
	remove_tree(persist);
	assert_int_equal(load(&c), 0);
	assert_string_equal(findings, "");
	config_free(c);
	write_file(persist, "not a directory\n");
	assert_int_equal(load(&c), -EINVAL);
	assert_non_null(strstr(findings, "persist_dir = "));
	assert_non_null(strstr(findings, "cannot be read (Not a directory)"));
	unlink(persist);
}

/* ---- the text a persist writes ---- */

static void test_the_text_keeps_the_old_keys_and_replaces_the_same(void **state)
{
	const char *old = "; mine\n[partition \"web\"]\nmb_max = 40 ; a note\n  target_mbps=3000\n";
	const char *settings[] = { "mb_max=30", "class=best-effort" };
	struct err err = { "" };
	char *text = NULL;

	(void)state;
	assert_int_equal(config_persist_text(old, "web", settings, 2, &text, &err), 0);
	assert_non_null(strstr(text, "[partition \"web\"]\nmb_max = 30\ntarget_mbps = 3000\nclass = best-effort\n"));
	free(text);
	assert_int_equal(config_persist_text(NULL, "web", settings, 1, &text, &err), 0);
	assert_non_null(strstr(text, "[partition \"web\"]\nmb_max = 30\n"));
	free(text);
}

static void test_the_text_refuses_what_mpamd_did_not_write(void **state)
{
	const char *settings[] = { "mb_max=30" };
	const char *comment[] = { "class=best-effort ;x" };
	struct err err = { "" };
	char *text = NULL;

	(void)state;
	assert_int_equal(config_persist_text("[partition \"other\"]\nmb_max = 1\n", "web", settings, 1, &text, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "line 1: [partition \"other\"]: only [partition \"web\"] belongs"));
	assert_int_equal(config_persist_text("[partition \"web\"]\nwhat\n", "web", settings, 1, &text, &err), -EINVAL);
	assert_non_null(strstr(err.text, "line 2: expected 'key = value'"));
	assert_int_equal(config_persist_text(NULL, "web", comment, 1, &text, &err), -EINVAL);
	assert_null(text);
}

/* Written, read back by the loader, replaced whole with the mode asked for, whatever the umask. */
static void test_written_atomically_and_read_back(void **state)
{
	const char *settings[] = { "mb_max=35" };
	struct err err = { "" };
	struct config *c;
	char *text = NULL, *old = NULL, path[160];
	struct stat st;

	(void)state;
	remove_tree(persist); /* made by the write */
	mode_t mask = umask(077);
	assert_int_equal(config_persist_text(NULL, "web", settings, 1, &text, &err), 0);
	assert_int_equal(config_persist_write(persist, "web", text, &err), 0);
	umask(mask);
	free(text);
	snprintf(path, sizeof(path), "%s/web.ini", persist);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	snprintf(path, sizeof(path), "%s/.web.ini.tmp", persist);
	assert_int_equal(access(path, F_OK), -1); /* no temporary file left */
	assert_int_equal(load(&c), 0);
	assert_true(web(c)->goals.mb_max == 35);
	config_free(c);
	assert_int_equal(config_persist_read(persist, "web", &old, &err), 0);
	assert_non_null(strstr(old, "mb_max = 35"));
	free(old);
	/* A symbolic link at the path is replaced, never written through. */
	char target[160];
	snprintf(target, sizeof(target), "%s/target", dir);
	write_file(target, "keep\n");
	snprintf(path, sizeof(path), "%s/batch.ini", persist);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(config_persist_write(persist, "batch", "[partition \"batch\"]\nweight = 5\n", &err), 0);
	char *kept = read_text_file(target);
	assert_string_equal(kept, "keep\n");
	free(kept);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(config_persist_write(persist, "batch", NULL, &err), 0); /* removed */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(config_persist_read(persist, "batch", &old, &err), 0);
	assert_null(old);
}

#define persist_test(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

TEST_MAIN({
	persist_test(test_a_persisted_key_replaces_the_main_files),
	persist_test(test_a_later_file_wins),
	persist_test(test_only_run_time_keys_and_each_once),
	persist_test(test_the_rules_between_keys_name_the_persisted_line),
	persist_test(test_a_bad_value_and_a_foreign_section_are_errors),
	persist_test(test_a_partition_not_in_the_main_file_is_ignored),
	persist_test(test_a_missing_directory_is_none_persisted_and_a_file_is_an_error),
	persist_test(test_the_text_keeps_the_old_keys_and_replaces_the_same),
	persist_test(test_the_text_refuses_what_mpamd_did_not_write),
	persist_test(test_written_atomically_and_read_back),
})
