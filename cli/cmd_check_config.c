/* mpamctl check-config FILE: validate a config offline and show what it resolves to; with --host,
 * also what it would do on this host (cli/check_host.c). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "backends/shared/hmat_capacity.h"
#include "cli/check_host.h"
#include "cli/check_outputs.h"
#include "cli/cli_error.h"
#include "cli/mpamctl.h"
#include "core/base/log.h"
#include "core/config/config.h"
#include "core/config/config_json.h"
#include "core/engine/registry.h"

static void check_config_usage(FILE *out)
{
	fprintf(out, "Usage: mpamctl check-config [--host] [--json] FILE\n"
		     "\n"
		     "Check an mpamd configuration file without running anything.\n"
		     "Valid: prints one line per section with every resolved value (defaults included)\n"
		     "and exits 0; a partition key whose value a persist_dir file replaced (mpamctl set\n"
		     "--persist) is named with that file and line. Invalid: prints every problem as\n"
		     "FILE:LINE: message on stderr and exits 1. Warnings go to stderr and do not make a\n"
		     "file invalid.\n"
		     "\n"
		     "With --host, a valid file is also tried against this host, writing nothing: the\n"
		     "control the file names (its backend) is opened and probed (on MMIO without\n"
		     "disturbing a running mpamd), no partition is opened, and for each partition it\n"
		     "prints whether the hardware takes its limits (and why not), how each limit is\n"
		     "held (mb_max 25%% -> 20%% (nearest setting of 10%% steps from 10%%)), the ceiling in\n"
		     "the hardware's own units and MB/s where they tell more (AMD: 50%% = 1024 units = 128000\n"
		     "MB/s a domain), and every write mpamd would make: mkdir of the\n"
		     "resctrl group (or adopt an existing one), tasks and cpus_list, the schemata lines;\n"
		     "on MPAM each MSC's MBW_MAX, MBW_MIN and CPBM register values. A host-wide line\n"
		     "refuses more partitions than CLOSIDs/PARTIDs. It exits 0 when the host can hold\n"
		     "everything, 1 when something is refused or the host cannot be probed, 2 on a usage\n"
		     "error. A record file or metrics_textfile that mpamd could not write on this host, or\n"
		     "that is outside the directories the shipped systemd unit lets it write, is a\n"
		     "warning naming the fix (ReadWritePaths=).\n"
		     "\n"
		     "mb_min summing over 100%% of a domain, and guarantee_mbps or target_mbps summing\n"
		     "over a domain's capacity (alone or together), are warnings naming the partitions,\n"
		     "the sum and the capacity: from the file alone (the simulator's MSCs, else one\n"
		     "domain of capacity_mbps), with --host over this host's domains (a sum whose\n"
		     "capacity is not known is said not checked). OVERCOMMIT in mpamd.ini(5) says what\n"
		     "mpamd does then.\n"
		     "\n"
		     "Options:\n"
		     "  -H, --host     plan the file on this host, writing nothing; prints that plan\n"
		     "                 instead of the summary\n"
		     "  -j, --json     print {\"file\", \"valid\", \"errors\", \"warnings\", \"config\",\n"
		     "                 \"persisted\"} as JSON on stdout (errors are still printed on\n"
		     "                 stderr), with --host also \"host\": the plan\n"
		     "  -r, --sysfs-root DIR  with --host: where ACPI HMAT's memory bandwidth is read\n"
		     "                 (default " HMAT_SYSFS_ROOT "), each resctrl domain's capacity where\n"
		     "                 capacity_mbps does not say it\n"
		     "  -h, --help     show this help\n"
		     "\n"
		     "The file format is described in mpamd.ini(5).\n");
}

/* " key=value" for one key of the table, "none" when the key holds no value. */
static void print_key(const struct config_key *key, const void *object)
{
	char value[4096];

	if (!key->type->format(object, key, value, sizeof(value)))
		snprintf(value, sizeof(value), "none");
	printf(" %s=%s", key->name, value);
}

static void print_section(const struct config_section_def *def, const void *object)
{
	for (size_t i = 0; i < def->key_count; i++)
		print_key(&def->keys[i], object);
}

static void print_partition_keys(const struct config *c, const struct partition_config *p, bool in_template)
{
	for (size_t i = 0; i < config_partition_key_count(c); i++) {
		const struct config_ext *owner;
		const struct config_key *key = config_partition_key(c, i, &owner);
		/* The writer leaves a PARTID the simulator picked out of files; the summary shows it. */
		if (!owner && p->partid_auto && strcmp(key->name, "partid") == 0)
			printf(" partid=%u(auto)", p->partid);
		else if (!in_template || !config_template_refuses(key->name))
			print_key(key, config_partition_key_object(c, p, owner));
	}
	putchar('\n');
}

/* Whether persisted value i is in force: no later file replaced the same key of the same partition. */
static bool persisted_in_force(const struct config *c, size_t i)
{
	const struct config_persisted *v = &c->persisted[i];

	for (size_t j = i + 1; j < c->persisted_count; j++)
		if (!strcmp(c->persisted[j].partition, v->partition) && c->persisted[j].key == v->key)
			return false;
	return true;
}

/* "  persisted: mb_max from DIR/web.ini:5, ..." where persist_dir's files replaced the main file's. */
static void print_persisted(const struct config *c, const struct partition_config *p)
{
	const char *sep = "  persisted:";

	for (size_t i = 0; i < c->persisted_count; i++) {
		const struct config_persisted *v = &c->persisted[i];
		if (strcmp(v->partition, p->name) || !persisted_in_force(c, i))
			continue;
		printf("%s %s from %s:%u", sep, v->key, v->file, v->line);
		sep = ",";
	}
	if (sep[0] == ',')
		putchar('\n');
}

