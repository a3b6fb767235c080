/* Config loader: every fixture in tests/fixtures/config/{valid,invalid} and etc/, plus targeted cases.
 *
 * An invalid fixture states what it must produce in comment lines of the form
 *   ; expect LINE: word | other words
 * meaning: an error at LINE whose message contains each '|'-separated phrase (case-insensitive).
 * The file must produce exactly those errors: no missing and no extra ones. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/engine/registry.h"
#include "core/config/config.h"
#include "core/config/config_json.h"
#include "core/config/config_write.h"
#include "backends/sim/sim_config.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"

#define FIXTURES MPAMD_SOURCE_DIR "/tests/fixtures/config"

struct expectation {
	unsigned line;
	char words[256];
};

static size_t read_expectations(const char *text, struct expectation *out, size_t max)
{
	size_t n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned line;
		int used = 0;
		if (sscanf(p, "; expect %u: %n", &line, &used) == 1 && used > 0 && n < max) {
			size_t len = strcspn(p + used, "\n");
			out[n].line = line;
			snprintf(out[n].words, sizeof(out[n].words), "%.*s", (int)len, p + used);
			n++;
		}
	}
	return n;
}

/* True when `message` contains every '|'-separated phrase of `words`. */
static bool message_matches(const char *message, const char *words)
{
	char copy[256];

	snprintf(copy, sizeof(copy), "%s", words);
	for (char *save = NULL, *w = strtok_r(copy, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
		while (*w == ' ')
			w++;
		size_t len = strlen(w);
		while (len && w[len - 1] == ' ')
			w[--len] = '\0';
		if (len && !contains_nocase(message, w))
			return false;
	}
	return true;
}

/* A configuration loaded by a test, and what the loader said about it. */
struct loaded {
	struct config *c;
	struct diag_list d;
};

/* Loads `len` bytes of configuration text; returns the loader's result and keeps the diagnostics. */
static int load_bytes(struct loaded *l, const char *text, size_t len, const struct config_overrides *o)
{
	FILE *in = fmemopen((void *)text, len, "r");

	assert_non_null(in);
	l->c = NULL;
	diag_list_init(&l->d, "test.ini");
	int r = config_load(in, engine_default_schema(), o, &l->c, &l->d);
	fclose(in);
	return r;
}

static int load(struct loaded *l, const char *text, const struct config_overrides *o)
{
	return load_bytes(l, text, strlen(text), o);
}

/* Loads the file at `path` (with what it includes). */
static int load_path(struct loaded *l, const char *path)
{
	l->c = NULL;
	diag_list_init(&l->d, path);
	return config_load_path(path, engine_default_schema(), NULL, &l->c, &l->d);
}

static void unload(struct loaded *l)
{
	config_free(l->c);
	diag_list_fini(&l->d);
}

/* The load found one error, at `line`, saying `words`. */
static void expect_only_error(const struct loaded *l, unsigned line, const char *words)
{
	assert_int_equal(diag_error_count(&l->d), 1);
	assert_int_equal(l->d.items[0].line, line);
	assert_non_null(strstr(l->d.items[0].message, words));
}

static void test_invalid_fixture(void **state)
{
	const char *path = *state;
	char *text = read_text_file(path);
	struct expectation expect[16];
	struct diag_list diags;
	struct config *config = NULL;

	assert_non_null(text);
	size_t expected = read_expectations(text, expect, 16);
	free(text);
	if (expected == 0)
		fail_msg("%s has no '; expect LINE: words' lines", path);

	diag_list_init(&diags, path);
	int r = config_load_path(path, engine_default_schema(), NULL, &config, &diags);
	diag_print(&diags, stderr);
	assert_int_equal(r, -EINVAL);
	assert_null(config);
	for (size_t i = 0; i < expected; i++) {
		bool found = false;
		for (size_t j = 0; j < diags.count && !found; j++)
			found = diags.items[j].severity == DIAG_ERROR && diags.items[j].line == expect[i].line &&
				message_matches(diags.items[j].message, expect[i].words);
		if (!found)
			fail_msg("%s: no error at line %u matching '%s'", path, expect[i].line, expect[i].words);
	}
	assert_int_equal(diag_error_count(&diags), expected);
	diag_list_fini(&diags);
}

static json_t *load_as_json(FILE *in, const char *name)
{
	struct loaded l = { NULL };

	diag_list_init(&l.d, name);
	int r = config_load(in, engine_default_schema(), NULL, &l.c, &l.d);
	diag_print(&l.d, stderr);
	json_t *json = r == 0 ? config_to_json(l.c) : NULL;
	unload(&l);
	return json;
}

/* Line numbers differ between the original and the rewritten file; the meaning must not. */
static void drop_lines(json_t *json)
{
	json_t *partitions = json_object_get(json, "partitions");
	json_t *templates = json_object_get(json, "vm_templates");
	json_t *mscs = json_object_get(json, "msc");
	size_t i;
	json_t *item;

	json_array_foreach(partitions, i, item)
		json_object_del(item, "line");
	json_array_foreach(templates, i, item)
		json_object_del(item, "line");
	json_array_foreach(mscs, i, item)
		json_object_del(item, "line");
}

static void test_valid_fixture_round_trips(void **state)
{
	const char *path = *state;
	FILE *in = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;

	assert_non_null(in);
	json_t *first = load_as_json(in, path);
	fclose(in);
	if (!first)
		fail_msg("%s: expected a valid configuration", path);

	struct diag_list diags;
	struct config *config = NULL;
	diag_list_init(&diags, path);
	in = fopen(path, "re");
	assert_int_equal(config_load(in, engine_default_schema(), NULL, &config, &diags), 0);
	fclose(in);
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(config_write_ini(config, out), 0);
	fclose(out);
	/* A deep copy means the same, lines and all. */
	struct config *copy = NULL;
	struct err err = { "" };
	assert_int_equal(config_clone(config, 0, &copy, &err), 0);
	json_t *original = config_to_json(config), *copied = config_to_json(copy);
	if (!json_equal(original, copied))
		fail_msg("%s: config_clone changed the model", path);
	json_decref(original);
	json_decref(copied);
	config_free(copy);
	config_free(config);
	diag_list_fini(&diags);

	FILE *again = fmemopen(text, len, "r");
	json_t *second = load_as_json(again, "rewritten");
	fclose(again);
	if (!second)
		fail_msg("%s: the rewritten file does not load:\n%s", path, text);
	drop_lines(first);
	drop_lines(second);
	if (!json_equal(first, second)) {
		char *a = json_dumps(first, JSON_SORT_KEYS), *b = json_dumps(second, JSON_SORT_KEYS);
		fail_msg("%s: round trip changed the model\n%s\n%s", path, a, b);
	}
	json_decref(first);
	json_decref(second);
	free(text);
}

static void test_defaults_resolved(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l, "[partition \"a\"]\n", NULL), 0);
	assert_string_equal(l.c->global.backend, "resctrl");
	assert_string_equal(l.c->global.monitor, "auto");
	assert_int_equal(l.c->global.interval_ms, 100);
	assert_string_equal(l.c->global.resctrl_root, DEFAULT_RESCTRL_ROOT);
	assert_string_equal(l.c->global.socket, DEFAULT_SOCKET_PATH);
	assert_null(l.c->global.record);
	assert_int_equal(l.c->partition_count, 1);
	assert_int_equal(l.c->partitions[0].goals.mb_max, 100);
	assert_int_equal(l.c->partitions[0].goals.mb_min, 0);
	assert_false(l.c->partitions[0].has_partid); /* resctrl allocates CLOSIDs itself */
	unload(&l);
}

