/* A placement test's run on this machine's real cgroups: a private cgroup subtree the test makes (and
 * removes, deepest first), the resctrl emulator (whose tasks files take real thread ids), a
 * configuration file, and the engine in the test's own process with a script called after every tick.
 * The first thing a script finds wrong is kept, and fails the test once the engine has stopped. */
#ifndef MPAMD_TESTS_UTIL_PLACE_RUN_H
#define MPAMD_TESTS_UTIL_PLACE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tests/util/engine_util.h"

#define PLACE_RUN_CGROUPS 8
#define PLACE_RUN_PATH	  512

struct emu;

struct place_run {
	struct emu *emu;
	struct engine *engine;
	char dir[64], config[96];
	char root[128];					 /* the test's cgroup subtree */
	char cgroups[PLACE_RUN_CGROUPS][PLACE_RUN_PATH]; /* made under it (the root first) */
	size_t cgroup_count;
	char failure[512];
	/* Called after every tick, until a failure is noted (the engine then stops). */
	void (*script)(struct place_run *run, uint64_t tick);
	unsigned long warnings; /* logged while the engine ran */
};

#define place_run_fail(run, ...) note_first((run)->failure, sizeof((run)->failure), __VA_ARGS__)

/* A run whose cgroup subtree is in the hierarchy mounted at `hierarchy` (/sys/fs/cgroup/unified,
 * /sys/fs/cgroup/cpu...), with the emulator at `emu_path`: true; false (the test skips) when this host
 * cannot give one (not root, no such hierarchy). */
bool place_run_init_path(struct place_run *run, const char *hierarchy, const char *emu_path);
#ifdef RESCTRL_EMU
static inline bool place_run_init(struct place_run *run, const char *hierarchy)
{
	return place_run_init_path(run, hierarchy, RESCTRL_EMU);
}
#endif
/* The engine stopped and freed, every cgroup removed, the emulator stopped, the files gone. For a
 * teardown: what the test started in the cgroups must have ended before. */
void place_run_fini(struct place_run *run);

/* Makes the cgroup at the formatted path below the run's root; its full path (kept until the run
 * ends). Fails the test when it cannot. */
const char *place_run_cgroup(struct place_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Removes the cgroups made after the first `keep` (the root is the first), deepest first. */
void place_run_remove_cgroups(struct place_run *run, size_t keep);
/* Moves the calling process into cgroup `dir` (a full path): 0 or -errno. For a child between its
 * fork and its exec, as libvirt starts QEMU, so that the kernel reports the program where it is. */
int place_run_enter(const char *dir);

/* Writes the configuration: backend and monitor resctrl on the emulator, interval_ms 100, then the
 * formatted rest of [global] and the sections. */
void place_run_config(struct place_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs the engine on the configuration for at most `ticks` ticks (the script may stop it sooner with
 * engine_stop), then fails the test with what the script noted. */
void place_run_engine(struct place_run *run, uint64_t ticks);

/* Whether the emulator's group `group` holds thread `tid`; every one of `ids`. */
bool place_run_holds(const struct place_run *run, const char *group, pid_t tid);
bool place_run_holds_all(const struct place_run *run, const char *group, const pid_t *ids, size_t count);
/* The thread ids group `group` holds, sorted, into *ids (malloc'ed): their count, or -1. */
long place_run_members(const struct place_run *run, const char *group, pid_t **ids);

/* What status says of placement: the reconciles so far, the times the kernel dropped events (each
 * makes a reconcile), whether the proc connector is listening. */
struct place_counts {
	uint64_t reconciles, events_lost;
	bool connector;
};

struct place_counts place_run_counts(struct engine *e);

#endif
