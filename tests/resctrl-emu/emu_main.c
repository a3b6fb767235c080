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

#define DEFAULT_PREFIX		 "mpamd-"
#define DEFAULT_CPUS		 4
#define DEFAULT_LLC_HALF_LIFE_MS 1000

struct cli {
	const char *mountpoint;
	const char *profile;
	const char *config_path;
	const char *prefix; /* NULL: the config's group_prefix, else DEFAULT_PREFIX */
	bool debug;
	unsigned cpus;
	unsigned possible_cpus; /* 0: cpus */
	unsigned domains;	/* 0: the profile's */
	int min_cbm_bits;	/* -1: the profile's */
	const char *proc_root;
	int counters;	     /* -1: the profile's */
	const char *mon_res; /* NULL: the profile's */
	bool background;     /* detach once mounted */
	bool mba_mbps;	     /* as mounted with -o mba_MBps */
	unsigned kernel;     /* 0: the profile's; else major * 100 + minor */
	unsigned rmids;	     /* 0: the profile's num_rmids */
	unsigned llc_half_life_ms;
	unsigned nrdy_ms;
	bool cdp;	   /* as mounted with -o cdp */
	bool io_alloc;	   /* io_alloc capable */
	uint64_t l3_bytes; /* 0: the profile's */
	unsigned mb_max;   /* amd: the maximum CPUID gives (max_bw); 0: the profile's */
	long root_mb;	   /* the default group's MB value on every domain at mount (1..); -1: the maximum */
};

