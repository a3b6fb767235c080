/* The memory bandwidth the firmware publishes (ACPI HMAT), as a capacity of each resctrl MB domain.
 *
 * Linux gives each memory node's bandwidth from its nearest initiators in
 * SYSFS/devices/system/node/nodeN/access0/initiators/read_bandwidth (MB/s), and the node's CPUs in
 * nodeN/cpulist. A resctrl MB domain's id is the id of its L3 cache
 * (SYSFS/devices/system/cpu/cpuC/cache/index3/id), so each CPU names its domain. A node's figure goes
 * to the domains its CPUs are in, split evenly when they are in several (AMD: one L3 per CCX, several
 * per node; their traffic shares the node's memory); a node without CPUs (CXL or HBM memory alone)
 * feeds none. A domain with no node's figure, or with one that could not be read, gets none (0):
 * never a figure short of a node. Each value that could not be read is named in the notes and
 * ignored. */
#ifndef MPAMD_BACKENDS_SHARED_HMAT_CAPACITY_H
#define MPAMD_BACKENDS_SHARED_HMAT_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#define HMAT_SYSFS_ROOT "/sys"
#define HMAT_NOTES_MAX	4

/* Why a value was ignored, one sentence each ("node1: read_bandwidth 'x12': not a number"). */
struct hmat_notes {
	unsigned count; /* at most HMAT_NOTES_MAX kept; `dropped` more */
	unsigned dropped;
	char text[HMAT_NOTES_MAX][192];
};

/* For each of the `count` domain ids, the MB/s HMAT gives it in ret_mbps[i] (0: none published or
 * readable). `sysfs_root` NULL: HMAT_SYSFS_ROOT. Returns how many domains got a figure. */
unsigned hmat_capacity_read(const char *sysfs_root, const uint32_t *ids, unsigned count, double *ret_mbps,
			    struct hmat_notes *notes);

#endif
