/* The control's pool. A partition refused for want of room (resctrl: no CLOSID or RMID left, ENOSPC)
 * cannot open until something frees room, so it is not tried again on a timer that would only repeat
 * the refusal (and on resctrl write it over info/last_cmd_status each time): it waits until a group is
 * removed here, a partition is removed, or a reload; engine_partition.c still tries it after the
 * longest pause, in case another tool freed room. */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_pool_internal.h"

/* The names of the partitions in use and of `also`'s (*ret malloc'ed: pointers into their configs). */
static const char **names_in_use(const struct engine *e, const struct config *also, size_t *ret_count)
{
	size_t extra = also ? also->partition_count : 0, count = 0;
	const char **names = malloc((e->slots.count + extra + 1) * sizeof(*names));

	if (!names)
		return NULL;
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used)
			names[count++] = e->slots.partitions[i].config->name;
	for (size_t i = 0; i < extra; i++)
		names[count++] = also->partitions[i].name;
	*ret_count = count;
	return names;
}

void engine_pool_tidy(struct engine *e, const struct config *also, uint64_t now_ns)
{
	struct err err = { "" };
	size_t count = 0;
	const char **names = names_in_use(e, also, &count);

	if (!names) {
		log_error("cannot tidy the %s pool: out of memory", e->hw.control_ops->name);
		return;
	}
	int r = composition_tidy(&e->hw, names, count, &err);
	free(names);
	if (err.text[0])
		log_error("%s", err.text);
	if (r > 0)
		engine_pool_room_freed(e, now_ns);
}

void engine_pool_room_freed(struct engine *e, uint64_t now_ns)
{
	for (size_t i = 0; i < e->slots.count; i++) {
		struct engine_partition *ep = &e->slots.partitions[i];
		if (ep->used && ep->failed && ep->no_room)
			ep->retry_ns = now_ns;
	}
}
