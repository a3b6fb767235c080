/* An engine on simulated time in step with the resctrl emulator on its manual clock ("clock manual"):
 * the engine ticks back to back and the test moves the emulator's clock on by the interval, once up to
 * the first tick and then after each tick from its on_tick hook (emu_advance), so that a test on a
 * loaded machine measures the plant, not the scheduler. */
#ifndef MPAMD_TESTS_UTIL_EMU_IN_STEP_H
#define MPAMD_TESTS_UTIL_EMU_IN_STEP_H

#include <stdint.h>

#include "core/engine/engine.h"

struct emu;

/* The engine's options for it: the configuration at `config_path` (what a reload reads too), `ticks`
 * ticks (0: until stopped), `on_tick` with `ctx` its tick hook. */
struct engine_options in_step_options(const char *config_path, uint64_t ticks,
				      void (*on_tick)(void *ctx, struct engine *e), void *ctx);

/* A new engine with `opts` on the file at opts->config_path, then the emulator's clock moved on by
 * `interval_ms` up to the first tick. Fails the test when the file does not load, the engine cannot be
 * made or the emulator does not take the move. */
struct engine *engine_new_in_step(const struct engine_options *opts, struct emu *emu, unsigned interval_ms);

#endif
