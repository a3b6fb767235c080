/* sd_notify for mpamd; see service_notify.h. */
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "cli/service_notify.h"
#include "core/base/log.h"

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void service_notify_init(struct service_notify *n)
{
	uint64_t usec = 0;

	*n = (struct service_notify){ 0 };
	/* > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID, if set, is this process. */
	if (sd_watchdog_enabled(0, &usec) > 0)
		n->watchdog_ns = usec * 1000u;
}

void service_notify_ready(void *ctx, struct engine *engine)
{
	struct service_notify *n = ctx;
	int r = sd_notifyf(0, "READY=1\nSTATUS=managing %zu partition(s)", engine_partitions_in_use(engine));

	if (r < 0)
		log_warning("cannot tell the service manager mpamd is ready: %s", strerror(-r));
	n->last_ping_ns = monotonic_ns();
}

void service_notify_tick(struct service_notify *n)
{
	uint64_t now = monotonic_ns();

	/* Half the period, as sd_watchdog_enabled(3) advises: one late tick is no reason to die. */
	if (n->watchdog_ns == 0 || now - n->last_ping_ns < n->watchdog_ns / 2)
		return;
	sd_notify(0, "WATCHDOG=1");
	n->last_ping_ns = now;
}

void service_notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}
