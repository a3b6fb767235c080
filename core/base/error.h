/* A human-readable reason that travels with a negative errno, for errors a caller logs once
 * with its own context ("partition web: ..."). */
#ifndef MPAMD_CORE_ERROR_H
#define MPAMD_CORE_ERROR_H

#include <stddef.h>

#define ERR_TEXT_MAX 512

struct err {
	char text[ERR_TEXT_MAX];
};

/* Sets the text and returns `code` (a negative errno), so callers can `return err_set(e, -EIO, ...)`.
 * `e` may be NULL. */
__attribute__((format(printf, 3, 4))) int err_set(struct err *e, int code, const char *fmt, ...);

/* Prefixes the existing text: "context: old text". */
__attribute__((format(printf, 2, 3))) void err_prefix(struct err *e, const char *fmt, ...);

#endif
