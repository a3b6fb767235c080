/* What the control socket can ask of the engine: reports built as JSON here, sent elsewhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/epoll.h>

#include "core/base/counter.h"
#include "core/base/log.h"
#include "core/base/loop.h"
#include "core/config/config_json.h"
#include "core/ctl/ctl_server.h"
#include "core/ctl/proto.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"

/* Events a show reply carries at most (status: engine_snapshot.c). */
#define REPORT_EVENTS 20

static struct engine *engine_of(void *ctx)
{
	return ctx;
}

static json_t *ctl_list(void *ctx)
{
	return engine_snapshot_list(engine_of(ctx));
}

static json_t *ctl_status(void *ctx)
{
	return engine_snapshot_status(engine_of(ctx));
}

/* Where the partition lives in the hardware: its group, the id its traffic carries, what measures it,
 * the cache mask mpamd put in force. */
static void add_placement(const struct engine *e, size_t index, json_t *json)
{
	const struct engine_partition *ep = &e->slots.partitions[index];
	json_t *monitors = json_array();
	char mask[32];

	for (size_t m = 0; m < e->hw.monitor_count; m++)
		json_array_append_new(monitors, json_string(e->hw.monitors[m].ops->name));
	snprintf(mask, sizeof(mask), "0x%llx", (unsigned long long)ep->applied.l3_cbm);
	json_object_set_new(json, "control", json_string(e->hw.control_ops->name));
	json_object_set_new(json, "group", ep->ref.group ? json_string(ep->ref.group) : json_null());
	json_object_set_new(json, "hw_id", ep->ref.hw_id >= 0 ? json_integer(ep->ref.hw_id) : json_null());
	json_object_set_new(json, "monitors", monitors);
	json_object_set_new(json, "l3_cbm", ep->applied_once && ep->applied.l3_cbm ? json_string(mask) : json_null());
	json_object_set_new(json, "domains", engine_domain_rows(e, index, true));
	size_t tasks = 0;
	const struct control_ops *ops = e->hw.control_ops;
	bool counted =
		ops->partition_tasks && ep->status.open && ops->partition_tasks(e->hw.control, index, &tasks) == 0;
	json_object_set_new(json, "group_tasks", counted ? json_integer((json_int_t)tasks) : json_null());
	json_object_set_new(json, "placement", engine_place_detail_json(e, index));
}

static uint64_t ctl_generation(void *ctx)
{
	return engine_snapshot_generation(engine_of(ctx));
}

static json_t *ctl_show(void *ctx, const char *name, struct err *err)
{
	struct engine *e = engine_of(ctx);
	long i = engine_slot_by_name(e, name);

	if (i < 0) {
		err_set(err, -ENOENT, "no partition named '%s'", name);
		return NULL;
	}
	const struct partition_status *st = &e->slots.partitions[i].status;
	json_t *json = engine_partition_summary(e, (size_t)i);
	json_object_set_new(json, "smoothed_mbps", engine_json_mbps(st->smoothed_mbps > 0, st->smoothed_mbps));
	json_object_set_new(json, "bytes_total", json_integer((json_int_t)st->bytes_total));
	json_object_set_new(json, "cpu_quota_pct", engine_json_u32(st->cpu_quota_pct));
	if (engine_has_truth(e))
		json_object_set_new(json, "sim_mbps", json_real(st->truth_mbps));
	add_placement(e, (size_t)i, json);
	if (e->slots.partitions[i].config->goals.guarantee_mbps > 0) {
		const char *pending = engine_guarantees_pending(e);
		json_object_set_new(json, "guarantee", json_string(pending ? pending : "enforced"));
	}
	json_object_set_new(
		json, "config",
		partition_config_to_json(e->slots.partitions[i].gen->config, e->slots.partitions[i].config));
	json_object_set_new(json, "events", event_log_to_json(&e->events, name, REPORT_EVENTS));
	return json;
}

static json_t *ctl_metrics(void *ctx)
{
	return engine_metrics_reply(engine_of(ctx));
}

static json_t *ctl_set(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
		       size_t count, struct err *err)
{
	char who[64];
	json_t *result = NULL;

	snprintf(who, sizeof(who), "uid %u (pid %ld)", (unsigned)peer->uid, (long)peer->pid);
	return engine_set(engine_of(ctx), name, settings, count, who, &result, err) < 0 ? NULL : result;
}

static json_t *ctl_reload_report(void *ctx, json_t **ret_messages, struct err *err)
{
	return engine_reload_report(engine_of(ctx), ret_messages, err);
}

void engine_ctl_handler(struct engine *e, struct ctl_handler *ret)
{
	*ret = (struct ctl_handler){
		.ctx = e,
		.status = ctl_status,
		.list = ctl_list,
		.show = ctl_show,
		.metrics = ctl_metrics,
		.set = ctl_set,
		.reload_report = ctl_reload_report,
		.generation = ctl_generation,
	};
}

static void on_ctl_ready(void *ctx, int fd, uint32_t events)
{
	(void)fd;
	(void)events;
	/* The server never blocks; a client's trouble is that client's alone. */
	ctl_server_dispatch(ctx);
}

int engine_ctl_attach(struct engine *e, struct err *err)
{
	struct ctl_server_config cfg = { .path = e->opts.socket_path, .gid = (long)e->opts.socket_gid };

	if (!e->opts.socket_path)
		return 0;
	if (e->opts.socket_gid == (gid_t)-1)
		cfg.gid = -1;
	int r = ctl_server_new(&cfg, &e->ctl.handler, &e->ctl.server, err);
	if (r < 0)
		return r;
	r = loop_add(e->run.loop, ctl_server_fd(e->ctl.server), EPOLLIN, on_ctl_ready, e->ctl.server);
	if (r < 0) {
		ctl_server_free(e->ctl.server);
		e->ctl.server = NULL;
		return err_set(err, r, "control socket: %s", strerror(-r));
	}
	log_info("control socket %s", e->opts.socket_path);
	return 0;
}

void engine_ctl_detach(struct engine *e)
{
	if (!e->ctl.server)
		return;
	if (e->run.loop)
		loop_remove(e->run.loop, ctl_server_fd(e->ctl.server));
	ctl_server_free(e->ctl.server);
	e->ctl.server = NULL;
}