/* Each key set names its line (the model keeps only the keys set); a key not set, or not a key, none. */
static void test_key_lines(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l,
			      "[global]\n"
			      "interval_ms = 200\n"
			      "[partition \"a\"]\n"
			      "\n"
			      "weight = 3\n"
			      "mb_max = 50\n"
			      "[partition \"b\"]\n"
			      "cgroup = b\n",
			      NULL),
			 0);
	assert_int_equal(config_global_key_line(l.c, "interval_ms"), 2);
	assert_int_equal(config_global_key_line(l.c, "socket"), 0);
	assert_int_equal(config_partition_key_line(l.c, &l.c->partitions[0], "mb_max"), 6);
	assert_int_equal(config_partition_key_line(l.c, &l.c->partitions[0], "weight"), 5);
	assert_int_equal(config_partition_key_line(l.c, &l.c->partitions[0], "cgroup"), 0);
	assert_int_equal(config_partition_key_line(l.c, &l.c->partitions[0], "no_such_key"), 0);
	assert_int_equal(config_partition_key_line(l.c, &l.c->partitions[1], "cgroup"), 8);
	assert_int_equal(config_partition_key_line(l.c, &l.c->partitions[1], "mb_max"), 0);
	unload(&l);
}

static void test_sim_partids_fill_gaps(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l,
			      "[global]\nbackend = sim\n"
			      "[partition \"a\"]\n[partition \"b\"]\npartid = 1\n[partition \"c\"]\n",
			      NULL),
			 0);
	assert_int_equal(l.c->partitions[0].partid, 2);
	assert_true(l.c->partitions[0].partid_auto);
	assert_int_equal(l.c->partitions[1].partid, 1);
	assert_false(l.c->partitions[1].partid_auto);
	assert_int_equal(l.c->partitions[2].partid, 3);
	unload(&l);
}

