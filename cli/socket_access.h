/* What stands between this process and mpamd's control socket, in words an operator can act on:
 * whether mpamd runs, which directory or which mode bits refuse this user, which group `set` and
 * `reload` need and whether this login has it. Every check is made here, as the user who runs
 * mpamctl: the daemon cannot see why a connect never reached it. */
#ifndef MPAMD_CLI_SOCKET_ACCESS_H
#define MPAMD_CLI_SOCKET_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

/* Why connecting to the socket at `path` failed with `r` (a negative errno): "no mpamd process
 * runs", "directory /run/mpamd (drwx------ root:root) does not let uid 1000 (ann) through"...
 * Writes "" when there is nothing to add to strerror. */
void socket_access_connect_hint(const char *path, int r, char *buf, size_t len);

/* Why mpamd refuses this process `set` and `reload`: it is neither root nor in the socket's group
 * (or the socket has no group of its own, and only root may), with what to do. False, buf empty,
 * when this process has what they need: a refusal then has another reason, which the daemon gave. */
bool socket_access_mutate_hint(const char *path, char *buf, size_t len);

#endif
