/* Which ladder resctrl's MB is (core/base/ladder.h), and the MB values of its rungs.
 *
 * resctrl shows three kinds of MB control behind the same files (Linux 7.x):
 * - Intel MBA: linear percent steps of bandwidth_gran from min_bandwidth; only Intel has
 *   info/MB/thread_throttle_mode (fs/resctrl/rdtgroup.c thread_throttle_mode_init);
 * - MPAM (drivers/resctrl/mpam_resctrl.c): linear, no thread_throttle_mode; a percent is rounded up
 *   to bandwidth_gran, then to the nearest of 2^BWA_WD bands. bandwidth_gran = ceil(100 / 2^w) and
 *   min_bandwidth = round(100 / 2^w) tell BWA_WD 1..7; from 8 on both read 1 and 0;
 * - AMD: non-linear, absolute units of 1/8 GB/s up to max_bw = 2^n from CPUID, which no info file
 *   shows: mpamd reads that CPUID through the cpuid driver where it can, else the kernel says it
 *   when refusing a value above it ("MB value V out of range [MIN,MAX]", fs/resctrl/ctrlmondata.c
 *   bw_validate): a write that changes nothing, made by the daemon and never by a dry run. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/log.h"

#define FUSE_SUPER_MAGIC 0x65735546
/* A value above every AMD maximum (2^32 - 1: the kernel parses MB values as u32). */
#define AMD_PROBE_VALUE "4294967295"
/* BWA_WD 8 or more all show bandwidth_gran 1 and min_bandwidth 0: their bands are under 0.4% wide,
 * so the ladder is taken as BWA_WD 16 (each percent within 0.2% of what the hardware holds). */
#define MPAM_WD_ASSUMED 16u
#define MPAM_WD_TOLD	7u

/* The BWA_WD that bandwidth_gran and min_bandwidth tell (0: they match no MPAM host). */
static unsigned mpam_bwa_wd(unsigned gran, unsigned min, bool *exact)
{
	*exact = false;
	for (unsigned w = 1; w <= MPAM_WD_TOLD; w++)
		if (ladder_kernel_mpam_gran(w) == gran && ladder_kernel_mpam_min(w) == min) {
			*exact = true;
			return w;
		}
	return gran == 1 && min == 0 ? MPAM_WD_ASSUMED : 0;
}

/* Whether writes reach a kernel (or a file system that stands in for one) rather than a copy of a
 * tree on disk, which a refused write would change. */
static bool writes_are_refused_here(int rootfd, const struct resctrl_info *info)
{
	struct statfs fs;

	return info->is_resctrl_mount || (fstatfs(rootfd, &fs) == 0 && fs.f_type == FUSE_SUPER_MAGIC);
}

/* AMD's maximum from the hardware: CPUID 0x80000020 subleaf 1, EAX the width of the limit (the kernel
 * sets max_bw = BIT(eax), arch/x86/kernel/cpu/resctrl/core.c), through the cpuid driver. Read-only;
 * only where the root is this host's own resctrl. 0 when it cannot be read. */