/* A pid, a CPU or a PARTID shared by three partitions: the second and the third are each told about
 * the first, on their own line; twins of a section are found however many sections come between. */
static void test_shared_across_many_partitions(void **state)
{
	char text[8192];
	struct loaded l;
	int used = snprintf(text, sizeof(text), "[global]\nbackend = sim\n");

	(void)state;
	for (int i = 0; i < 3; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used,
				 "[partition \"s%d\"]\npids = %d 7\ncpus = %d,3\npartid = 5\n", i, 100 + i, 10 + i);
	for (int i = 0; i < 50; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used, "[partition \"f%d\"]\n", i);
	used += snprintf(text + used, sizeof(text) - (size_t)used, "[partition \"s1\"]\n");
	assert_int_equal(load(&l, text, NULL), -EINVAL);
	unsigned pid7 = 0, cpu3 = 0, partid5 = 0, twin = 0;
	for (size_t i = 0; i < l.d.count; i++) {
		const char *m = l.d.items[i].message;
		pid7 += strstr(m, "pid 7 is already in partition \"s0\" (line 4)") != NULL;
		cpu3 += strstr(m, "cpu 3 is already in partition \"s0\" (line 5)") != NULL;
		partid5 += strstr(m, "partid 5 is already used by partition \"s0\" (line 6)") != NULL;
		twin += strstr(m, "s1") && strstr(m, "line 7") && l.d.items[i].line == (unsigned)(2 + 3 * 4 + 50 + 1);
	}
	if (pid7 != 2 || cpu3 != 2 || partid5 != 2 || twin != 1) {
		diag_print(&l.d, stderr);
		fail_msg("pid7 %u cpu3 %u partid5 %u twin %u", pid7, cpu3, partid5, twin);
	}
	unload(&l);
}

/* A 4 KiB window is fine on a 4 KiB-page kernel and refused on a 64 KiB one (arm64 hosts often run
 * with 64 KiB pages): /dev/mem would map the neighbours of the MSC too. */
