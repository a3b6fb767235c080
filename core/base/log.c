#include "core/base/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <syslog.h>

const char *const log_level_names[] = { "error", "warning", "info", "debug", NULL };

static struct {
	const char *ident;
	enum log_level level;
	bool use_syslog;
	atomic_ulong counts[LOG_LEVEL_DEBUG + 1]; /* the control socket's thread logs too */
} log_state = { "mpamd", LOG_LEVEL_INFO, false, { 0 } };

unsigned long log_count(enum log_level level)
{
	return atomic_load_explicit(&log_state.counts[level], memory_order_relaxed);
}

void log_setup(const char *ident, enum log_level level, bool use_syslog)
{
	log_state.ident = ident;
	log_state.level = level;
	log_state.use_syslog = use_syslog;
	if (use_syslog)
		openlog(ident, LOG_PID, LOG_DAEMON);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const int priorities[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	va_list ap;

	atomic_fetch_add_explicit(&log_state.counts[level], 1, memory_order_relaxed);
	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	if (log_state.use_syslog) {
		vsyslog(priorities[level], fmt, ap);
	} else {
		flockfile(stderr); /* one line, whichever thread logs at the same time */
		fprintf(stderr, "%s: %s: ", log_state.ident, log_level_names[level]);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		funlockfile(stderr);
	}
	va_end(ap);
}
