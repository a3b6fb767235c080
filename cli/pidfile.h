/* A pid file, written only when asked for: refuses to start when a live mpamd owns it. */
#ifndef MPAMD_CLI_PIDFILE_H
#define MPAMD_CLI_PIDFILE_H

#include "core/base/error.h"

int pidfile_create(const char *path, struct err *err);
void pidfile_remove(const char *path);

#endif
