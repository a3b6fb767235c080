#include "tests/util/mbwu_rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

void mbwu_rig_setup(struct mbwu_rig *rig, const struct msc_model_params *params, size_t partitions,
		    const struct msc_probe_opts *access)
{
	struct err err = { "" };

	memset(rig, 0, sizeof(*rig));
	assert_int_equal(msc_model_new(params, &rig->model), 0);
	assert_int_equal(bus_sim_new(rig->model, 0x1000000, &rig->msc.bus), 0);
	assert_non_null(rig->msc.bus);
	snprintf(rig->msc.name, sizeof(rig->msc.name), "test");
	rig->msc.access = *access;
	if (msc_probe(rig->msc.bus, access, &rig->msc.caps, &err) < 0)
		fail_msg("probe: %s", err.text);
	if (partitions && msc_monitors_new(&rig->msc, partitions, &rig->mons, &err) < 0)
		fail_msg("monitors: %s", err.text);
	rig->now = 10 * MBWU_RIG_TICK_NS;
}

void mbwu_rig_teardown(struct mbwu_rig *rig)
{
	assert_int_equal(msc_model_error_count(rig->model), 0);
	assert_int_equal(msc_model_esr(rig->model), 0);
	assert_int_equal(msc_model_bad_accesses(rig->model), 0);
	msc_monitors_free(rig->mons);
	bus_free(rig->msc.bus);
	msc_model_free(rig->model);
}

void mbwu_rig_tick(struct mbwu_rig *rig)
{
	msc_model_tick(rig->model);
	rig->now += MBWU_RIG_TICK_NS;
	msc_monitors_read(rig->mons, rig->now, rig->samples, 1);
}
