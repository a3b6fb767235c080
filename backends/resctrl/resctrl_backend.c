/* backend = resctrl: one control group per partition under the resctrl root; bandwidth from
 * resctrl's MBM counters, or (Arm hosts on Linux 7.1, whose resctrl has none) from MPAM MBWU
 * monitors read over MMIO for each group's PARTID, touching monitor registers only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/mmio/mmio_backend.h"
#include "backends/resctrl/resctrl.h"
#include "backends/resctrl/resctrl_backend.h"
#include "core/config.h"
#include "core/log.h"

enum monitor_source {
	MON_NONE,
	MON_RESCTRL,
	MON_MMIO,
};

struct resctrl_backend {
	struct backend base;
	const struct config *config;
	int rootfd;
	struct resctrl_info info;
	enum monitor_source source;
	struct resctrl_group *groups; /* per partition; dirfd -1 when not open */
	struct resctrl_mon *mon;      /* MON_RESCTRL */
	struct mmio_backend *mmio;    /* MON_MMIO */
};

static struct resctrl_backend *rb_of(struct backend *b)
{
	return (struct resctrl_backend *)b;
}

static void rb_close(struct backend *b)
{
	struct resctrl_backend *rb = rb_of(b);

	if (!rb)
		return;
	resctrl_mon_free(rb->mon);
	mmio_backend_destroy(rb->mmio);
	for (size_t i = 0; rb->groups && i < rb->config->partition_count; i++)
		resctrl_group_close(&rb->groups[i]);
	free(rb->groups);
	if (rb->rootfd >= 0)
		close(rb->rootfd);
	free(rb);
}

static int choose_source(struct resctrl_backend *rb, size_t bus_count, struct err *err)
{
	bool mbm = rb->info.mbm_total || rb->info.mbm_local;

	switch (rb->config->global.monitor) {
	case MONITOR_RESCTRL:
		if (!mbm)
			return err_set(
				err, -EOPNOTSUPP,
				"monitor = resctrl, but resctrl has no bandwidth counters (no mbm_total_bytes or "
				"mbm_local_bytes in info/L3_MON/mon_features); use monitor = mmio with [msc] sections");
		rb->source = MON_RESCTRL;
		break;
	case MONITOR_MMIO:
		rb->source = MON_MMIO;
		break;
	case MONITOR_AUTO:
		rb->source = mbm ? MON_RESCTRL : (bus_count ? MON_MMIO : MON_NONE);
		break;
	}
	if (rb->source == MON_NONE)
		log_warning("resctrl has no bandwidth counters%s: bandwidth will not be measured",
			    rb->config->msc_count ? "" : " and no [msc] sections are configured");
	return 0;
}

