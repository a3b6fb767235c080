/* See log_capture.h. */
#include "tests/util/log_capture.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/log.h"
#include "tests/util/testutil.h"

void log_capture_begin(struct log_capture *c)
{
	snprintf(c->path, sizeof(c->path), "/tmp/mpamd-log-%d-XXXXXX", (int)getpid());
	int fd = mkstemp(c->path);

	if (fd < 0)
		abort();
	fflush(stderr);
	c->saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

void log_capture_end(struct log_capture *c)
{
	if (c->saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(c->saved_stderr, 2);
	close(c->saved_stderr);
	c->saved_stderr = -1;
}

void log_capture_pass_on(const struct log_capture *c)
{
	char *log = read_text_file(c->path);

	if (log)
		fputs(log, stderr);
	fflush(stderr);
	free(log);
}

static bool has_all(const char *line, const char *const *parts)
{
	for (size_t i = 0; parts[i]; i++)
		if (!strstr(line, parts[i]))
			return false;
	return true;
}

unsigned log_capture_count(const struct log_capture *c, const char *const *parts)
{
	char *log = read_text_file(c->path);
	unsigned found = 0;

	for (char *line = log, *end; line && *line; line = end + 1) {
		end = strchrnul(line, '\n');
		char saved = *end;
		*end = '\0';
		found += has_all(line, parts);
		if (!saved)
			break;
	}
	free(log);
	return found;
}

void log_capture_free(struct log_capture *c)
{
	log_capture_end(c);
	if (c->path[0])
		unlink(c->path);
	c->path[0] = '\0';
}

int log_errors_only(void **state)
{
	(void)state;
	log_setup("test", LOG_LEVEL_ERROR, false);
	return 0;
}

int log_warnings_too(void **state)
{
	(void)state;
	log_setup("test", LOG_LEVEL_WARNING, false);
	return 0;
}