enum {
	OPT_PREFIX = 256,
	OPT_MB_MAX,
	OPT_ROOT_MB,
	OPT_DEBUG,
	OPT_CPUS,
	OPT_POSSIBLE_CPUS,
	OPT_DOMAINS,
	OPT_MIN_CBM_BITS,
	OPT_PROC_ROOT,
	OPT_COUNTERS,
	OPT_MON_RESOURCE,
	OPT_BACKGROUND,
	OPT_MBA_MBPS,
	OPT_KERNEL,
	OPT_RMIDS,
	OPT_LLC_HALF_LIFE,
	OPT_NRDY,
	OPT_CDP,
	OPT_IO_ALLOC,
	OPT_L3_BYTES,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: resctrl-emu MOUNTPOINT --profile intel|amd|mpam|mpam73 [options]\n"
		"Emulates the Linux resctrl filesystem at MOUNTPOINT (FUSE) until SIGINT/SIGTERM or unmount.\n"
		"\n"
		"  -p, --profile NAME     intel (2 L3 domains, 11-bit CBM, MB percent, MBM),\n"
		"                         amd (2 domains, 16-bit CBM, MB in 1/8 GB/s, mbm_event counters),\n"
		"                         mpam (Linux 7.1 MPAM: 1 domain, MB via MBW_MAX, llc_occupancy only),\n"
		"                         mpam73 (Linux 7.3 MPAM: as mpam plus mbm_total_bytes through 8\n"
		"                         assignable counters per domain, mbm_event mode fixed)\n"
		"  -c, --config FILE      an mpamd config: [sim] capacity_mbps, seed, noise_pct, mb_curve,\n"
		"                         delay_ticks, measure_noise_pct and each partition's sim_demand,\n"
		"                         sim_domains and sim_burst drive the counters of group PREFIX+NAME,\n"
		"                         as in the simulator (mb_curve on amd: of MB's MB/s over the domain)\n"
		"      --prefix PREFIX    group name prefix (default: the config's group_prefix, else mpamd-)\n"
		"      --debug            as mounted with -o debug: ctrl_hw_id and mon_hw_id in groups\n"
		"      --cpus N           online CPUs (default 4)\n"
		"      --possible-cpus N  possible CPUs (nr_cpu_ids: the width of every CPU mask), at least\n"
		"                         --cpus; those past --cpus are offline (default: --cpus)\n"
		"      --domains N        L3 domains instead of the profile's (ids 0..N-1)\n"
		"      --min-cbm-bits N   info/L3/min_cbm_bits instead of the profile's\n"
		"      --l3-bytes N       the L3 cache size in bytes instead of the profile's (each group's\n"
		"                         size file; max_threshold_occupancy and its limit but on amd,\n"
		"                         where the kernel takes the L2's 512 KiB), as a host's cacheinfo\n"
		"                         says: 16777216 matches QEMU's CPU models\n"
		"      --mb-max N         amd: the MB maximum in units of 1/8 GB/s, as CPUID 0x80000020 gives it\n"
		"                         (max_bw: a power of two; default 2048), instead of the profile's\n"
		"      --root-mb N        the default group's MB value on every domain at mount, as another\n"
		"                         tool or an earlier run may have left it (default: the maximum)\n"
		"      --counters N       assignable MBM counters per domain instead of the profile's\n"
		"                         (profiles with mbm_event counters only; 0..64)\n"
		"      --proc-root DIR    where threads are looked up and listed (default /proc)\n"
		"      --mon-resource RES the monitoring resource's name instead of L3: mon_data/mon_RES_NN,\n"
		"                         info/RES_MON, mbm_RES_assignments (e.g. MB)\n"
		"      --mba-mbps         as mounted with -o mba_MBps: MB values are MB/s, held exactly by\n"
		"                         the kernel's software controller; refused as the kernel refuses it\n"
		"                         (no MBM on L3, MB not linear, or assignable counters: amd, mpam73)\n"
		"      --rmids N          info/L3_MON/num_rmids instead of the profile's (not on MPAM, where\n"
		"                         RMIDs are the PARTIDs' PMGs)\n"
		"      --llc-half-life-ms N  how fast a removed group's cache lines fade while its RMID is\n"
		"                         in limbo (default 1000; 0: at once, at the next limbo check)\n"
		"      --nrdy-ms N        MPAM with assignable counters (mpam73): a counter's first read within N\n"
		"                         ms of its assignment waits N ms (the MSC's not-ready time), and\n"
		"                         shows 0 if the monitor is still not ready (default 0)\n"
		"      --cdp              as mounted with -o cdp: L3CODE and L3DATA with half the CLOSIDs; on\n"
		"                         MPAM (a kernel with CONFIG_EXPERT) also half the RMIDs and counters,\n"
		"                         no MB, and PARTIDs 2*CLOSID (data) and 2*CLOSID+1 (code)\n"
		"      --io-alloc         the L3 is io_alloc capable (AMD SDCIAE): info/L3/io_alloc and\n"
		"                         io_alloc_cbm; enabled, io_alloc holds the highest CLOSID (not MPAM)\n"
		"      --kernel M.N       the Linux version whose resctrl rules apply instead of the profile's\n"
		"                         (intel, amd 7.2; mpam 7.1; mpam73 7.3): from 7.3 on every access to a\n"
		"                         group's file clears info/last_cmd_status, reads included\n"
		"      --background       return once MOUNTPOINT is mounted and serve it from a child\n"
		"                         process (ends at umount)\n"
		"  -h, --help             this text\n"
		"\n"
		"rename(2) moves a MON group to another CTRL_MON group's mon_groups, as Linux 6.2+ does\n"
		"(tasks take the new CLOSID, counts go on), with the kernel's refusals; on MPAM the kernel's\n"
		"breakage: tasks keep their old PARTID, counts come from (new PARTID, same PMG).\n"
		"\n"
		"Control: write one command per write() to MOUNTPOINT/.emu_ctl; read it for the list:\n"
		"  fail_write ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]] |\n"
		"  fail_next_write ERRNO [PATH_SUFFIX] |\n"
		"  fail_mkdir ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]] |\n"
		"  fail_rmdir ERRNO [PATH_SUFFIX|* [COUNT|always]] |\n"
		"  fail_rename ERRNO [PATH_SUFFIX|* [COUNT|always [STATUS...]]] | clear |\n"
		"  counter GROUP DOMAIN EVENT ok|unavailable|error|unassigned|zero|reset |\n"
		"  clock manual | clock real | advance MS | advance tick (to the next tick of the config's\n"
		"  interval_ms) | vanish\n");
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

