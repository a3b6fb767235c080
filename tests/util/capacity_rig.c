#include "tests/util/capacity_rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine/engine.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"

int capacity_rig_setup(void **state, const char *emu_path, const char *name, const char *partitions)
{
	static struct capacity_rig rig;
	char sim[128];

	memset(&rig, 0, sizeof(rig));
	make_test_dir(rig.dir, sizeof(rig.dir), name);
	snprintf(rig.sysfs, sizeof(rig.sysfs), "%s/sys", rig.dir);
	snprintf(rig.record, sizeof(rig.record), "%s/record.csv", rig.dir);
	snprintf(sim, sizeof(sim), "%s/sim.ini", rig.dir);
	write_file(sim, "[global]\ninterval_ms = 20\n[sim]\ncapacity_mbps = 20000\n%s", partitions);
	assert_int_equal(emu_start_path(emu_path, "intel", sim, NULL, &rig.emu), 0);
	*state = &rig;
	return 0;
}

int capacity_rig_teardown(void **state)
{
	struct capacity_rig *rig = *state;

	engine_free(rig->engine);
	rig->engine = NULL;
	log_capture_free(&rig->log);
	int r = emu_stop(rig->emu);
	return remove_tree(rig->dir) | r;
}
