/* How mpamctl reports a failure: one line on stderr, and with --json also a JSON object on stdout
 * ({"ok": false, "error": "...", "exit": N}) so that a script reading stdout never gets nothing. */
#ifndef MPAMD_CLI_CLI_ERROR_H
#define MPAMD_CLI_CLI_ERROR_H

#include <jansson.h>
#include <stdbool.h>

/* Prints "mpamctl: MESSAGE" (or "mpamctl CMD: MESSAGE" when `cmd` is not NULL) and returns `code`. */
__attribute__((format(printf, 4, 5))) int cli_error(bool json, const char *cmd, int code, const char *fmt, ...);
/* The daemon's messages (a JSON array of strings: a reload's findings), one a line on stderr. */
void cli_print_messages(const json_t *messages);

/* The same after `messages` (an array of strings, or NULL), one per line on stderr: the findings that
 * go with the refusal (a reload's "FILE:LINE: error: ..."); with --json also as "messages". */
__attribute__((format(printf, 5, 6))) int cli_error_messages(bool json, const char *cmd, int code, json_t *messages,
							     const char *fmt, ...);

#endif