static void test_msc_windows_hold_whole_pages(void **state)
{
	static const char *const text = "[global]\nbackend = mmio\n[msc \"mc0\"]\nbase = 0x10001000\nsize = 0x1000\n"
					"[partition \"a\"]\npartid = 1\n";
	struct loaded l;

	(void)state;
	config_page_size_set(4096);
	assert_int_equal(load(&l, text, NULL), 0);
	unload(&l);
	config_page_size_set(65536);
	assert_int_equal(load(&l, text, NULL), -EINVAL);
	config_page_size_set(0);
	expect_only_error(&l, 4, "not made of whole pages of this kernel (0x10000 bytes)");
	unload(&l);
}

/* [global] include: drop-in files in sorted order after the main file, [partition] sections only,
 * their errors naming them and their own lines, a partition named in two files refused. */
static void test_include_drop_in_files(void **state)
{
	char dir[] = "/tmp/mpamd-include-XXXXXX", main_path[64], a[64], b[64], text[256], cmd[96];
	struct loaded l;
	unsigned line;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(main_path, sizeof(main_path), "%s/main.ini", dir);
	snprintf(a, sizeof(a), "%s/10-a.ini", dir);
	snprintf(b, sizeof(b), "%s/20-b.ini", dir);
	snprintf(text, sizeof(text), "[global]\nbackend = sim\ninclude = %s/*.ini.d\n[partition \"web\"]\n", dir);
	write_file(main_path, "%s", text);

	/* No file matches the wildcards yet: fine. */
	assert_int_equal(load_path(&l, main_path), 0);
	assert_int_equal(l.c->partition_count, 1);
	unload(&l);

	snprintf(text, sizeof(text), "[global]\nbackend = sim\ninclude = %s/*-?.ini\n[partition \"web\"]\n", dir);
	write_file(main_path, "%s", text);
	write_file(b, "[partition \"vm-b\"]\nmb_max = 40\n");
	write_file(a, "; first in sorted order\n[partition \"vm-a\"]\nmb_max = 60\n");
	assert_int_equal(load_path(&l, main_path), 0);
	assert_int_equal(l.c->partition_count, 3);
	assert_string_equal(l.c->partitions[1].name, "vm-a");
	assert_string_equal(l.c->partitions[2].name, "vm-b");
	assert_int_equal(l.c->partitions[2].goals.mb_max, 40);
	unload(&l);

	/* Errors name the included file and its own line; twins are found across files. */
	write_file(a, "[partition \"vm-a\"]\nmb_max = 150\n[partition \"web\"]\n[global]\n");
	write_file(b, "[partition \"vm-a\"]\n");
	assert_int_equal(load_path(&l, main_path), -EINVAL);
	unsigned range = 0, twin_main = 0, twin_included = 0, global = 0;
	for (size_t i = 0; i < l.d.count; i++) {
		const char *file = diag_file_of(&l.d, l.d.items[i].line, &line);
		const char *m = l.d.items[i].message;
		range += !strcmp(file, a) && line == 2 && strstr(m, "mb_max = 150") != NULL;
		twin_main += !strcmp(file, a) && line == 3 && strstr(m, "(first defined at line 4)") != NULL;
		twin_included += !strcmp(file, b) && line == 1 && strstr(m, "10-a.ini:1)") != NULL;
		global += !strcmp(file, a) && line == 4 &&
			  strstr(m, "[partition \"NAME\"] and [vm-template \"NAME\"] sections only") != NULL;
	}
	if (range != 1 || twin_main != 1 || twin_included != 1 || global != 1) {
		diag_print(&l.d, stderr);
		fail_msg("range %u twin_main %u twin_included %u global %u", range, twin_main, twin_included, global);
	}
	unload(&l);

	/* A pattern without wildcards must name a file. */
	snprintf(text, sizeof(text), "[global]\nbackend = sim\ninclude = %s/none.ini\n[partition \"web\"]\n", dir);
	write_file(main_path, "%s", text);
	assert_int_equal(load_path(&l, main_path), -EINVAL);
	assert_int_equal(l.d.items[0].line, 3);
	assert_non_null(strstr(l.d.items[0].message, "none.ini: no such file"));
	unload(&l);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A second [global] is refused and dropped whole, its strings too: fuzz_config found the include
 * string of such a section leaked (LeakSanitizer fails this test in the sanitizer build). */
static void test_discarded_global_frees_its_strings(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l,
			      "[global]\nbackend = sim\n[global]\ninclude = /x/*.ini\nrecord = /x.csv\n"
			      "metrics_textfile = /x.prom\nsocket = /x.sock\nresctrl_root = /x\n",
			      NULL),
			 -EINVAL);
	bool refused = false;
	for (size_t i = 0; i < l.d.count; i++)
		refused |= l.d.items[i].line == 3 && strstr(l.d.items[i].message, "duplicate section [global]") != NULL;
	assert_true(refused);
	unload(&l);
}

