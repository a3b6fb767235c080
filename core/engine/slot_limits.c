/* A slot's limits in room sized to the host's domains (slot_limits.h). */
#include "core/engine/slot_limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The room is [a's ceilings][a's minimums][b's ceilings][b's minimums], `domains` each. */
static void point_into(double *room, unsigned domains, struct slot_limits *a, struct slot_limits *b)
{
	a->mb_max_at = room;
	a->mb_min_at = room ? room + domains : NULL;
	b->mb_max_at = room ? room + 2 * (size_t)domains : NULL;
	b->mb_min_at = room ? room + 3 * (size_t)domains : NULL;
}

int slot_limits_room(double **room, unsigned *room_domains, unsigned domains, struct slot_limits *a,
		     struct slot_limits *b)
{
	if (*room_domains == domains && (*room || !domains))
		return 0;
	free(*room);
	*room = NULL;
	*room_domains = 0;
	a->domain_count = b->domain_count = 0;
	point_into(NULL, 0, a, b);
	if (!domains)
		return 1;
	if (!(*room = calloc(4 * (size_t)domains, sizeof(**room))))
		return -ENOMEM;
	*room_domains = domains;
	point_into(*room, domains, a, b);
	return 1;
}

void slot_limits_keep(struct slot_limits *kept, unsigned room_domains, const struct partition_limits *l)
{
	unsigned n = l->domain_count < room_domains ? l->domain_count : room_domains;

	kept->mb_max = l->mb_max;
	kept->mb_min = l->mb_min;
	kept->l3_cbm = l->l3_cbm;
	kept->mb_mbps = l->mb_mbps;
	kept->domain_count = n;
	if (!n)
		return;
	memcpy(kept->mb_max_at, l->mb_max_at, n * sizeof(*kept->mb_max_at));
	memcpy(kept->mb_min_at, l->mb_min_at, n * sizeof(*kept->mb_min_at));
}

const struct partition_limits *slot_limits_load(const struct slot_limits *kept, struct partition_limits *ret)
{
	ret->mb_max = kept->mb_max;
	ret->mb_min = kept->mb_min;
	ret->l3_cbm = kept->l3_cbm;
	ret->mb_mbps = kept->mb_mbps;
	ret->domain_count = kept->domain_count;
	ret->changed_outside = false;
	if (kept->domain_count) {
		memcpy(ret->mb_max_at, kept->mb_max_at, kept->domain_count * sizeof(*ret->mb_max_at));
		memcpy(ret->mb_min_at, kept->mb_min_at, kept->domain_count * sizeof(*ret->mb_min_at));
	}
	return ret;
}
