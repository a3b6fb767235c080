/* The control protocol, without any I/O: one JSON request per line in, one JSON reply per line out.
 *
 * Request: {"cmd": "show", "name": "web"}; "version" is optional and, when present, must be
 * CTL_PROTOCOL_VERSION. Each command accepts exactly its own arguments:
 *   status | list | metrics | reload   no arguments
 *   show                               "name": string
 *   set                                "name": string, "settings": ["key=value", ...] (at least one),
 *                                      "persist": true or false (optional, false: mpamctl set --persist)
 * Reply: {"version": CTL_PROTOCOL_VERSION, "ok": true, "result": ...} or
 *        {"version": CTL_PROTOCOL_VERSION, "ok": false, "error": "what was wrong"}.
 * The transport (core/ctl_server.c) finds the lines, learns who the peer is and sends the replies;
 * the engine answers through struct ctl_handler (core/ctl.h). */
#ifndef MPAMD_CORE_PROTO_H
#define MPAMD_CORE_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/ctl/ctl.h"
#include "core/base/error.h"

enum ctl_privilege {
	CTL_READ_ONLY, /* any peer that can connect */
	CTL_MUTATING,  /* root, or a member of the socket's group when one was given */
};

/* Who sent a request, as the server learnt it from SO_PEERCRED and the peer's groups. */
struct ctl_peer {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	bool may_mutate;   /* uid 0, or the socket's group among the peer's gid and supplementary groups */
	const char *group; /* the group that may mutate, by name (or number), for refusals; NULL: none, root only */
};

struct ctl_command_info {
	const char *name;
	enum ctl_privilege privilege;
	/* The reply depends on the daemon's state alone (no arguments, any peer): while the handler's
	 * generation holds, one encoding may answer every client (status, list, metrics). */
	bool shared;
};

/* The command table's entry for `name`, or NULL. */
const struct ctl_command_info *ctl_command_find(const char *name);

/* The command of a request line that ctl_request_handle would answer with a shared reply: a
 * well-formed request for a `shared` command with no arguments and an acceptable version. NULL for
 * anything else, which then needs ctl_request_handle (and gets its error reply there). */
const struct ctl_command_info *ctl_request_shared(const char *line, size_t len);

/* Answers one request line of `len` bytes (its newline, if present, included; it is not required)
 * on behalf of `peer`, calling `handler`. Every problem becomes an error reply, so *ret_reply is
 * always set on success. Returns 0, or -ENOMEM when not even an error reply could be built. */
int ctl_request_handle(const struct ctl_handler *handler, const struct ctl_peer *peer, const char *line, size_t len,
		       json_t **ret_reply);

/* The reply to one request line, as ctl_reply_encode(ctl_request_handle(...)) writes it, appended to
 * `out`; `shared` is ctl_request_shared's answer for the line (NULL: not a shared command). A shared
 * command whose text the handler writes itself (list_text, metrics_text) is written from it, without
 * a jansson value. Returns 0, or -ENOMEM (`out` may then hold part of a line). */
int ctl_request_answer(const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const struct ctl_command_info *shared, const char *line, size_t len, struct json_text *out);

/* Whether an encoded reply line says ok (every reply line starts with its version and "ok"). */
bool ctl_reply_line_ok(const char *line, size_t len);

/* Replies made outside a handler (a line too long, too many clients). NULL on ENOMEM. */
json_t *ctl_reply_ok(json_t *result);
__attribute__((format(printf, 1, 2))) json_t *ctl_reply_error(const char *fmt, ...);

/* The reply as one compact line ending in '\n' (and NUL-terminated after it; *ret_len counts the
 * newline, not the NUL), malloc'ed. Returns 0 or -ENOMEM. */
int ctl_reply_encode(const json_t *reply, char **ret_line, size_t *ret_len);
/* The same line appended to `out`. 0 or -ENOMEM. */
int ctl_reply_encode_to(const json_t *reply, struct json_text *out);

/* Client side: the request line (with its '\n', malloc'ed) for `cmd` with its arguments: `name` for
 * show and set, `settings` for set; the others take neither. Returns 0, -EINVAL with err for an
 * unknown command or arguments it does not take (a setting without '=', a missing name), -ENOMEM. */
int ctl_request_build(const char *cmd, const char *name, const char *const *settings, size_t count, char **ret_line,
		      struct err *err);

/* Client side: the request line of a set, with "persist": true when `persist` (mpamctl set --persist).
 * As ctl_request_build. */
int ctl_request_build_set(const char *name, const char *const *settings, size_t count, bool persist, char **ret_line,
			  struct err *err);

/* Client side: checks one reply line. ok: returns 0 and the result (a new reference) in *ret_result.
 * Returns -EPROTO with err when the line is not a reply of this protocol version, and -EREMOTEIO
 * with err holding the daemon's message when the daemon refused the request; *ret_result then gets
 * the refusal's "messages" array (a new reference) when it has one (reload: each FILE:LINE finding),
 * and is left alone otherwise. */
int ctl_reply_check(const char *line, size_t len, json_t **ret_result, struct err *err);

#endif
