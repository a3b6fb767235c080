/* resctrl-emu: a FUSE emulation of the Linux resctrl filesystem, for testing mpamd's resctrl
 * backend through real system calls. See --help. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/registry.h"
#include "core/config/config.h"
#include "emu_fs.h"
#include "emu_state.h"
#include "emu_text.h"

#define DEFAULT_PREFIX "mpamd-"
#define DEFAULT_CPUS   4

struct cli {
	const char *mountpoint;
	const char *profile;
	const char *config_path;
	const char *prefix; /* NULL: the config's group_prefix, else DEFAULT_PREFIX */
	bool debug;
	unsigned cpus;
	unsigned domains; /* 0: the profile's */
	int min_cbm_bits; /* -1: the profile's */
	const char *proc_root;
	int counters;	     /* -1: the profile's */
	const char *mon_res; /* NULL: the profile's */
	bool background;     /* detach once mounted */
	bool mba_mbps;	     /* as mounted with -o mba_MBps */
	uint64_t l3_bytes;   /* 0: the profile's */
};

enum {
	OPT_PREFIX = 256,
	OPT_DEBUG,
	OPT_CPUS,
	OPT_DOMAINS,
	OPT_MIN_CBM_BITS,
	OPT_PROC_ROOT,
	OPT_COUNTERS,
	OPT_MON_RESOURCE,
	OPT_BACKGROUND,
	OPT_MBA_MBPS,
	OPT_L3_BYTES,
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: resctrl-emu MOUNTPOINT --profile intel|amd|mpam|mpam73 [options]\n"
		     "Emulates the Linux resctrl filesystem at MOUNTPOINT (FUSE) until SIGINT/SIGTERM or unmount.\n"
		     "\n"
		     "  -p, --profile NAME     intel (2 L3 domains, 11-bit CBM, MB percent, MBM),\n"
		     "                         amd (2 domains, 16-bit CBM, MB in 1/8 GB/s, mbm_event counters),\n"
		     "                         mpam (Linux 7.1 MPAM: 1 domain, MB via MBW_MAX, llc_occupancy only),\n"
		     "                         mpam73 (Linux 7.3 MPAM: as mpam plus mbm_total_bytes through 8\n"
		     "                         assignable counters per domain, mbm_event mode fixed)\n"
		     "  -c, --config FILE      an mpamd config: [sim] capacity_mbps, seed, noise_pct, mb_curve\n"
		     "                         and each partition's sim_demand, sim_domains and sim_burst drive\n"
		     "                         the counters of group PREFIX+NAME, as in the simulator\n"
		     "      --prefix PREFIX    group name prefix (default: the config's group_prefix, else mpamd-)\n"
		     "      --debug            as mounted with -o debug: ctrl_hw_id and mon_hw_id in groups\n"
		     "      --cpus N           online CPUs (default 4)\n"
		     "      --domains N        L3 domains instead of the profile's (ids 0..N-1)\n"
		     "      --min-cbm-bits N   info/L3/min_cbm_bits instead of the profile's\n"
		     "      --l3-bytes N       the L3 cache size in bytes instead of the profile's (each group's\n"
		     "                         size file, max_threshold_occupancy and its limit), as a host's\n"
		     "                         cacheinfo says: 16777216 matches QEMU's CPU models\n"
		     "      --counters N       assignable MBM counters per domain instead of the profile's\n"
		     "                         (profiles with mbm_event counters only; 0..64)\n"
		     "      --proc-root DIR    where threads are looked up and listed (default /proc)\n"
		     "      --mon-resource RES the monitoring resource's name instead of L3: mon_data/mon_RES_NN,\n"
		     "                         info/RES_MON, mbm_RES_assignments (e.g. MB)\n"
		     "      --mba-mbps         as mounted with -o mba_MBps: MB values are MB/s, held exactly by\n"
		     "                         the kernel's software controller (profiles with linear MB and MBM)\n"
		     "      --background       return once MOUNTPOINT is mounted and serve it from a child\n"
		     "                         process (ends at umount)\n"
		     "  -h, --help             this text\n"
		     "\n"
		     "Control: write one command per write() to MOUNTPOINT/.emu_ctl; read it for the list:\n"
		     "  fail_write ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]] |\n"
		     "  fail_next_write ERRNO [PATH_SUFFIX] |\n"
		     "  fail_mkdir ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]] |\n"
		     "  fail_rmdir ERRNO [PATH_SUFFIX|* [COUNT|always]] | clear |\n"
		     "  counter GROUP DOMAIN EVENT ok|unavailable|error|unassigned|zero|reset |\n"
		     "  clock manual | clock real | advance MS | vanish\n");
}

