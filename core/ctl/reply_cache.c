#include "core/ctl/reply_cache.h"

#include <errno.h>
#include <stdlib.h>

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

/* Only success is shared: an error may be the moment's (out of memory) and is cheap to make again. */
static bool reply_is_ok(const json_t *reply)
{
	return json_is_true(json_object_get(reply, "ok"));
}

static int answer_fresh(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
			const char *line, size_t len, struct reply_line *ret, bool *ok)
{
	json_t *reply;
	char *text;
	size_t n;
	int r = ctl_request_handle(handler, peer, line, len, &reply);

	if (r < 0)
		return r;
	*ok = reply_is_ok(reply);
	r = ctl_reply_encode(reply, &text, &n);
	json_decref(reply);
	if (r < 0)
		return r;
	cache->encodings++;
	*ret = (struct reply_line){ text, n, text };
	return 0;
}

/* The entry takes the fresh line; the caller then reads it from the entry. */
static void entry_keep(struct reply_cache_entry *e, const struct ctl_command_info *cmd, uint64_t generation,
		       struct reply_line *fresh)
{
	free(e->line);
	*e = (struct reply_cache_entry){ cmd, generation, fresh->owned, fresh->len };
	fresh->owned = NULL;
}

int reply_cache_answer(struct reply_cache *cache, const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const char *line, size_t len, uint64_t *floor, struct reply_line *ret)
{
	const struct ctl_command_info *cmd = handler->generation ? ctl_request_shared(line, len) : NULL;
	struct reply_cache_entry *e = cmd ? entry_find(cache, cmd) : NULL;
	bool ok = false;

	if (e && e->cmd == cmd && e->generation >= *floor && e->line) {
		cache->hits++;
		*ret = (struct reply_line){ e->line, e->len, NULL };
		return 0;
	}
	uint64_t generation = handler->generation ? handler->generation(handler->ctx) : 0;
	int r = answer_fresh(cache, handler, peer, line, len, ret, &ok);
	if (r == 0 && e && ok)
		entry_keep(e, cmd, generation, ret);
	/* A set or reload made a generation its own reply has: the client's next reply is of it or later. */
	if (!cmd && handler->generation) {
		uint64_t after = handler->generation(handler->ctx);
		*floor = after > *floor ? after : *floor;
	}
	return r;
}

void reply_line_fini(struct reply_line *r)
{
	free(r->owned);
	*r = (struct reply_line){ 0 };
}

void reply_cache_fini(struct reply_cache *cache)
{
	for (size_t i = 0; i < REPLY_CACHE_SLOTS; i++)
		free(cache->entries[i].line);
	*cache = (struct reply_cache){ 0 };
}