/* "7.3": 703. */
static bool parse_kernel(const char *text, unsigned *ret)
{
	unsigned major, minor;
	char tail;

	if (sscanf(text, "%u.%u%c", &major, &minor, &tail) != 2 || major < 1 || major > 99 || minor > 99)
		return false;
	*ret = major * 100 + minor;
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
	case OPT_CDP:
		c->cdp = true;
		return 0;
	case OPT_IO_ALLOC:
		c->io_alloc = true;
		return 0;
	case OPT_RMIDS:
		return parse_count(optarg, 2, EMU_MAX_RMIDS, &c->rmids) ? 0 : usage_error("bad --rmids", optarg);
	case OPT_LLC_HALF_LIFE:
		return parse_count(optarg, 0, 3600000, &c->llc_half_life_ms)
			       ? 0
			       : usage_error("bad --llc-half-life-ms", optarg);
	case OPT_NRDY:
		return parse_count(optarg, 0, 10000, &c->nrdy_ms) ? 0 : usage_error("bad --nrdy-ms", optarg);
	case OPT_KERNEL:
		return parse_kernel(optarg, &c->kernel) ? 0 : usage_error("bad --kernel (M.N, such as 7.3)", optarg);
	case OPT_CPUS:
		return parse_count(optarg, 1, EMU_MAX_CPUS, &c->cpus) ? 0 : usage_error("bad --cpus", optarg);
	case OPT_POSSIBLE_CPUS:
		return parse_count(optarg, 1, EMU_MAX_CPUS, &c->possible_cpus)
			       ? 0
			       : usage_error("bad --possible-cpus", optarg);
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
	case OPT_MB_MAX:
		return parse_count(optarg, 1, 1u << 31, &c->mb_max) && !(c->mb_max & (c->mb_max - 1))
			       ? 0
			       : usage_error("bad --mb-max (a power of two, as BIT(CPUID's width))", optarg);
	case OPT_ROOT_MB:
		if (!parse_count(optarg, 1, UINT32_MAX, &v)) /* 0 would stop the host's own traffic */
			return usage_error("bad --root-mb", optarg);
		c->root_mb = (long)v;
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
		{ "possible-cpus", required_argument, NULL, OPT_POSSIBLE_CPUS },
		{ "domains", required_argument, NULL, OPT_DOMAINS },
		{ "min-cbm-bits", required_argument, NULL, OPT_MIN_CBM_BITS },
		{ "l3-bytes", required_argument, NULL, OPT_L3_BYTES },
		{ "mb-max", required_argument, NULL, OPT_MB_MAX },
		{ "root-mb", required_argument, NULL, OPT_ROOT_MB },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "counters", required_argument, NULL, OPT_COUNTERS },
		{ "mon-resource", required_argument, NULL, OPT_MON_RESOURCE },
		{ "background", no_argument, NULL, OPT_BACKGROUND },
		{ "mba-mbps", no_argument, NULL, OPT_MBA_MBPS },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "rmids", required_argument, NULL, OPT_RMIDS },
		{ "llc-half-life-ms", required_argument, NULL, OPT_LLC_HALF_LIFE },
		{ "nrdy-ms", required_argument, NULL, OPT_NRDY },
		{ "cdp", no_argument, NULL, OPT_CDP },
		{ "io-alloc", no_argument, NULL, OPT_IO_ALLOC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*c = (struct cli){
		.cpus = DEFAULT_CPUS,
		.min_cbm_bits = -1,
		.counters = -1,
		.llc_half_life_ms = DEFAULT_LLC_HALF_LIFE_MS,
		.root_mb = -1,
	};
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

/* fs/resctrl/rdtgroup.c supports_mba_mbps() (7.2, 7.3), which rdt_parse_param() asks before it takes
 * -o mba_MBps: MBM on the L3 (an event to follow, monitored where MB is controlled: a monitoring
 * resource other than L3 has its own scope), a linear MB (delay_linear: AMD's is not), and no
 * assignable counters (mbm_cntr_assignable: AMD ABMC, MPAM on 7.3), "Disallow the software controller
 * when MBM counters are assignable". */
static bool supports_mba_mbps(const struct emu_profile *p)
{
	bool mbm = emu_profile_has_event(p, EMU_EVT_TOTAL) || emu_profile_has_event(p, EMU_EVT_LOCAL);

	return mbm && p->delay_linear && !strcmp(emu_mon_res(p), "L3") && !p->cntr_assignable;
}

/* -o cdp. On MPAM (drivers/resctrl/mpam_resctrl.c resctrl_arch_set_cdp_enabled, where the kernel
 * has CONFIG_EXPERT: without it the mount fails, "CDP not supported") the RMIDs and the assignable
 * counters are halved too (mpam_resctrl_monitor_sync_abmc_vals), as a CLOSID's traffic now carries
 * two PARTIDs. */
static void set_cdp(struct emu_profile *p)
{
	p->cdp = true;
	if (!p->rmid_depends_on_closid)
		return;
	p->num_rmids /= 2;
	p->num_mbm_cntrs /= 2;
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
	if (c->mb_max)
		p->mb_max = c->mb_max;
	if (c->counters >= 0)
		p->num_mbm_cntrs = (unsigned)c->counters;
	if (c->mon_res)
		p->mon_res = c->mon_res;
	if (c->kernel)
		p->kernel = c->kernel;
	if (c->rmids)
		p->num_rmids = c->rmids;
	p->io_alloc_capable = c->io_alloc;
	if (c->cdp)
		set_cdp(p);
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
	if (cli.mba_mbps && !supports_mba_mbps(&prof))
		return usage_error(
			"--mba-mbps refused as the kernel refuses the mount",
			"mba_MBps requires MBM (mbm_event mode not supported) and linear scale MBA at L3 scope");
	if (cli.rmids && prof.rmid_depends_on_closid)
		return usage_error("--rmids: on MPAM the RMIDs are each PARTID's PMGs", NULL);
	if (cli.io_alloc && prof.rmid_depends_on_closid)
		return usage_error("--io-alloc: Arm MPAM has no io_alloc (resctrl_arch_io_alloc_enable: EOPNOTSUPP)",
				   NULL);
	if (cli.nrdy_ms && !(prof.cntr_assignable && prof.rmid_depends_on_closid))
		return usage_error("--nrdy-ms needs MPAM with assignable counters (mpam73)", NULL);
	if (cli.counters >= 0 && !prof.cntr_assignable)
		return usage_error("--counters needs a profile with mbm_event counters", NULL);
	if (cli.mb_max && prof.mb_kind != EMU_MB_AMD)
		return usage_error("--mb-max: only AMD's MB is absolute (the others are percents up to 100)", NULL);
	if (cli.root_mb >= 0 && ((unsigned long)cli.root_mb < prof.mb_min || (unsigned long)cli.root_mb > prof.mb_max))
		return usage_error("--root-mb: outside the MB range the kernel takes", NULL);
	if (cli.possible_cpus && cli.possible_cpus < cli.cpus)
		return usage_error("--possible-cpus is below --cpus", NULL);
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
		.possible_cpus = cli.possible_cpus ? cli.possible_cpus : cli.cpus,
		.proc_root = cli.proc_root,
		.llc_half_life_ms = cli.llc_half_life_ms,
		.nrdy_ms = cli.nrdy_ms,
		.root_mb = cli.root_mb,
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