static void test_sim_partids_run_out(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l,
			      "[global]\nbackend = sim\n[sim]\npartid_max = 1\n"
			      "[partition \"a\"]\n[partition \"b\"]\n",
			      NULL),
			 -EINVAL);
	expect_only_error(&l, 6, "no free PARTID");
	unload(&l);
}

static void test_backend_override_is_checked(void **state)
{
	struct loaded l;
	struct config_overrides o = { .backend = "mmio" };

	(void)state;
	assert_int_equal(load(&l, "[partition \"a\"]\npartid = 1\n", &o), -EINVAL);
	expect_only_error(&l, 0, "--backend mmio");
	unload(&l);

	o.backend = "sim";
	assert_int_equal(load(&l, "[global]\nbackend = mmio\n[partition \"a\"]\n", &o), 0);
	assert_string_equal(l.c->global.backend, "sim");
	unload(&l);
}

static void test_cgroup_normalized(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l, "[partition \"a\"]\ncgroup = machine.slice//./vm\\x2d1.scope/\n", NULL), 0);
	assert_string_equal(l.c->partitions[0].cgroup, "machine.slice/vm\\x2d1.scope");
	unload(&l);
}

static void test_demand_profile(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l,
			      "[partition \"a\"]\nsim_demand = 2000@10, 9000@50 0@120\n"
			      "[partition \"b\"]\nsim_demand = 3000\n",
			      NULL),
			 0);
	const struct demand_profile *p = sim_partition_demand(l.c, &l.c->partitions[0]);
	assert_int_equal(p->count, 3);
	assert_int_equal(demand_profile_at(p, 0), 0);
	assert_int_equal(demand_profile_at(p, 10), 2000);
	assert_int_equal(demand_profile_at(p, 49), 2000);
	assert_int_equal(demand_profile_at(p, 50), 9000);
	assert_int_equal(demand_profile_at(p, 1000), 0);
	assert_int_equal(demand_profile_at(sim_partition_demand(l.c, &l.c->partitions[1]), 12345), 3000);
	unload(&l);
}

static void test_warnings_do_not_invalidate(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l, "[global]\nbackend = sim\n", NULL), 0);
	assert_int_equal(diag_error_count(&l.d), 0);
	assert_int_equal(l.d.count, 1);
	assert_int_equal(l.d.items[0].severity, DIAG_WARNING);
	unload(&l);
}

/* monitor = mmio beside resctrl would be refused at start without the opt-in: check-config says so on
 * the monitor line, and is quiet once the risk is accepted. */
