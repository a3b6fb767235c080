/* Logging with levels, to stderr (foreground, tests) or syslog (service). */
#ifndef MPAMD_CORE_LOG_H
#define MPAMD_CORE_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

extern const char *const log_level_names[]; /* "error", "warning", "info", "debug", NULL */

void log_setup(const char *ident, enum log_level level, bool use_syslog);

__attribute__((format(printf, 2, 3))) void log_msg(enum log_level level, const char *fmt, ...);

/* Messages of `level` issued since the start, whether or not they were printed (tests assert on it). */
unsigned long log_count(enum log_level level);

#define log_error(...)	 log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_info(...)	 log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...)	 log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
