/* How intel-cmt-cat (pqos) reads resctrl's bandwidth counters, to count its system calls beside
 * mpamd's (bench/run-resctrl-syscall-bench):
 *
 *   pqos_pattern ROOT TICKS INTERVAL_MS GROUP...
 *
 * Every INTERVAL_MS, for each GROUP under ROOT and each of its mon_data/mon_L3_NN domains, the
 * counter mbm_total_bytes is read as intel-cmt-cat's resctrl_mon_read_counter
 * (lib/resctrl_monitoring.c) reads every counter it polls: the group's path and the counter's built
 * with snprintf, opened with pqos_fopen (lib/common.c: lstat, fopen, fstat of the stream's fd, the
 * two compared to refuse a symlink), read with fscanf("%llu") and closed with fclose. With glibc that
 * is 6 system calls: lstat, openat, fstat, stdio's own fstat for its buffer, read, close. What
 * resctrl_mon_poll does besides, per group and not per counter (a stat of the group's directory in
 * every COS, restoring cores' associations), is left out. The domains are listed once, at the start.
 * Prints the counters read and how many reads failed. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/bench_arg.h"
#include "core/base/parse.h"

#define MAX_DOMAINS 64

/* The L3 ids of the first group's mon_L3_NN directories, in the order readdir gives them (pqos takes
 * them from its CPU topology). */
static unsigned list_domains(const char *root, const char *group, unsigned *ids)
{
	char path[4096];
	unsigned n = 0;

	int len = snprintf(path, sizeof(path), "%s/%s/mon_data", root, group);
	DIR *dir = len >= 0 && (size_t)len < sizeof(path) ? opendir(path) : NULL;
	if (!dir) {
		fprintf(stderr, "pqos_pattern: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (struct dirent *e; (e = readdir(dir)) && n < MAX_DOMAINS;) {
		struct err err;
		uint64_t id;
		if (!strncmp(e->d_name, "mon_L3_", 7) && parse_uint_decimal(e->d_name + 7, 0, 9999, &id, &err) == 0)
			ids[n++] = (unsigned)id;
	}
	closedir(dir);
	return n;
}

/* pqos_fopen: a file opened only if what lstat saw before is what was opened. */
static FILE *pqos_fopen(const char *name, const char *mode)
{
	struct stat lstat_val, fstat_val;

	if (lstat(name, &lstat_val) == -1)
		return NULL;
	FILE *stream = fopen(name, mode);
	if (!stream)
		return NULL;
	int fd = fileno(stream);
	if (fd == -1 || fstat(fd, &fstat_val) == -1 || lstat_val.st_mode != fstat_val.st_mode ||
	    lstat_val.st_ino != fstat_val.st_ino || lstat_val.st_dev != fstat_val.st_dev) {
		fclose(stream);
		return NULL;
	}
	return stream;
}

/* resctrl_mon_read_counter: 0, or -1 when the file could not be opened or did not scan as a count
 * below UINT64_MAX. pqos then returns success with the value 0 ("Unavailable" and "Error" read as a
 * zero count); here the read is counted as failed. */
static int read_counter(const char *root, const char *group, unsigned l3id, unsigned long long *ret)
{
	char buf[128], path[PATH_MAX];
	unsigned long long counter;

	*ret = 0;
	int len = snprintf(buf, sizeof(buf), "%s/%s", root, group);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return -1;
	len = snprintf(path, sizeof(path), "%s/mon_data/mon_L3_%02u/%s", buf, l3id, "mbm_total_bytes");
	if (len < 0 || (size_t)len >= sizeof(path))
		return -1;
	FILE *fd = pqos_fopen(path, "r");
	if (!fd)
		return -1;
	bool counted = fscanf(fd, "%llu", &counter) == 1 && counter < UINT64_MAX;
	if (counted)
		*ret = counter;
	fclose(fd);
	return counted ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned domains[MAX_DOMAINS];
	unsigned long reads = 0, failed = 0;
	unsigned long long value;

	if (argc < 5) {
		fprintf(stderr, "usage: pqos_pattern ROOT TICKS INTERVAL_MS GROUP...\n");
		return 2;
	}
	const char *root = argv[1];
	unsigned ticks = bench_arg("pqos_pattern", "TICKS", argv[2], 1, 1000000);
	unsigned interval_ms = bench_arg("pqos_pattern", "INTERVAL_MS", argv[3], 1, 60000);
	unsigned ndomains = list_domains(root, argv[4], domains);
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (unsigned t = 0; t < ticks; t++) {
		next.tv_nsec += (long)interval_ms * 1000000L;
		next.tv_sec += next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		for (int g = 4; g < argc; g++) {
			for (unsigned d = 0; d < ndomains; d++) {
				reads++;
				failed += read_counter(root, argv[g], domains[d], &value) < 0;
			}
		}
	}
	printf("counters read %lu, failed %lu\n", reads, failed);
	return failed ? 1 : 0;
}