static void test_hybrid_without_opt_in_warns(void **state)
{
	const char *hybrid = "[global]\nbackend = resctrl\nmonitor = mmio\n%s"
			     "[msc \"l3\"]\nbase = 0x10000\nsize = 0x1000\n[partition \"a\"]\n";
	char text[256];
	struct loaded l;

	(void)state;
	snprintf(text, sizeof(text), hybrid, "");
	assert_int_equal(load(&l, text, NULL), 0);
	assert_int_equal(l.d.count, 1);
	assert_int_equal(l.d.items[0].severity, DIAG_WARNING);
	assert_int_equal(l.d.items[0].line, 3);
	assert_non_null(strstr(l.d.items[0].message, "mmio_beside_kernel = yes"));
	unload(&l);
	snprintf(text, sizeof(text), hybrid, "mmio_beside_kernel = yes\n");
	assert_int_equal(load(&l, text, NULL), 0);
	assert_int_equal(l.d.count, 0);
	assert_true(l.c->global.mmio_beside_kernel);
	unload(&l);
}

static void test_crlf_and_bom_accepted(void **state)
{
	struct loaded l;

	(void)state;
	assert_int_equal(load(&l, "\xEF\xBB\xBF[global]\r\ninterval_ms = 250\r\n[partition \"a\"]\r\n", NULL), 0);
	assert_int_equal(l.c->global.interval_ms, 250);
	unload(&l);
}

static void test_indented_key_is_not_a_continuation(void **state)
{
	struct loaded l;

	(void)state;
	/* inih would join an indented line to the previous value; the loader must not. */
	assert_int_equal(load(&l, "[partition \"a\"]\ncgroup = x\n    mb_max = 40\n", NULL), 0);
	assert_int_equal(l.c->partitions[0].goals.mb_max, 40);
	assert_string_equal(l.c->partitions[0].cgroup, "x");
	unload(&l);
}

static void test_embedded_nul_rejected(void **state)
{
	static const char text[] = "[partition \"a\"]\nmb_max = 1\0000\n";
	struct loaded l;

	(void)state;
	assert_int_equal(load_bytes(&l, text, sizeof(text) - 1, NULL), -EINVAL);
	expect_only_error(&l, 2, "NUL");
	unload(&l);
}

static void test_too_many_mscs(void **state)
{
	char text[8192];
	int used = snprintf(text, sizeof(text), "[global]\nbackend = mmio\n[partition \"a\"]\npartid = 1\n");
	struct loaded l;

	(void)state;
	for (int i = 0; i < 65; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used,
				 "[msc \"m%d\"]\nbase = 0x%x000\nsize = 0x1000\n", i, i + 1);
	assert_int_equal(load(&l, text, NULL), -EINVAL);
	expect_only_error(&l, 5 + 64 * 3, "too many [msc] sections: at most 64");
	unload(&l);
}

/* The simulator's data of partition p in config c, only where p has its own (NULL: it reads the
 * extension's defaults). */
static const void *own_sim_data(const struct config *c, const struct partition_config *p)
{
	for (size_t e = 0; e < c->ext_count; e++)
		if (c->exts[e].def == &sim_config_ext)
			return p->ext[e];
	fail_msg("the schema has no simulator extension");
	return NULL;
}

/* A partition holds an extension's data only when it sets one of the extension's keys (a host that
 * does not simulate keeps nothing for the simulator in each partition); the others read the
 * extension's defaults, and so do their copies. */
static void test_extension_data_only_where_set(void **state)
{
	struct loaded l;
	struct config *copy = NULL;
	struct err err = { "" };

	(void)state;
	assert_int_equal(load(&l,
			      "[global]\nbackend = sim\n[partition \"a\"]\nsim_demand = 500\n"
			      "[partition \"b\"]\nmb_max = 50\n",
			      NULL),
			 0);
	const struct partition_config *a = config_find_partition(l.c, "a"), *b = config_find_partition(l.c, "b");
	assert_non_null(own_sim_data(l.c, a));
	assert_null(own_sim_data(l.c, b));
	assert_int_equal(sim_partition_demand(l.c, a)->count, 1);
	assert_int_equal(sim_partition_demand(l.c, b)->count, 0);
	assert_true(sim_partition_of(l.c, b)->ipc == SIM_IPC_DEFAULT);
	json_t *json = partition_config_to_json(l.c, b);
	assert_true(json_real_value(json_object_get(json, "sim_ipc")) == SIM_IPC_DEFAULT);
	json_decref(json);

	assert_int_equal(config_clone(l.c, 0, &copy, &err), 0);
	const struct partition_config *ca = config_find_partition(copy, "a"), *cb = config_find_partition(copy, "b");
	assert_non_null(own_sim_data(copy, ca));
	assert_ptr_not_equal(own_sim_data(copy, ca), own_sim_data(l.c, a));
	assert_int_equal(sim_partition_demand(copy, ca)->count, 1);
	assert_true(sim_partition_demand(copy, ca)->points[0].mbps == sim_partition_demand(l.c, a)->points[0].mbps);
	assert_null(own_sim_data(copy, cb));
	config_free(copy);
	unload(&l);
}

