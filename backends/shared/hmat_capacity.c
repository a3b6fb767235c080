#include "backends/shared/hmat_capacity.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/base/file_read.h"
#include "core/base/parse.h"

#define CPU_MAX	      4096 /* CPUs a node's cpulist may name */
#define SYSFS_VALUE   4096 /* bytes of one sysfs file read */
#define DOMAINS_SHARE 64   /* domains one node's CPUs may be in */

__attribute__((format(printf, 2, 3))) static void note(struct hmat_notes *n, const char *fmt, ...)
{
	va_list ap;

	if (n->count == HMAT_NOTES_MAX) {
		n->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(n->text[n->count++], sizeof(n->text[0]), fmt, ap);
	va_end(ap);
}

/* A sysfs value, its newline taken off: 0, -ENOENT when the file is not there, else -errno and why. */
static int read_value(const char *path, char **ret, struct err *err)
{
	size_t len;
	int r = file_read_regular(path, SYSFS_VALUE, ret, &len, err);

	if (r < 0)
		return r;
	while (len && ((*ret)[len - 1] == '\n' || (*ret)[len - 1] == ' '))
		(*ret)[--len] = '\0';
	return 0;
}

/* A number of a sysfs file; a missing file is -ENOENT without a note, anything else unreadable is
 * noted. */
static int read_number(const char *path, const char *what, uint64_t max, uint64_t *ret, struct hmat_notes *notes)
{
	struct err err = { "" };
	char *text = NULL;
	int r = read_value(path, &text, &err);

	if (r == 0 && (r = parse_uint(text, 0, max, ret, &err)) < 0)
		note(notes, "%s '%.40s': %s", what, text, err.text);
	else if (r < 0 && r != -ENOENT)
		note(notes, "%s: %s", what, err.text);
	free(text);
	return r;
}

/* The L3 id (a domain's id) of CPU `cpu`, or -1 (noted when the file is there but unreadable). */
static long cpu_domain(const char *root, unsigned cpu, struct hmat_notes *notes)
{
	char path[PATH_MAX], what[64];
	uint64_t id;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/cache/index3/id", root, cpu);
	snprintf(what, sizeof(what), "cpu%u: L3 id", cpu);
	return read_number(path, what, UINT32_MAX, &id, notes) == 0 ? (long)id : -1;
}

static long index_of(const uint32_t *ids, unsigned count, long id)
{
	for (unsigned i = 0; id >= 0 && i < count; i++)
		if (ids[i] == (uint32_t)id)
			return i;
	return -1;
}

/* The domains (indexes into ids) node `node`'s CPUs are in, into `at`: how many, or -1 when a CPU's
 * domain is not known (the node's figure then goes nowhere, rather than to some of its domains). */
static int node_domains(const char *root, unsigned node, const uint32_t *ids, unsigned count, unsigned *at,
			struct hmat_notes *notes)
{
	char path[PATH_MAX], *text = NULL;
	uint64_t bits[CPU_MAX / 64];
	unsigned cpus, n = 0;
	struct err err = { "" };

	snprintf(path, sizeof(path), "%s/devices/system/node/node%u/cpulist", root, node);
	int r = read_value(path, &text, &err);
	if (r == 0 && text[0] == '\0')
		cpus = 0; /* memory alone */
	else if (r == 0)
		r = parse_cpu_list(text, CPU_MAX, bits, &cpus, &err);
	free(text);
	if (r < 0) {
		note(notes, "node%u: cpulist: %s", node, err.text);
		return -1;
	}
	for (unsigned cpu = 0; cpus && cpu < CPU_MAX; cpu++) {
		if (!(bits[cpu / 64] >> (cpu % 64) & 1))
			continue;
		long d = index_of(ids, count, cpu_domain(root, cpu, notes));
		if (d < 0)
			return -1;
		bool seen = false;
		for (unsigned k = 0; k < n; k++)
			seen |= at[k] == (unsigned)d;
		if (!seen && n < DOMAINS_SHARE)
			at[n++] = (unsigned)d;
	}
	return (int)n;
}

/* Node `node`'s figure shared among its domains; a node that cannot be placed spoils its domains. */
static void add_node(const char *root, unsigned node, const uint32_t *ids, unsigned count, double *mbps, bool *spoilt,
		     struct hmat_notes *notes)
{
	char path[PATH_MAX], what[64];
	unsigned at[DOMAINS_SHARE];
	uint64_t bw;

	snprintf(path, sizeof(path), "%s/devices/system/node/node%u/access0/initiators/read_bandwidth", root, node);
	snprintf(what, sizeof(what), "node%u: read_bandwidth", node);
	int r = read_number(path, what, UINT32_MAX, &bw, notes);
	if (r == -ENOENT)
		return; /* no HMAT figure for this node */
	int n = node_domains(root, node, ids, count, at, notes);
	if (r == 0 && bw == 0) {
		note(notes, "node%u: read_bandwidth is 0 MB/s: ignored", node);
		r = -EINVAL;
	}
	if (n < 0 || r < 0) { /* the domains it would feed: spoilt, unless it is not known which */
		for (int k = 0; n > 0 && k < n; k++)
			spoilt[at[k]] = true;
		if (n < 0)
			for (unsigned d = 0; d < count; d++)
				spoilt[d] = true;
		return;
	}
	for (int k = 0; k < n; k++)
		mbps[at[k]] += (double)bw / n;
}

static bool node_number(const char *name, unsigned *ret)
{
	uint64_t v;
	struct err err;

	return !strncmp(name, "node", 4) && parse_uint(name + 4, 0, UINT32_MAX, &v, &err) == 0 && (*ret = v, true);
}

unsigned hmat_capacity_read(const char *root, const uint32_t *ids, unsigned count, double *mbps,
			    struct hmat_notes *notes)
{
	char path[PATH_MAX];
	bool spoilt[count ? count : 1];
	unsigned node, found = 0;
	struct dirent *e;

	root = root ? root : HMAT_SYSFS_ROOT;
	memset(notes, 0, sizeof(*notes));
	for (unsigned d = 0; d < count; d++)
		mbps[d] = 0, spoilt[d] = false;
	snprintf(path, sizeof(path), "%s/devices/system/node", root);
	DIR *dir = opendir(path);
	while (dir && (e = readdir(dir)))
		if (node_number(e->d_name, &node))
			add_node(root, node, ids, count, mbps, spoilt, notes);
	if (dir)
		closedir(dir);
	for (unsigned d = 0; d < count; d++) {
		if (spoilt[d])
			mbps[d] = 0;
		found += mbps[d] > 0;
	}
	return found;
}
