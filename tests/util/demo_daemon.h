/* An mpamd on etc/demo.ini (the simulator) for the tests that drive a running daemon from outside:
 * its directory, control socket and log (and record) in /tmp, started, stopped, and cleaned up
 * after a failed assertion too. */
#ifndef MPAMD_TESTS_UTIL_DEMO_DAEMON_H
#define MPAMD_TESTS_UTIL_DEMO_DAEMON_H

#include <stdbool.h>

#define DEMO_WAIT_MS 10000 /* a start or a stop that takes this long has failed */

struct demo_daemon {
	char dir[64];
	char sock[96], log[96], record[96]; /* in dir; record "" unless asked for */
	int pid;			    /* while it runs, else 0 */
};

/* Makes dir (/tmp/mpamd-<name>-XXXXXX) and starts the mpamd at `mpamd` on `config` there, recording
 * when `record`; returns once it says it is ready. Three cmocka assertions: the directory, the start,
 * ready. */
void demo_daemon_start_with(struct demo_daemon *d, const char *mpamd, const char *config, const char *name,
			    bool record);
#ifdef MPAMD
/* The same with this build's mpamd and etc/demo.ini (the test program's MPAMD and MPAMD_SOURCE_DIR). */
static inline void demo_daemon_start(struct demo_daemon *d, const char *name, bool record)
{
	demo_daemon_start_with(d, MPAMD, MPAMD_SOURCE_DIR "/etc/demo.ini", name, record);
}
#endif
/* SIGTERM, then one assertion: it exits 0. */
void demo_daemon_stop(struct demo_daemon *d);
/* For a teardown: kills the daemon if it still runs and removes its directory; 0, or -1 when
 * something stayed. */
int demo_daemon_cleanup(struct demo_daemon *d);
/* The same as a cmocka teardown, its state the demo_daemon (cmocka_unit_test_prestate_setup_teardown). */
int demo_daemon_teardown(void **state);

#endif
