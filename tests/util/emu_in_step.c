/* See emu_in_step.h. */
#include "tests/util/emu_in_step.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"

struct engine_options in_step_options(const char *config_path, uint64_t ticks,
				      void (*on_tick)(void *ctx, struct engine *e), void *ctx)
{
	return (struct engine_options){ .ticks = ticks,
					.config_path = config_path,
					.sim_clock = true,
					.sim_clock_in_step = true,
					.on_tick = on_tick,
					.on_tick_ctx = ctx };
}

struct engine *engine_new_in_step(const struct engine_options *opts, struct emu *emu, unsigned interval_ms)
{
	struct engine *e = engine_new_or_fail(load_config_file(opts->config_path), opts);

	assert_int_equal(emu_advance(emu, interval_ms), 0);
	return e;
}
