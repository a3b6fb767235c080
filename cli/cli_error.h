/* How mpamctl reports a failure: one line on stderr, and with --json also a JSON object on stdout
 * ({"ok": false, "error": "...", "exit": N}) so that a script reading stdout never gets nothing. */
#ifndef MPAMD_CLI_CLI_ERROR_H
#define MPAMD_CLI_CLI_ERROR_H

#include <stdbool.h>

/* Prints "mpamctl: MESSAGE" (or "mpamctl CMD: MESSAGE" when `cmd` is not NULL) and returns `code`. */
__attribute__((format(printf, 4, 5))) int cli_error(bool json, const char *cmd, int code, const char *fmt, ...);

#endif
