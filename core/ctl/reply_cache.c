#include "core/ctl/reply_cache.h"

#include <errno.h>

static struct reply_cache_entry *entry_find(struct reply_cache *cache, const struct ctl_command_info *cmd)
{
	struct reply_cache_entry *free_slot = NULL;

	for (size_t i = 0; i < REPLY_CACHE_SLOTS; i++) {
		if (cache->entries[i].cmd == cmd)
			return &cache->entries[i];
		if (!cache->entries[i].cmd && !free_slot)
			free_slot = &cache->entries[i];
	}
	return free_slot;
}

static int answer_fresh(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
			const struct ctl_command_info *cmd, const char *line, size_t len, struct reply_buf **ret)
{
	struct reply_buf *b = reply_buf_new();
	int r = b ? ctl_request_answer(handler, peer, cmd, line, len, &b->text) : -ENOMEM;

	if (r < 0) {
		reply_buf_unref(b);
		return r;
	}
	cache->encodings++;
	*ret = b;
	return 0;
}

/* The entry takes a reference to the fresh line, and drops the one it held. */
static void entry_keep(struct reply_cache_entry *e, const struct ctl_command_info *cmd, uint64_t generation,
		       struct reply_buf *fresh)
{
	reply_buf_unref(e->line);
	*e = (struct reply_cache_entry){ cmd, generation, reply_buf_ref(fresh) };
}

int reply_cache_answer(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const char *line, size_t len, uint64_t *floor, struct reply_buf **ret)
{
	bool writes = handler->list_text || handler->metrics_text;
	const struct ctl_command_info *cmd = handler->generation || writes ? ctl_request_shared(line, len) : NULL;
	struct reply_cache_entry *e = cmd && handler->generation ? entry_find(cache, cmd) : NULL;

	if (e && e->cmd == cmd && e->generation >= *floor && e->line) {
		cache->hits++;
		*ret = reply_buf_ref(e->line);
		return 0;
	}
	uint64_t generation = handler->generation ? handler->generation(handler->ctx) : 0;
	int r = answer_fresh(cache, handler, peer, cmd, line, len, ret);
	/* Only success is shared: an error may be the moment's (out of memory) and is cheap to make again. */
	if (r == 0 && e && ctl_reply_line_ok(reply_buf_data(*ret), reply_buf_len(*ret)))
		entry_keep(e, cmd, generation, *ret);
	/* A set or reload made a generation its own reply has: the client's next reply is of it or later. */
	if (!cmd && handler->generation) {
		uint64_t after = handler->generation(handler->ctx);
		*floor = after > *floor ? after : *floor;
	}
	return r;
}

void reply_cache_fini(struct reply_cache *cache)
{
	for (size_t i = 0; i < REPLY_CACHE_SLOTS; i++)
		reply_buf_unref(cache->entries[i].line);
	*cache = (struct reply_cache){ 0 };
}
