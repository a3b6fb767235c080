/* Encoded replies shared by every client within one generation of the daemon's state: status and
 * list are the same text for everyone until the next tick (or set, reload), so the first request
 * pays for the handler call and the encoding and the others copy its line. */
#ifndef MPAMD_CORE_CTL_REPLY_CACHE_H
#define MPAMD_CORE_CTL_REPLY_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ctl/proto.h"

#define REPLY_CACHE_SLOTS 4 /* at least the number of shared commands */

struct reply_cache_entry {
	const struct ctl_command_info *cmd; /* NULL: free slot */
	uint64_t generation;
	char *line; /* the reply line, '\n' included */
	size_t len;
};

struct reply_cache {
	struct reply_cache_entry entries[REPLY_CACHE_SLOTS];
	uint64_t encodings; /* replies encoded (for shared commands or not) */
	uint64_t hits;	    /* shared replies served from an entry */
};

/* A reply line, either the cache's (valid until the next call) or the caller's to free. */
struct reply_line {
	const char *text;
	size_t len;
	char *owned; /* what to free, or NULL */
};

/* Answers `line` on behalf of `peer`: from the cache when it is a shared command and the handler has
 * a generation that has not changed since the entry was made, else through ctl_request_handle and
 * ctl_reply_encode (and kept when shared and ok). Returns 0 or -ENOMEM. */
int reply_cache_answer(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const char *line, size_t len, struct reply_line *ret);

void reply_line_fini(struct reply_line *r);
void reply_cache_fini(struct reply_cache *cache);

#endif