/* One line, exit status 2. */
static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "resctrl-emu: %s%s%s (try --help)\n", what, arg ? ": " : "", arg ? arg : "");
	return 2;
}

static bool parse_count(const char *text, unsigned lo, unsigned hi, unsigned *ret)
{
	unsigned v;

	if (emu_kstrtouint(text, 10, &v) || v < lo || v > hi)
		return false;
	*ret = v;
	return true;
}

/* A cache size in bytes: at least one byte per bit of the widest CBM, at most 4 GiB (the kernel keeps
 * max_threshold_occupancy's limit in an unsigned int). */
static bool parse_l3_bytes(const char *text, uint64_t *ret)
{
	unsigned v;

	if (emu_kstrtouint(text, 10, &v) || v < 32)
		return false;
	*ret = v;
	return true;
}

/* A resource name as the kernel's are: a few letters and digits. */
static bool valid_res_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 8)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]))
			return false;
	return true;
}

static int parse_option(int opt, struct cli *c)
{
	unsigned v;

	switch (opt) {
	case 'p':
		c->profile = optarg;
		return 0;
	case 'c':
		c->config_path = optarg;
		return 0;
	case OPT_PREFIX:
		c->prefix = optarg;
		return 0;
	case OPT_DEBUG:
		c->debug = true;
		return 0;
	case OPT_BACKGROUND:
		c->background = true;
		return 0;
	case OPT_MBA_MBPS:
		c->mba_mbps = true;
		return 0;
	case OPT_CPUS:
		return parse_count(optarg, 1, EMU_MAX_CPUS, &c->cpus) ? 0 : usage_error("bad --cpus", optarg);
	case OPT_DOMAINS:
		return parse_count(optarg, 1, EMU_MAX_DOMAINS, &c->domains) ? 0 : usage_error("bad --domains", optarg);
	case OPT_PROC_ROOT:
		c->proc_root = optarg;
		return 0;
	case OPT_COUNTERS:
		if (!parse_count(optarg, 0, EMU_MAX_CNTRS, &v))
			return usage_error("bad --counters", optarg);
		c->counters = (int)v;
		return 0;
	case OPT_MON_RESOURCE:
		if (!valid_res_name(optarg))
			return usage_error("bad --mon-resource", optarg);
		c->mon_res = optarg;
		return 0;
	case OPT_L3_BYTES:
		return parse_l3_bytes(optarg, &c->l3_bytes) ? 0 : usage_error("bad --l3-bytes", optarg);
	case OPT_MIN_CBM_BITS:
		if (!parse_count(optarg, 0, 32, &v))
			return usage_error("bad --min-cbm-bits", optarg);
		c->min_cbm_bits = (int)v;
		return 0;
	default:
		return usage_error("unknown option", NULL);
	}
}

