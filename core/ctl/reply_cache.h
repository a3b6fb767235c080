/* Encoded replies shared by every client within one generation of the daemon's state: status, list
 * and metrics are the same text for everyone until the next tick (or set, reload), so the first
 * request pays for the handler call and the encoding and the others take a reference to its line
 * (reply_buf.h): no copy, whatever the number of clients. */
#ifndef MPAMD_CORE_CTL_REPLY_CACHE_H
#define MPAMD_CORE_CTL_REPLY_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ctl/proto.h"
#include "core/ctl/reply_buf.h"

#define REPLY_CACHE_SLOTS 4 /* at least the number of shared commands */

struct reply_cache_entry {
	const struct ctl_command_info *cmd; /* NULL: free slot */
	uint64_t generation;
	struct reply_buf *line; /* a reference to the reply line, '\n' included */
};

struct reply_cache {
	struct reply_cache_entry entries[REPLY_CACHE_SLOTS];
	uint64_t encodings; /* replies encoded (for shared commands or not) */
	uint64_t hits;	    /* shared replies served from an entry */
};

/* Answers `line` on behalf of `peer`, whose replies must be of generation *floor or a later one (the
 * generation when its request was read, or when it was last answered a command that may have changed
 * something): from the cache when it is a shared command and the entry's generation is not older,
 * else through ctl_request_answer (and kept when shared and ok). An entry is labelled with the
 * generation read before the handler was called, which the handler's state is at least, so a reply
 * is never older than what was current when its request came: N clients asking while one reply is
 * built all get that one, however many generations pass meanwhile. After any other command *floor
 * becomes the generation then. *ret gets a reference to the reply line, the caller's to drop (a
 * cached line outlives its entry while someone holds it). Returns 0 or -ENOMEM. */
int reply_cache_answer(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const char *line, size_t len, uint64_t *floor, struct reply_buf **ret);

void reply_cache_fini(struct reply_cache *cache);

#endif