static int open_monitors(struct resctrl_backend *rb, struct msc_bus **buses, size_t bus_count, struct err *err)
{
	size_t n = rb->config->partition_count;
	int r = 0;

	if (rb->source == MON_RESCTRL) {
		for (size_t i = 0; i < bus_count; i++)
			bus_close(buses[i]);
		return resctrl_mon_new(rb->rootfd, &rb->info,
				       rb->info.mbm_total ? "mbm_total_bytes" : "mbm_local_bytes", n, &rb->mon, err);
	}
	if (rb->source == MON_MMIO) {
		const char **names = calloc(bus_count ? bus_count : 1, sizeof(*names));
		if (!names) {
			for (size_t i = 0; i < bus_count; i++)
				bus_close(buses[i]);
			return err_set(err, -ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < bus_count; i++)
			names[i] = i < rb->config->msc_count ? rb->config->mscs[i].name : "msc";
		/* resctrl owns the controls: the MSC driver may touch monitor registers only. */
		r = mmio_backend_create(rb->config, buses, names, bus_count, true, &rb->mmio, err);
		free(names);
	}
	return r;
}

int resctrl_backend_open_with_buses(const struct config *config, struct msc_bus **buses, size_t bus_count,
				    struct backend **ret, struct err *err)
{
	struct resctrl_backend *rb = calloc(1, sizeof(*rb));
	const char *root = config->global.resctrl_root;
	int r;

	if (!rb) {
		for (size_t i = 0; i < bus_count; i++)
			bus_close(buses[i]);
		return err_set(err, -ENOMEM, "out of memory");
	}
	rb->base.ops = &backend_resctrl_ops;
	rb->config = config;
	rb->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rb->groups = calloc(config->partition_count ? config->partition_count : 1, sizeof(*rb->groups));
	for (size_t i = 0; rb->groups && i < config->partition_count; i++)
		rb->groups[i].dirfd = -1;
	if (rb->rootfd < 0)
		r = err_set(err, -errno, "cannot open resctrl root %s: %s%s", root, strerror(errno),
			    errno == ENOENT ? " (is resctrl mounted? mount -t resctrl resctrl /sys/fs/resctrl)" : "");
	else if (!rb->groups)
		r = err_set(err, -ENOMEM, "out of memory");
	else
		r = resctrl_probe(rb->rootfd, root, strcmp(root, DEFAULT_RESCTRL_ROOT) != 0, &rb->info, err);
	if (r == 0)
		r = choose_source(rb, bus_count, err);
	if (r == 0)
		r = open_monitors(rb, buses, bus_count, err);
	else
		for (size_t i = 0; i < bus_count; i++)
			bus_close(buses[i]);
	if (r < 0) {
		rb_close(&rb->base);
		return r;
	}
	*ret = &rb->base;
	return 0;
}

/* Whether resctrl at `root` offers MBM events (mon_features), without probing the rest. */
static bool resctrl_has_mbm(const char *root)
{
	char text[512];
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool mbm = fd >= 0 && resctrl_read_at(fd, "info/L3_MON/mon_features", text, sizeof(text)) == 0 &&
		   strstr(text, "mbm_") != NULL;

	if (fd >= 0)
		close(fd);
	return mbm;
}

static int rb_open(const struct config *config, struct clock *clock, struct backend **ret, struct err *err)
{
	bool mmio = config->global.monitor == MONITOR_MMIO || config->global.monitor == MONITOR_AUTO;
	size_t n = mmio ? config->msc_count : 0;
	struct msc_bus **buses = calloc(n ? n : 1, sizeof(*buses));
	int r = buses ? 0 : err_set(err, -ENOMEM, "out of memory");

	(void)clock;
	/* With monitor = auto the windows are only mapped if resctrl turns out to lack counters. */
	if (config->global.monitor == MONITOR_AUTO && n && resctrl_has_mbm(config->global.resctrl_root))
		n = 0;
	if (r == 0 && n && (r = mmio_map_config_windows(config, n, buses, err)) < 0 &&
	    config->global.monitor == MONITOR_AUTO) {
		/* auto only tries the MSCs: without them bandwidth is not measured, but control works. */
		log_warning("monitor = auto: cannot read MSC monitors (%s); bandwidth will not be measured",
			    err ? err->text : "");
		n = 0;
		r = 0;
	}
	if (r == 0)
		r = resctrl_backend_open_with_buses(config, buses, n, ret, err);
	free(buses);
	return r;
}

static void rb_caps(struct backend *b, struct backend_caps *caps)
{
	struct resctrl_backend *rb = rb_of(b);
	const struct resctrl_info *info = &rb->info;

	if (rb->source == MON_MMIO) {
		mmio_backend_caps(rb->mmio, caps);
	} else {
		memset(caps, 0, sizeof(*caps));
		caps->domain_count = rb->source == MON_RESCTRL ? info->mon_domain_count : 0;
		for (unsigned i = 0; i < caps->domain_count; i++) {
			snprintf(caps->domains[i].name, sizeof(caps->domains[i].name), "L3_%02u",
				 info->mon_domain_ids[i]);
			caps->domains[i].measures = true;
		}
		caps->counter_bits = 64;
		caps->monitors = rb->info.num_rmids;
	}
	caps->partitions_max = info->num_closids;
	caps->bw_gran_pct = info->mb_units == MB_PERCENT ? info->bandwidth_gran : 1;
	caps->bw_min_pct =
		info->mb_units == MB_PERCENT ? info->min_bandwidth : resctrl_mb_percent(info, info->min_bandwidth);
	caps->has_mb_min = false;
	caps->cbm_bits = info->l3.cbm_bits;
}

/* The PARTID whose MBWU traffic belongs to the group: resctrl tells it under the debug mount
 * option (ctrl_hw_id); otherwise the partition's partid key must say it. */
static int partid_for(const struct resctrl_group *g, const struct partition_config *p, uint16_t *ret, struct err *err)
{
	if (g->hw_id >= 0) {
		log_info("partition %s: PARTID %ld from %s/ctrl_hw_id", p->name, g->hw_id, g->name);
		*ret = (uint16_t)g->hw_id;
		return 0;
	}
	if (p->has_partid) {
		log_info("partition %s: PARTID %u from the partid key (resctrl mounted without -o debug)", p->name,
			 p->partid);
		*ret = p->partid;
		return 0;
	}
	return err_set(err, -EINVAL,
		       "partition %s: no PARTID to monitor: mount resctrl with -o debug (ctrl_hw_id) or set partid",
		       p->name);
}

static int open_partition_counters(struct resctrl_backend *rb, size_t index, const struct partition_config *p,
				   struct err *err)
{
	struct resctrl_group *g = &rb->groups[index];
	uint16_t partid = 0;
	int r = 0;

	if (rb->source == MON_RESCTRL)
		r = resctrl_mon_add(rb->mon, index, g, err);
	else if (rb->source == MON_MMIO && (r = partid_for(g, p, &partid, err)) == 0)
		r = mmio_backend_add_monitored(rb->mmio, index, partid, err);
	return r;
}

static int rb_partition_open(struct backend *b, size_t index, const struct partition_config *p, struct err *err)
{
	struct resctrl_backend *rb = rb_of(b);
	struct resctrl_group *g = &rb->groups[index];
	char name[sizeof(g->name)];
	int r;

	snprintf(name, sizeof(name), "%s%s", rb->config->global.group_prefix, p->name);
	if ((r = resctrl_group_open(rb->rootfd, name, g, err)) < 0)
		return r;
	log_info("partition %s: %s resctrl group %s", p->name, g->created ? "created" : "adopted", name);
	if (p->pid_count && (r = resctrl_group_add_tasks(rb->rootfd, g, p->pids, p->pid_count, err)) < 0)
		return r;
	if (p->cpus && (r = resctrl_group_set_cpus(rb->rootfd, g, p->cpus, err)) < 0)
		return r;
	return open_partition_counters(rb, index, p, err);
}

static int rb_apply(struct backend *b, size_t index, const struct partition_limits *limits,
		    struct partition_limits *effective, struct err *err)
{
	struct resctrl_backend *rb = rb_of(b);

	if (index >= rb->config->partition_count || rb->groups[index].dirfd < 0)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	if (limits->mb_min)
		log_debug("%s: resctrl has no minimum bandwidth control; mb_min is not applied",
			  rb->groups[index].name);
	return resctrl_group_apply(rb->rootfd, &rb->info, &rb->groups[index], limits, effective, err);
}

static int rb_read(struct backend *b, uint64_t now_ns, struct sample *samples, struct err *err)
{
	struct resctrl_backend *rb = rb_of(b);

	if (rb->source == MON_RESCTRL)
		resctrl_mon_read(rb->mon, now_ns, samples);
	else if (rb->source == MON_MMIO)
		return mmio_backend_read(rb->mmio, now_ns, samples, err);
	return 0;
}

static json_t *rb_describe(struct backend *b)
{
	struct resctrl_backend *rb = rb_of(b);
	json_t *d = resctrl_info_to_json(&rb->info, rb->config->global.resctrl_root);
	static const char *const sources[] = { "none", "resctrl", "mmio" };

	json_object_set_new(d, "monitor", json_string(sources[rb->source]));
	if (rb->mmio)
		json_object_set_new(d, "mmio_monitors", mmio_backend_describe(rb->mmio));
	return d;
}

json_t *resctrl_describe_root(const char *root, struct err *err)
{
	struct resctrl_info info;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		err_set(err, -errno, "cannot open %s: %s", root, strerror(errno));
		return NULL;
	}
	int r = resctrl_probe(fd, root, strcmp(root, DEFAULT_RESCTRL_ROOT) != 0, &info, err);
	close(fd);
	return r < 0 ? NULL : resctrl_info_to_json(&info, root);
}

const struct backend_ops backend_resctrl_ops = {
	.name = "resctrl",
	.open = rb_open,
	.close = rb_close,
	.caps = rb_caps,
	.partition_open = rb_partition_open,
	.apply = rb_apply,
	.read = rb_read,
	.describe = rb_describe,
};
