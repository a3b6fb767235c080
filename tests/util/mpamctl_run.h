/* mpamctl against a running daemon's control socket, as root or as an unprivileged user, for the
 * operator tests. */
#ifndef MPAMD_TESTS_MPAMCTL_RUN_H
#define MPAMD_TESTS_MPAMCTL_RUN_H

#include <jansson.h>

#include "tests/util/testutil.h"

/* MPAMCTL --socket SOCKET ARGS... (NULL-terminated, at most 16); as uid/gid 65534 through setpriv when
 * `setpriv_groups` is not NULL ("": no supplementary group, else --groups=LIST). One cmocka assertion
 * that it ran. */
struct run_result mpamctl_run_with(const char *mpamctl, const char *setpriv_groups, const char *socket_path,
				   const char *first, ...);
/* `MPAMCTL --socket SOCKET --json CMD [NAME]` as root, parsed; fails the test unless it exits 0 and
 * prints JSON. The caller releases it (json_decref). */
json_t *mpamctl_json_with(const char *mpamctl, const char *socket_path, const char *cmd, const char *name);

#ifdef MPAMCTL
/* The same with this build's mpamctl (the test program's MPAMCTL). */
#define mpamctl_run(...)  mpamctl_run_with(MPAMCTL, __VA_ARGS__)
#define mpamctl_json(...) mpamctl_json_with(MPAMCTL, __VA_ARGS__)
#endif

#endif