static struct CMUnitTest *add_fixture_tests(struct CMUnitTest *tests, size_t *count, const char *dir,
					    void (*fn)(void **), char ***ret_files, size_t *ret_file_count)
{
	size_t n = 0;
	char **files = list_files(dir, ".ini", &n);

	tests = realloc(tests, (*count + n) * sizeof(*tests));
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(files[i], '/') + 1;
		tests[*count + i] = (struct CMUnitTest){ .name = base, .test_func = fn, .initial_state = files[i] };
	}
	*count += n;
	*ret_files = files;
	*ret_file_count = n;
	return tests;
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_defaults_resolved),
		cmocka_unit_test(test_key_lines),
		cmocka_unit_test(test_sim_partids_fill_gaps),
		cmocka_unit_test(test_sim_partids_run_out),
		cmocka_unit_test(test_include_drop_in_files),
		cmocka_unit_test(test_discarded_global_frees_its_strings),
		cmocka_unit_test(test_msc_windows_hold_whole_pages),
		cmocka_unit_test(test_shared_across_many_partitions),
		cmocka_unit_test(test_backend_override_is_checked),
		cmocka_unit_test(test_cgroup_normalized),
		cmocka_unit_test(test_demand_profile),
		cmocka_unit_test(test_warnings_do_not_invalidate),
		cmocka_unit_test(test_hybrid_without_opt_in_warns),
		cmocka_unit_test(test_crlf_and_bom_accepted),
		cmocka_unit_test(test_indented_key_is_not_a_continuation),
		cmocka_unit_test(test_embedded_nul_rejected),
		cmocka_unit_test(test_too_many_mscs),
		cmocka_unit_test(test_extension_data_only_where_set),
	};
	size_t count = sizeof(fixed) / sizeof(fixed[0]);
	struct CMUnitTest *tests = malloc(sizeof(fixed));
	char **invalid, **valid, **etc;
	size_t n_invalid, n_valid, n_etc;

	memcpy(tests, fixed, sizeof(fixed));
	tests = add_fixture_tests(tests, &count, FIXTURES "/invalid", test_invalid_fixture, &invalid, &n_invalid);
	tests = add_fixture_tests(tests, &count, FIXTURES "/valid", test_valid_fixture_round_trips, &valid, &n_valid);
	tests = add_fixture_tests(tests, &count, MPAMD_SOURCE_DIR "/etc", test_valid_fixture_round_trips, &etc, &n_etc);
	/* The issue asks for at least 30 distinct invalid files; do not let the set shrink unnoticed. */
	if (n_invalid < 30 || n_valid < 3 || n_etc < 2) {
		fprintf(stderr, "fixture sets too small: %zu invalid, %zu valid, %zu in etc/\n", n_invalid, n_valid,
			n_etc);
		return 1;
	}
	int failed = _cmocka_run_group_tests("config", tests, count, NULL, NULL);
	free(tests);
	free_file_list(invalid, n_invalid);
	free_file_list(valid, n_valid);
	free_file_list(etc, n_etc);
	return failed;
}
