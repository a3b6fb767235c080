/* Telling a service manager how mpamd is doing (systemd's sd_notify protocol, through libsystemd):
 * READY=1 once the loop runs and the control socket listens (Type=notify), WATCHDOG=1 from the tick
 * loop when WatchdogSec= is set (a tick thread stuck in a kernel write gets mpamd restarted), and
 * STOPPING=1 on the way out. Without $NOTIFY_SOCKET every call does nothing. */
#ifndef MPAMD_CLI_SERVICE_NOTIFY_H
#define MPAMD_CLI_SERVICE_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/engine/engine.h"

struct service_notify {
	uint64_t watchdog_ns;  /* WatchdogSec= as systemd passed it; 0: no watchdog */
	uint64_t last_ping_ns; /* CLOCK_MONOTONIC of the last WATCHDOG=1 */
};

/* Reads the watchdog settings systemd left in the environment. */
void service_notify_init(struct service_notify *n);
/* An engine_options.on_ready hook; ctx is a struct service_notify. */
void service_notify_ready(void *ctx, struct engine *engine);
/* Called after every tick: pings the watchdog at half its period. */
void service_notify_tick(struct service_notify *n);
void service_notify_stopping(void);

#endif
