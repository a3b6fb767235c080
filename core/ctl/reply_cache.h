/* Encoded replies shared by every client within one generation of the daemon's state: status, list
 * and metrics are the same text for everyone until the next tick (or set, reload), so the first
 * request pays for the handler call and the encoding and the others copy its line. */
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

/* Answers `line` on behalf of `peer`, whose replies must be of generation *floor or a later one (the
 * generation when its request was read, or when it was last answered a command that may have changed
 * something): from the cache when it is a shared command and the entry's generation is not older,
 * else through ctl_request_handle and ctl_reply_encode (and kept when shared and ok). An entry is
 * labelled with the generation read before the handler was called, which the handler's state is at
 * least, so a reply is never older than what was current when its request came: N clients asking
 * while one reply is built all get that one, however many generations pass meanwhile. After any
 * other command *floor becomes the generation then. Returns 0 or -ENOMEM. */
int reply_cache_answer(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const char *line, size_t len, uint64_t *floor, struct reply_line *ret);

void reply_line_fini(struct reply_line *r);
void reply_cache_fini(struct reply_cache *cache);

#endif
