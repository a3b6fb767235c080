/* The rig of the tests of where a domain's capacity comes from (test_capacity_hmat,
 * test_capacity_record): the resctrl emulator's two MB domains (profile intel, [sim] capacity_mbps =
 * 20000, interval_ms = 20) running the test's partitions, in a test directory of its own, with the
 * paths a test may fill (a sysfs tree, a record file) and the engine and log it opens there. */
#ifndef MPAMD_TESTS_UTIL_CAPACITY_RIG_H
#define MPAMD_TESTS_UTIL_CAPACITY_RIG_H

#include "tests/util/log_capture.h"

struct emu;
struct engine;

struct capacity_rig {
	char dir[64];
	char sysfs[96];	 /* DIR/sys: nothing there until the test puts it */
	char record[96]; /* DIR/record.csv: not there until the test or an engine writes it */
	struct emu *emu;
	struct engine *engine; /* the test's; freed by the teardown */
	struct log_capture log;
};

/* A cmocka setup's body: the rig (one, static) in *state, the emulator at `emu_path` (the test's
 * RESCTRL_EMU) running `partitions`; `name` names the directory. 0, or fails the test. */
int capacity_rig_setup(void **state, const char *emu_path, const char *name, const char *partitions);
/* A cmocka teardown: the engine and log freed, the emulator stopped, the directory removed; 0 when
 * all went well. */
int capacity_rig_teardown(void **state);

#endif