/* 0, -1 after --help, or 2 after a usage error (already reported). */
static int parse_cli(int argc, char **argv, struct cli *c)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "config", required_argument, NULL, 'c' },
		{ "prefix", required_argument, NULL, OPT_PREFIX },
		{ "debug", no_argument, NULL, OPT_DEBUG },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "domains", required_argument, NULL, OPT_DOMAINS },
		{ "min-cbm-bits", required_argument, NULL, OPT_MIN_CBM_BITS },
		{ "l3-bytes", required_argument, NULL, OPT_L3_BYTES },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "counters", required_argument, NULL, OPT_COUNTERS },
		{ "mon-resource", required_argument, NULL, OPT_MON_RESOURCE },
		{ "background", no_argument, NULL, OPT_BACKGROUND },
		{ "mba-mbps", no_argument, NULL, OPT_MBA_MBPS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*c = (struct cli){ .cpus = DEFAULT_CPUS, .min_cbm_bits = -1, .counters = -1 };
	opterr = 0; /* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "p:c:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return -1;
		}
		if (opt == '?')
			return usage_error("unknown option or missing argument", argv[optind - 1]);
		int r = parse_option(opt, c);
		if (r)
			return r;
	}
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "missing MOUNTPOINT" : "one MOUNTPOINT expected", NULL);
	c->mountpoint = argv[optind];
	if (!c->profile)
		return usage_error("missing --profile", NULL);
	return 0;
}

static int load_config(const char *path, struct config **ret)
{
	struct diag_list diags;

	diag_list_init(&diags, path);
	int r = config_load_path(path, engine_default_schema(), NULL, ret, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	return r;
}

/* The profile with the command line's adjustments; false if the name is unknown. */
static bool make_profile(const struct cli *c, struct emu_profile *p)
{
	if (!emu_profile_get(c->profile, p))
		return false;
	if (c->domains)
		p->domains = c->domains;
	if (c->min_cbm_bits >= 0)
		p->min_cbm_bits = (unsigned)c->min_cbm_bits;
	if (c->l3_bytes)
		p->l3_bytes = c->l3_bytes;
	if (c->counters >= 0)
		p->num_mbm_cntrs = (unsigned)c->counters;
	if (c->mon_res)
		p->mon_res = c->mon_res;
	if (c->mba_mbps) {
		p->mba_sc = true;
		p->mb_min = 0;
		p->mb_max = EMU_MBA_MAX_MBPS;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct cli cli;
	struct emu_profile prof;
	struct config *config = NULL;
	struct emu emu;

	int r = parse_cli(argc, argv, &cli);
	if (r)
		return r < 0 ? 0 : r;
	if (!make_profile(&cli, &prof))
		return usage_error("unknown profile", cli.profile);
	/* supports_mba_mbps(): an MBM event to follow and a linear MB to step. */
	if (cli.mba_mbps &&
	    (!prof.delay_linear || prof.mb_kind != EMU_MB_PERCENT ||
	     !(emu_profile_has_event(&prof, EMU_EVT_TOTAL) || emu_profile_has_event(&prof, EMU_EVT_LOCAL))))
		return usage_error("--mba-mbps needs a profile with linear percent MB and MBM counters", NULL);
	if (cli.counters >= 0 && !prof.cntr_assignable)
		return usage_error("--counters needs a profile with mbm_event counters", NULL);
	if (cli.min_cbm_bits > (int)prof.cbm_len)
		return usage_error("--min-cbm-bits exceeds the CBM length", NULL);
	if (cli.config_path && load_config(cli.config_path, &config) < 0)
		return 1;
	struct emu_options opt = {
		.prefix = cli.prefix ? cli.prefix
			  : config   ? config->global.group_prefix
				     : DEFAULT_PREFIX,
		.debug = cli.debug,
		.ncpus = cli.cpus,
		.proc_root = cli.proc_root,
	};
	if (emu_init(&emu, &prof, &opt, config) < 0) {
		fprintf(stderr, "resctrl-emu: out of memory\n");
		config_free(config);
		return 1;
	}
	r = emu_fs_run(&emu, cli.mountpoint, cli.background);
	emu_fini(&emu);
	config_free(config);
	return r;
}
