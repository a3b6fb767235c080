/* The capacity of resctrl MB domains from ACPI HMAT as Linux publishes it, on fixture sysfs trees:
 * a node's read_bandwidth goes to the L3 domains of its CPUs (split where they are several), a node
 * without CPUs feeds none, and a value that cannot be read is named and ignored, its domains left
 * without a figure: never a silent zero, never a figure short of a node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/shared/hmat_capacity.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static char root[64];

static int setup(void **state)
{
	(void)state;
	make_test_dir(root, sizeof(root), "hmat");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(root);
}

/* root/rel, its directories made, holding the line `value`. */
static void put(const char *rel, const char *value)
{
	char line[64];

	snprintf(line, sizeof(line), "%s\n", value);
	write_file_below(root, rel, line);
}

static void cpu(unsigned n, unsigned l3)
{
	char rel[96], id[16];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/cache/index3/id", n);
	snprintf(id, sizeof(id), "%u", l3);
	put(rel, id);
}

/* Node n with its CPUs and, unless NULL, its read_bandwidth. */
static void node(unsigned n, const char *cpulist, const char *bandwidth)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "devices/system/node/node%u/cpulist", n);
	put(rel, cpulist);
	if (!bandwidth)
		return;
	snprintf(rel, sizeof(rel), "devices/system/node/node%u/access0/initiators/read_bandwidth", n);
	put(rel, bandwidth);
}

static const uint32_t two[] = { 0, 1 };

/* Two sockets: a node and an L3 domain each. */
static void test_one_node_per_domain(void **state)
{
	struct hmat_notes notes;
	double mbps[2];

	(void)state;
	cpu(0, 0), cpu(1, 0), cpu(2, 1), cpu(3, 1);
	node(0, "0-1", "50000"), node(1, "2-3", "40000");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 2);
	assert_true(mbps[0] == 50000 && mbps[1] == 40000);
	assert_int_equal(notes.count, 0);
}

/* AMD: one node, two CCX (L3 domains) in it: they share it. Sub-NUMA clustering: two nodes, one L3. */
static void test_shared_nodes_and_split_domains(void **state)
{
	struct hmat_notes notes;
	double mbps[2];

	(void)state;
	cpu(0, 0), cpu(1, 0), cpu(2, 1), cpu(3, 1);
	node(0, "0-3", "60000");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 2);
	assert_true(mbps[0] == 30000 && mbps[1] == 30000);

	remove_tree(root);
	setup(NULL);
	cpu(0, 0), cpu(1, 0);
	node(0, "0", "20000"), node(1, "1", "25000");
	assert_int_equal(hmat_capacity_read(root, two, 1, mbps, &notes), 1);
	assert_true(mbps[0] == 45000);
}

/* A CXL memory node has no CPUs: its bandwidth is no domain's. No HMAT at all: no figure, no note. */
static void test_memory_alone_and_no_hmat(void **state)
{
	struct hmat_notes notes;
	double mbps[2];

	(void)state;
	cpu(0, 0), cpu(1, 1);
	node(0, "0", NULL), node(1, "1", NULL);
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 0);
	assert_true(mbps[0] == 0 && mbps[1] == 0);
	assert_int_equal(notes.count, 0);
	node(0, "0", "30000"), node(2, "", "90000");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 1);
	assert_true(mbps[0] == 30000 && mbps[1] == 0);
	assert_int_equal(notes.count, 0);
}

static void expect_note(const struct hmat_notes *notes, const char *text)
{
	for (unsigned i = 0; i < notes->count; i++)
		if (strstr(notes->text[i], text))
			return;
	fail_msg("no note says '%s' (%u notes%s%s)", text, notes->count, notes->count ? ": " : "",
		 notes->count ? notes->text[0] : "");
}

/* A malformed or zero figure is named and ignored: its domain gets none, the other keeps its own. */
static void test_malformed_values_are_named_and_ignored(void **state)
{
	struct hmat_notes notes;
	double mbps[2];

	(void)state;
	cpu(0, 0), cpu(1, 1);
	node(0, "0", "50000"), node(1, "1", "12x");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 1);
	assert_true(mbps[0] == 50000 && mbps[1] == 0);
	expect_note(&notes, "node1: read_bandwidth '12x'");

	node(1, "1", "0");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 1);
	expect_note(&notes, "node1: read_bandwidth is 0 MB/s: ignored");

	node(1, "1", "");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 1);
	expect_note(&notes, "node1: read_bandwidth");
	assert_true(mbps[1] == 0);

	/* A node whose CPUs cannot be placed: no domain is given a figure that may be short of it. */
	node(1, "1-x", "40000");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 0);
	expect_note(&notes, "node1: cpulist");
}

/* A CPU whose L3 id is garbage: named; the domains are not guessed. */
static void test_a_bad_l3_id_is_named(void **state)
{
	struct hmat_notes notes;
	double mbps[2];

	(void)state;
	cpu(0, 0);
	put("devices/system/cpu/cpu1/cache/index3/id", "one");
	node(0, "0", "50000"), node(1, "1", "40000");
	assert_int_equal(hmat_capacity_read(root, two, 2, mbps, &notes), 0);
	expect_note(&notes, "cpu1: L3 id 'one'");
}

#define hmat_test(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

TEST_MAIN({
	hmat_test(test_one_node_per_domain),
	hmat_test(test_shared_nodes_and_split_domains),
	hmat_test(test_memory_alone_and_no_hmat),
	hmat_test(test_malformed_values_are_named_and_ignored),
	hmat_test(test_a_bad_l3_id_is_named),
})