static void print_partition(const struct config *c, const struct partition_config *p)
{
	printf("partition %s:", p->name);
	print_partition_keys(c, p, false);
	print_persisted(c, p);
}

/* The values persist_dir's files gave, in force: [{"partition", "key", "file", "line"}]. */
static json_t *persisted_json(const struct config *c)
{
	json_t *list = json_array();

	for (size_t i = 0; c && i < c->persisted_count; i++) {
		const struct config_persisted *v = &c->persisted[i];
		if (persisted_in_force(c, i))
			json_array_append_new(list, json_pack("{s:s,s:s,s:o,s:I}", "partition", v->partition, "key",
							      v->key, "file", config_json_text(v->file), "line",
							      (json_int_t)v->line));
	}
	return list;
}

/* The keys each VM's partition gets, without those a template cannot hold. */
static void print_template(const struct config *c, const struct vm_template *t)
{
	printf("vm-template %s:", t->name);
	print_section(&config_template_section, t);
	print_partition_keys(c, &t->partition, true);
}

/* An extension's section is shown when its backend is in use or the file sets one of its keys. */
static bool ext_section_shown(const struct config *c, const struct config_ext_data *ext)
{
	return strcmp(ext->def->name, c->global.backend) == 0 || ext->origin.line != 0;
}

static void print_summary(const struct config *c)
{
	printf("global:");
	print_section(&config_global_section, &c->global);
	putchar('\n');
	for (size_t e = 0; e < c->ext_count; e++) {
		const struct config_ext_data *ext = &c->exts[e];
		if (!ext->def->section || !ext_section_shown(c, ext))
			continue;
		printf("%s:", ext->def->section->kind);
		print_section(ext->def->section, ext->data);
		putchar('\n');
	}
	for (size_t i = 0; i < c->msc_count; i++) {
		printf("msc %s:", c->mscs[i].name);
		print_section(&config_msc_section, &c->mscs[i]);
		putchar('\n');
	}
	for (size_t i = 0; i < c->partition_count; i++)
		print_partition(c, &c->partitions[i]);
	for (size_t i = 0; i < c->template_count; i++)
		print_template(c, &c->templates[i]);
}

static json_t *diags_to_json(const struct diag_list *diags, enum diag_severity severity)
{
	json_t *list = json_array();

	for (size_t i = 0; i < diags->count; i++) {
		unsigned line;
		const char *file = diag_file_of(diags, diags->items[i].line, &line);
		if (diags->items[i].severity == severity)
			json_array_append_new(list, json_pack("{s:o,s:I,s:o}", "file", config_json_text(file), "line",
							      (json_int_t)line, "message",
							      config_json_text(diags->items[i].message)));
	}
	return list;
}

static json_t *check_json(const char *path, const struct config *c, const struct diag_list *diags)
{
	return json_pack("{s:o,s:b,s:o,s:o,s:o,s:o}", "file", config_json_text(path), "valid", c != NULL, "errors",
			 diags_to_json(diags, DIAG_ERROR), "warnings", diags_to_json(diags, DIAG_WARNING), "config",
			 c ? config_to_json(c) : json_null(), "persisted", persisted_json(c));
}

static void print_json(json_t *root)
{
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	putchar('\n');
}

/* --host: the plan (check_host's report), in place of the summary. A host that cannot be probed says
 * why on stderr. */
static int report_host(const struct config *config, json_t *host, int r, json_t *root, bool json)
{
	const char *error = json_string_value(json_object_get(host, "error"));

	if (error)
		cli_error(false, "check-config", EXIT_FAILED, "backend %s: %s", config->global.backend, error);
	if (json)
		json_object_set_new(root, "host", host);
	else if (!error)
		check_host_print(stdout, host);
	if (!json)
		json_decref(host);
	return r == 0 ? EXIT_OK : EXIT_FAILED;
}

int cmd_check_config(int argc, char **argv, const struct ctl_options *opts)
{
	static const struct option options[] = {
		{ "host", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "sysfs-root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = opts->json, host = false;
	const char *sysfs_root = HMAT_SYSFS_ROOT;
	int c;

	while ((c = getopt_long(argc, argv, "Hjhr:", options, NULL)) != -1) {
		switch (c) {
		case 'H':
			host = true;
			break;
		case 'r':
			sysfs_root = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			check_config_usage(stdout);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'mpamctl check-config --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "mpamctl check-config: expected exactly one FILE\n");
		check_config_usage(stderr);
		return EXIT_USAGE;
	}

	const char *path = argv[optind];
	struct diag_list diags;
	struct config *config = NULL;
	diag_list_init(&diags, path);
	int r = config_load_path(path, engine_default_schema(), NULL, &config, &diags);
	json_t *plan = NULL;
	int planned = 0;
	struct overcommit_domains domains;
	if (r == 0 && host) {
		check_outputs(config, &diags);
		/* The control's own warnings (an explicit root that is no resctrl mount...) stay quiet, as in
		 * discover; its refusals are in the plan. */
		log_setup("mpamctl", LOG_LEVEL_ERROR, false);
		planned = check_host(config, sysfs_root, &domains, &plan);
	} else if (r == 0) {
		overcommit_domains_of_config(config, &domains);
	}
	if (r == 0)
		check_overcommit(config, &domains, &diags);
	diag_print(&diags, stderr);
	int exit_code = r == 0 ? EXIT_OK : EXIT_FAILED;
	json_t *root = json ? check_json(path, config, &diags) : NULL;
	if (r == 0 && host) {
		exit_code = report_host(config, plan, planned, root, json);
	} else if (r == 0 && !json) {
		print_summary(config);
	}
	if (root)
		print_json(root);
	json_decref(root);
	diag_list_fini(&diags);
	config_free(config);
	return exit_code;
}
