#include "core/base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

const char *const log_level_names[] = { "error", "warning", "info", "debug", NULL };

static struct {
	const char *ident;
	enum log_level level;
	bool use_syslog;
	unsigned long counts[LOG_LEVEL_DEBUG + 1];
} log_state = { "mpamd", LOG_LEVEL_INFO, false, { 0 } };

unsigned long log_count(enum log_level level)
{
	return log_state.counts[level];
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

	log_state.counts[level]++;
	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	if (log_state.use_syslog) {
		vsyslog(priorities[level], fmt, ap);
	} else {
		fprintf(stderr, "%s: %s: ", log_state.ident, log_level_names[level]);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
