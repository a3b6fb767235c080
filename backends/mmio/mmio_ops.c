/* backend = mmio: the MSC windows of the config's [msc] sections, mapped from /dev/mem. */
#include <errno.h>
#include <stdlib.h>

#include "backends/mmio/mmio_backend.h"

struct mmio_ops_backend {
	struct backend base;
	struct mmio_backend *mb;
};

static struct mmio_backend *mb_of(struct backend *b)
{
	return ((struct mmio_ops_backend *)b)->mb;
}

static int mmio_open(const struct config *config, struct clock *clock, struct backend **ret, struct err *err)
{
	size_t n = config->msc_count;
	struct msc_bus **buses = calloc(n ? n : 1, sizeof(*buses));
	const char **names = calloc(n ? n : 1, sizeof(*names));
	struct mmio_ops_backend *b = calloc(1, sizeof(*b));
	int r = 0;

	(void)clock;
	if (!buses || !names || !b)
		r = err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; r == 0 && i < n; i++)
		names[i] = config->mscs[i].name;
	if (r == 0)
		r = mmio_map_config_windows(config, n, buses, err);
	if (r == 0)
		r = mmio_backend_create(config, buses, names, n, false, &b->mb, err);
	free(buses);
	free(names);
	if (r < 0) {
		free(b);
		return r;
	}
	b->base.ops = &backend_mmio_ops;
	*ret = &b->base;
	return 0;
}

static void mmio_close(struct backend *b)
{
	if (!b)
		return;
	mmio_backend_destroy(mb_of(b));
	free(b);
}

static void mmio_caps(struct backend *b, struct backend_caps *ret)
{
	mmio_backend_caps(mb_of(b), ret);
}

static int mmio_partition_open(struct backend *b, size_t index, const struct partition_config *p, struct err *err)
{
	return mmio_backend_partition_open(mb_of(b), index, p, err);
}

static int mmio_apply(struct backend *b, size_t index, const struct partition_limits *limits,
		      struct partition_limits *effective, struct err *err)
{
	return mmio_backend_apply(mb_of(b), index, limits, effective, err);
}

static int mmio_read(struct backend *b, uint64_t now_ns, struct sample *samples, struct err *err)
{
	return mmio_backend_read(mb_of(b), now_ns, samples, err);
}

static json_t *mmio_describe(struct backend *b)
{
	return mmio_backend_describe(mb_of(b));
}

const struct backend_ops backend_mmio_ops = {
	.name = "mmio",
	.open = mmio_open,
	.close = mmio_close,
	.caps = mmio_caps,
	.partition_open = mmio_partition_open,
	.apply = mmio_apply,
	.read = mmio_read,
	.describe = mmio_describe,
};
