/* How intel-cmt-cat (pqos) reads resctrl's bandwidth counters, to count its system calls beside
 * mpamd's (bench/run-resctrl-syscall-bench):
 *
 *   pqos_pattern ROOT TICKS INTERVAL_MS GROUP...
 *
 * Every INTERVAL_MS, for each GROUP under ROOT and each of its mon_data/mon_L3_NN domains, the
 * counter file mbm_total_bytes is opened with fopen, read with fgets and closed with fclose, as
 * pqos's resctrl_mon_read_counter does for every counter it polls. The domains are listed once, at
 * the start. Prints the counters read and how many reads failed. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/parse.h"

#define MAX_DOMAINS 64

static unsigned arg(const char *s, unsigned max, const char *what)
{
	struct err err;
	uint64_t v;

	if (parse_uint(s, 1, max, &v, &err) < 0) {
		fprintf(stderr, "pqos_pattern: %s: %s\n", what, err.text);
		exit(2);
	}
	return (unsigned)v;
}

/* The mon_L3_NN directories of the first group, in the order readdir gives them. */
static unsigned list_domains(const char *root, const char *group, char names[][NAME_MAX + 1])
{
	char path[4096];
	unsigned n = 0;

	int len = snprintf(path, sizeof(path), "%s/%s/mon_data", root, group);
	DIR *dir = len >= 0 && (size_t)len < sizeof(path) ? opendir(path) : NULL;
	if (!dir) {
		fprintf(stderr, "pqos_pattern: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (struct dirent *e; (e = readdir(dir)) && n < MAX_DOMAINS;)
		if (!strncmp(e->d_name, "mon_", 4) && strlen(e->d_name) < sizeof(names[0]))
			memcpy(names[n++], e->d_name, strlen(e->d_name) + 1);
	closedir(dir);
	return n;
}

/* One counter, the pqos way: 0, or -1 when it could not be read or is not a number. */
static int read_counter(const char *path, unsigned long long *ret)
{
	char line[64];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	char *got = fgets(line, sizeof(line), f);
	fclose(f);
	return got && sscanf(line, "%llu", ret) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char domains[MAX_DOMAINS][NAME_MAX + 1];
	unsigned long reads = 0, failed = 0;
	unsigned long long value;

	if (argc < 5) {
		fprintf(stderr, "usage: pqos_pattern ROOT TICKS INTERVAL_MS GROUP...\n");
		return 2;
	}
	const char *root = argv[1];
	unsigned ticks = arg(argv[2], 1000000, "TICKS"), interval_ms = arg(argv[3], 60000, "INTERVAL_MS");
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
				char path[4096];
				int len = snprintf(path, sizeof(path), "%s/%s/mon_data/%s/mbm_total_bytes", root,
						   argv[g], domains[d]);
				reads++;
				failed += len < 0 || (size_t)len >= sizeof(path) || read_counter(path, &value) < 0;
			}
		}
	}
	printf("counters read %lu, failed %lu\n", reads, failed);
	return failed ? 1 : 0;
}
