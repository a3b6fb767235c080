/* mpamctl check-config FILE: validate a config offline and show what it resolves to. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/mpamctl.h"
#include "core/config.h"
#include "core/config_json.h"

static void check_config_usage(FILE *out)
{
	fprintf(out, "Usage: mpamctl check-config [--json] FILE\n"
		     "\n"
		     "Check an mpamd configuration file without running anything.\n"
		     "Valid: prints one line per section with every resolved value (defaults included)\n"
		     "and exits 0. Invalid: prints every problem as FILE:LINE: message on stderr and\n"
		     "exits 1. Warnings go to stderr and do not make a file invalid.\n"
		     "\n"
		     "Options:\n"
		     "  -j, --json     print {\"file\", \"valid\", \"errors\", \"warnings\", \"config\"} as JSON\n"
		     "                 on stdout (errors are still printed on stderr)\n"
		     "  -h, --help     show this help\n"
		     "\n"
		     "The file format is described in mpamd.ini(5).\n");
}

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

static void print_u32_or_none(const char *key, uint32_t v)
{
	if (v)
		printf(" %s=%u", key, v);
	else
		printf(" %s=none", key);
}

static void print_partition(const struct partition_config *p)
{
	printf("partition %s:", p->name);
	if (p->has_partid)
		printf(" partid=%u%s", p->partid, p->partid_auto ? "(auto)" : "");
	else
		printf(" partid=none");
	printf(" class=%s", partition_class_names[p->class]);
	print_u32_or_none("mb_min", p->mb_min);
	printf(" mb_max=%u", p->mb_max);
	print_u32_or_none("guarantee_mbps", p->guarantee_mbps);
	print_u32_or_none("target_mbps", p->target_mbps);
	printf(" weight=%u", p->weight);
	if (p->l3_cbm)
		printf(" l3_cbm=0x%llx", (unsigned long long)p->l3_cbm);
	else
		printf(" l3_cbm=none");
	printf(" cgroup=%s pids=", or_none(p->cgroup));
	for (size_t i = 0; i < p->pid_count; i++)
		printf("%s%d", i ? "," : "", (int)p->pids[i]);
	printf("%s cpus=", p->pid_count ? "" : "none");
	if (p->cpus) {
		char buf[CPU_LIMIT * 6];
		cpu_set_format(p->cpus, buf, sizeof(buf));
		printf("%s", buf);
	} else {
		printf("none");
	}
	printf(" sim_demand=");
	for (size_t i = 0; i < p->sim_demand.count; i++)
		printf("%s%u@%llu", i ? "," : "", p->sim_demand.points[i].mbps,
		       (unsigned long long)p->sim_demand.points[i].tick);
	printf("%s\n", p->sim_demand.count ? "" : "none");
}

static void print_summary(const struct config *c)
{
	const struct global_config *g = &c->global;
	const struct sim_config *s = &c->sim;

	printf("global: backend=%s monitor=%s interval_ms=%u resctrl_root=%s group_prefix=%s socket=%s record=%s",
	       backend_kind_names[g->backend], monitor_kind_names[g->monitor], g->interval_ms, g->resctrl_root,
	       g->group_prefix, g->socket, or_none(g->record));
	print_u32_or_none("capacity_mbps", g->capacity_mbps);
	printf(" escalate=%s\n", g->escalate ? "true" : "false");
	if (g->backend == BACKEND_SIM)
		printf("sim: mscs=%u capacity_mbps=%u monitors=%u counter_bits=%u scale=%u bwa_wd=%u nrdy_ticks=%u "
		       "partid_max=%u seed=%llu noise_pct=%u\n",
		       s->mscs, s->capacity_mbps, s->monitors, s->counter_bits, s->scale, s->bwa_wd, s->nrdy_ticks,
		       s->partid_max, (unsigned long long)s->seed, s->noise_pct);
	for (size_t i = 0; i < c->msc_count; i++)
		printf("msc %s: base=0x%llx size=0x%llx\n", c->mscs[i].name, (unsigned long long)c->mscs[i].base,
		       (unsigned long long)c->mscs[i].size);
	for (size_t i = 0; i < c->partition_count; i++)
		print_partition(&c->partitions[i]);
}

static json_t *diags_to_json(const struct diag_list *diags, enum diag_severity severity)
{
	json_t *list = json_array();

	for (size_t i = 0; i < diags->count; i++)
		if (diags->items[i].severity == severity)
			json_array_append_new(list, json_pack("{s:I,s:s}", "line", (json_int_t)diags->items[i].line,
							      "message", diags->items[i].message));
	return list;
}

static void print_json(const char *path, const struct config *c, const struct diag_list *diags)
{
	json_t *root = json_pack("{s:s,s:b,s:o,s:o,s:o}", "file", path, "valid", c != NULL, "errors",
				 diags_to_json(diags, DIAG_ERROR), "warnings", diags_to_json(diags, DIAG_WARNING),
				 "config", c ? config_to_json(c) : json_null());

	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	putchar('\n');
	json_decref(root);
}

int cmd_check_config(int argc, char **argv, const struct ctl_options *opts)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = opts->json;
	int c;

	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (c) {
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
	int r = config_load_path(path, NULL, &config, &diags);
	diag_print(&diags, stderr);
	if (json)
		print_json(path, config, &diags);
	else if (r == 0)
		print_summary(config);
	diag_list_fini(&diags);
	config_free(config);
	return r == 0 ? EXIT_OK : EXIT_FAILED;
}