static uint64_t amd_max_from_cpuid(const struct resctrl_info *info)
{
	uint32_t regs[4];

	if (!info->is_resctrl_mount)
		return 0;
	int fd = open("/dev/cpu/0/cpuid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, regs, sizeof(regs), (off_t)((UINT64_C(1) << 32) | UINT32_C(0x80000020)));
	close(fd);
	return n == (ssize_t)sizeof(regs) && regs[0] < 32 ? UINT64_C(1) << regs[0] : 0;
}

/* AMD's maximum as the kernel states it: a write it refuses, which changes nothing but
 * last_cmd_status. 0 when it cannot be learned so. */
static uint64_t amd_max_from_kernel(int rootfd, const struct resctrl_info *info)
{
	char line[64], status[256];
	unsigned value, lo, hi;

	if (!writes_are_refused_here(rootfd, info) || !info->mb_domain_count)
		return 0;
	snprintf(line, sizeof(line), "MB:%u=%s\n", info->mb_domain_ids[0], AMD_PROBE_VALUE);
	if (resctrl_write_at(rootfd, "schemata", line) != -EINVAL)
		return 0;
	resctrl_last_status(rootfd, status, sizeof(status));
	if (sscanf(status, "MB value %u out of range [%u,%u]", &value, &lo, &hi) != 3)
		return 0;
	return hi;
}

static void amd_units(uint64_t max, const char *source, struct resctrl_info *info)
{
	/* Never 0 units: that stops a partition's memory traffic altogether. */
	uint32_t lowest = info->min_bandwidth > 1 ? info->min_bandwidth : 1;

	info->mb_max_value = max;
	snprintf(info->mb_max_source, sizeof(info->mb_max_source), "%s", source);
	if (ladder_units(lowest, (uint32_t)(max > UINT32_MAX ? UINT32_MAX : max), RESCTRL_AMD_MBPS_PER_UNIT,
			 &info->mb_ladder) < 0)
		log_warning("resctrl: AMD MB range %u..%llu units is empty: no MB control", lowest,
			    (unsigned long long)max);
}

static void amd_ladder(uint64_t root_value, struct resctrl_info *info)
{
	uint64_t max = amd_max_from_cpuid(info);

	/* Until the kernel is asked (resctrl_mb_ask_kernel), the default group's value stands in: the
	 * maximum only while nobody lowered it. */
	if (max)
		amd_units(max, RESCTRL_MB_MAX_FROM_CPUID, info);
	else
		amd_units(root_value, RESCTRL_MB_MAX_FROM_ROOT, info);
}

int resctrl_mb_ask_kernel(int rootfd, struct resctrl_info *info)
{
	if (info->mb_units != MB_ABSOLUTE || strcmp(info->mb_max_source, RESCTRL_MB_MAX_FROM_ROOT))
		return 0;
	uint64_t max = amd_max_from_kernel(rootfd, info);
	if (!max) {
		log_warning("resctrl: AMD's MB maximum was not stated by the kernel; taking the default group's "
			    "value %llu units, which is the maximum only if nobody lowered it",
			    (unsigned long long)info->mb_max_value);
		return -ENODATA;
	}
	amd_units(max, RESCTRL_MB_MAX_FROM_KERNEL, info);
	return 0;
}

static void percent_ladder(struct resctrl_info *info)
{
	bool intel = info->thread_throttle_mode[0] != '\0';
	unsigned gran = info->bandwidth_gran ? info->bandwidth_gran : 1;
	unsigned wd = intel ? 0 : mpam_bwa_wd(gran, info->min_bandwidth, &info->mb_bwa_wd_exact);

	info->mb_max_value = 100;
	info->mb_bwa_wd = wd;
	if (wd && ladder_resctrl_mpam(wd, &info->mb_ladder) == 0)
		return;
	if (ladder_percent(gran, info->min_bandwidth, &info->mb_ladder) < 0)
		log_warning("resctrl: MB bandwidth_gran %u with min_bandwidth %u holds no setting: no MB control", gran,
			    info->min_bandwidth);
}

void resctrl_mb_ladder_probe(uint64_t root_value, struct resctrl_info *info)
{
	if (info->mb_units == MB_PERCENT)
		percent_ladder(info);
	else if (info->mb_units == MB_ABSOLUTE)
		amd_ladder(root_value, info);
}

uint64_t resctrl_mb_value(const struct resctrl_info *info, double pct)
{
	const struct ladder *l = &info->mb_ladder;

	return ladder_value(l, ladder_snap(l, pct, LADDER_NEAREST));
}

double resctrl_mb_percent(const struct resctrl_info *info, uint64_t value)
{
	const struct ladder *l = &info->mb_ladder;
	uint32_t rung;

	if (!ladder_exists(l))
		return 100;
	/* A value no rung shows (another tool wrote it through a kernel that keeps it as written) is
	 * taken as the rung below it: a ceiling that holds at least as tight. */
	ladder_of_shown(l, value > UINT32_MAX ? UINT32_MAX : (uint32_t)value, &rung);
	return ladder_pct(l, rung);
}
