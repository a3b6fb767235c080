/* One request to the running mpamd over its control socket, one reply: the transport every
 * mpamctl command that talks to the daemon shares (status, list, show, set, reload, metrics, top). */
#ifndef MPAMD_CLI_CTL_CLIENT_H
#define MPAMD_CLI_CTL_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

/* How a call ended; each maps to one mpamctl exit code. */
enum ctl_client_outcome {
	CTL_CLIENT_OK,		/* *ret_result holds the daemon's result */
	CTL_CLIENT_BAD_REQUEST, /* the request could not be built (a setting without '='...): usage */
	CTL_CLIENT_UNREACHABLE, /* no daemon answers on the socket (missing, refused, not permitted) */
	CTL_CLIENT_BROKEN,	/* connected, but no reply of this protocol came back (reset, timeout) */
	CTL_CLIENT_REFUSED,	/* the daemon answered with an error */
};

/* Sends `cmd` (with `name` and `settings` where it takes them) to the socket at `path` and waits for
 * the reply (at most CTL_CLIENT_TIMEOUT_MS). Anything but CTL_CLIENT_OK leaves a message in err
 * that names the socket, or for a refusal the daemon's own words; a refusal that carries findings (a
 * reload's "FILE:LINE: ..." messages) leaves them in *ret_result, an array the caller releases. */
#define CTL_CLIENT_TIMEOUT_MS 5000
enum ctl_client_outcome ctl_client_call(const char *path, const char *cmd, const char *name,
					const char *const *settings, size_t count, json_t **ret_result,
					struct err *err);

/* The same for a set, with "persist" when `persist` (mpamctl set --persist). */
enum ctl_client_outcome ctl_client_call_set(const char *path, const char *name, const char *const *settings,
					    size_t count, bool persist, json_t **ret_result, struct err *err);

/* The mpamctl exit code of an outcome (cli/mpamctl.h), the same for every command that talks to
 * mpamd: 0, 2 for a request that could not be built, 3 when no mpamd answers, 1 otherwise. */
int ctl_client_exit_code(enum ctl_client_outcome outcome);

#endif
