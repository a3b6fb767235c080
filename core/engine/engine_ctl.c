/* What the control socket can ask of the engine, and on which thread. The server runs on a thread of
 * its own (core/ctl/ctl_thread.h). status, list and metrics are built there from the snapshot the
 * tick thread published last (engine_snapshot.h), so that neither building nor encoding nor writing
 * a reply holds up a tick. set and reload change the engine and show reads the control and the
 * configuration (show_on_tick says why it is not served from the snapshot): those are handed to the
 * tick thread, which runs them between ticks, publishes a new snapshot after a change, and wakes the
 * server's thread with the result; a reply after a set is of a snapshot that has it. The snapshot no
 * reply holds is taken again in its place (publish_in_place), under the lock a reply takes its
 * reference with: a reply asking then waits for that pass over the partitions, the tick never waits
 * for a reply, and a reply still building from the one before keeps it whole (a new one is taken). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/base/loop.h"
#include "core/config/config_json.h"
#include "core/ctl/ctl_server.h"
#include "core/ctl/ctl_thread.h"
#include "core/ctl/proto.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"

/* Events a show reply carries at most (status: engine_snapshot.c). */
#define REPORT_EVENTS 20

static struct engine *engine_of(void *ctx)
{
	return ctx;
}

/* ---- the published snapshot ---- */

/* The published snapshot taken again in its place when no reply holds it (one snapshot's memory, not
 * two): under the lock, since a reply takes its reference under it; a reply asking meanwhile waits
 * for the take. 0, or -EBUSY (none, or held, or too small: nothing changed). */
static int publish_in_place(struct engine *e)
{
	struct engine_snapshot *dropped = NULL;

	pthread_mutex_lock(&e->ctl.lock);
	int r = e->ctl.published ? engine_snapshot_retake(e, e->ctl.published) : -EBUSY;
	if (r == 0)
		e->ctl.published->sequence = ++e->ctl.publications;
	else if (r == -ENOMEM) {
		dropped = e->ctl.published;
		e->ctl.published = NULL;
	}
	pthread_mutex_unlock(&e->ctl.lock);
	if (dropped) {
		engine_snapshot_unref(dropped);
		log_error("control socket: out of memory: no replies until a snapshot is taken");
	}
	return r == -EBUSY ? -EBUSY : 0;
}

void engine_ctl_publish(struct engine *e)
{
	if (publish_in_place(e) == 0)
		return;
	struct engine_snapshot *s = engine_snapshot_take(e), *old;
	if (!s) {
		log_error("control socket: out of memory: replies show the state before");
		return;
	}
	pthread_mutex_lock(&e->ctl.lock);
	s->sequence = ++e->ctl.publications;
	old = e->ctl.published;
	e->ctl.published = s;
	pthread_mutex_unlock(&e->ctl.lock);
	engine_snapshot_unref(old); /* freed here, or by the last reply still reading it */
}

struct engine_snapshot *engine_ctl_published(struct engine *e)
{
	pthread_mutex_lock(&e->ctl.lock);
	struct engine_snapshot *s = e->ctl.published ? engine_snapshot_ref(e->ctl.published) : NULL;
	pthread_mutex_unlock(&e->ctl.lock);
	return s;
}

/* ---- read-only replies, on the server's thread ---- */

static json_t *from_published(void *ctx, json_t *(*build)(const struct engine_snapshot *s))
{
	struct engine_snapshot *s = engine_ctl_published(engine_of(ctx));
	json_t *json = s ? build(s) : NULL;

	engine_snapshot_unref(s);
	return json;
}

static json_t *ctl_list(void *ctx)
{
	return from_published(ctx, snapshot_list_json);
}

static json_t *ctl_status(void *ctx)
{
	return from_published(ctx, snapshot_status_json);
}

static json_t *ctl_metrics(void *ctx)
{
	return from_published(ctx, engine_metrics_reply);
}

static bool from_published_text(void *ctx, bool (*write)(const struct engine_snapshot *s, struct json_text *t),
				struct json_text *t)
{
	struct engine_snapshot *s = engine_ctl_published(engine_of(ctx));
	bool ok = s && write(s, t);

	engine_snapshot_unref(s);
	return ok;
}

static bool ctl_list_text(void *ctx, struct json_text *t)
{
	return from_published_text(ctx, snapshot_list_text, t);
}

static bool ctl_metrics_text(void *ctx, struct json_text *t)
{
	return from_published_text(ctx, engine_metrics_reply_text, t);
}

static uint64_t ctl_generation(void *ctx)
{
	struct engine *e = engine_of(ctx);

	pthread_mutex_lock(&e->ctl.lock);
	uint64_t generation = e->ctl.publications;
	pthread_mutex_unlock(&e->ctl.lock);
	return generation;
}

/* ---- calls handed to the tick thread ---- */

/* One request the tick thread answers: its arguments, then its result. */
struct engine_call {
	json_t *(*run)(struct engine *e, struct engine_call *c);
	bool changes;	  /* publish a snapshot after it */
	const char *who;  /* set: the peer, for the event log */
	const char *name; /* show, set */
	const char *const *settings;
	size_t count;
	bool persist;	       /* set --persist */
	json_t **ret_messages; /* reload */
	struct err *err;
	json_t *result;
	bool done;
};

/* On the server's thread: hands `c` to the tick thread and waits for it. A call is rare (set, reload,
 * show) and waits at most for the tick that runs, while replies already queued keep being written
 * by no one: the server's thread waits here, the tick thread never waits for it. */
static json_t *call_on_tick(struct engine *e, struct engine_call *c)
{
	uint64_t one = 1;

	pthread_mutex_lock(&e->ctl.lock);
	if (!e->ctl.calls_closed) {
		e->ctl.call = c;
		if (write(e->ctl.call_fd, &one, sizeof(one)) != sizeof(one))
			log_error("control socket: cannot wake the tick thread: %m");
	}
	while (!c->done && !e->ctl.calls_closed)
		pthread_cond_wait(&e->ctl.call_done, &e->ctl.lock);
	e->ctl.call = NULL;
	pthread_mutex_unlock(&e->ctl.lock);
	if (!c->done)
		err_set(c->err, -ESHUTDOWN, "mpamd is stopping");
	return c->done ? c->result : NULL;
}

/* On the tick thread, when the server's thread has handed over a call. */
static void on_call_ready(void *ctx, int fd, uint32_t events)
{
	struct engine *e = ctx;
	uint64_t count;

	(void)events;
	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		log_error("control socket: %m");
	pthread_mutex_lock(&e->ctl.lock);
	struct engine_call *c = e->ctl.call;
	pthread_mutex_unlock(&e->ctl.lock);
	if (!c || c->done)
		return;
	/* The server's thread waits on `c` under the lock's protocol: it reads nothing of it until done. */
	json_t *result = c->run(e, c);
	if (c->changes)
		engine_ctl_publish(e);
	pthread_mutex_lock(&e->ctl.lock);
	c->result = result;
	c->done = true;
	pthread_cond_broadcast(&e->ctl.call_done);
	pthread_mutex_unlock(&e->ctl.lock);
}

/* Where the partition lives in the hardware: its group, the id its traffic carries, what measures it,
 * the cache mask mpamd put in force. */
static void add_placement(const struct engine *e, const struct engine_snapshot *s, const struct snapshot_row *row,
			  json_t *json)
{
	size_t index = row->slot;
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
	json_object_set_new(json, "domains", snapshot_domain_rows_json(s, row, true));
	size_t tasks = 0;
	const struct control_ops *ops = e->hw.control_ops;
	bool counted =
		ops->partition_tasks && ep->status.open && ops->partition_tasks(e->hw.control, index, &tasks) == 0;
	json_object_set_new(json, "group_tasks", counted ? json_integer((json_int_t)tasks) : json_null());
	json_object_set_new(json, "placement", engine_place_detail_json(e, index));
}

/* The published snapshot's row (the engine as it is: the tick thread publishes after every change)
 * and what only the engine has: its group and tasks in the control, its configuration, its events.
 *
 * show runs here, on the tick thread, and not on the server's from the snapshot as status and list
 * do: group_tasks is a live read of the control (resctrl's tasks file of the partition's group,
 * counted when asked), and a control is driven from the tick thread alone: its groups, which a tick
 * makes again when they were removed outside mpamd and a reload reopens, have no lock. The
 * placement's detail, the configuration as JSON and the partition's events (the log keeps more than
 * a snapshot's newest) would have to be copied into every snapshot, at every tick and for every
 * partition, for a request that asks about one partition now and then. One show costs the tick one
 * partition's reply, between ticks. */
static json_t *show_on_tick(struct engine *e, const struct engine_snapshot *s, const char *name, struct err *err)
{
	const struct snapshot_row *row = s ? engine_snapshot_row(s, name) : NULL;

	if (!row) {
		err_set(err, -ENOENT, "no partition named '%s'", name);
		return NULL;
	}
	const struct partition_status *st = &row->status;
	const struct engine_partition *ep = &e->slots.partitions[row->slot];
	json_t *json = snapshot_row_json(s, row);
	json_object_set_new(json, "smoothed_mbps", engine_json_mbps(st->smoothed_mbps > 0, st->smoothed_mbps));
	json_object_set_new(json, "bytes_total", json_integer((json_int_t)st->bytes_total));
	json_object_set_new(json, "cpu_quota_pct", engine_json_u32(st->cpu_quota_pct));
	if (s->has_truth)
		json_object_set_new(json, "sim_mbps", json_real(st->truth_mbps));
	add_placement(e, s, row, json);
	if (row->guarantee_mbps > 0)
		json_object_set_new(json, "guarantee",
				    json_string(s->guarantees_pending ? s->guarantees_pending : "enforced"));
	json_object_set_new(json, "config", partition_config_to_json(ep->gen->config, ep->config));
	json_object_set_new(json, "events", event_log_to_json(&e->events, name, REPORT_EVENTS));
	return json;
}

static json_t *run_show(struct engine *e, struct engine_call *c)
{
	struct engine_snapshot *s = e->ctl.published; /* the tick thread's own: no reference needed */

	return show_on_tick(e, s, c->name, c->err);
}

static json_t *run_set(struct engine *e, struct engine_call *c)
{
	json_t *result = NULL;

	int r = c->persist ? engine_set_persist(e, c->name, c->settings, c->count, c->who, &result, c->err)
			   : engine_set(e, c->name, c->settings, c->count, c->who, &result, c->err);

	return r < 0 ? NULL : result;
}

static json_t *run_reload(struct engine *e, struct engine_call *c)
{
	return engine_reload_report(e, c->ret_messages, c->err);
}

static json_t *ctl_show(void *ctx, const char *name, struct err *err)
{
	struct engine_call c = { .run = run_show, .name = name, .err = err };

	return call_on_tick(engine_of(ctx), &c);
}

static json_t *call_set(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
			size_t count, bool persist, struct err *err)
{
	char who[64];
	struct engine_call c = { .run = run_set,
				 .changes = true,
				 .who = who,
				 .name = name,
				 .settings = settings,
				 .count = count,
				 .persist = persist,
				 .err = err };

	snprintf(who, sizeof(who), "uid %u (pid %ld)", (unsigned)peer->uid, (long)peer->pid);
	return call_on_tick(engine_of(ctx), &c);
}

static json_t *ctl_set(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
		       size_t count, struct err *err)
{
	return call_set(ctx, peer, name, settings, count, false, err);
}

static json_t *ctl_set_persist(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
			       size_t count, struct err *err)
{
	return call_set(ctx, peer, name, settings, count, true, err);
}

static json_t *ctl_reload_report(void *ctx, json_t **ret_messages, struct err *err)
{
	struct engine_call c = { .run = run_reload, .changes = true, .ret_messages = ret_messages, .err = err };

	return call_on_tick(engine_of(ctx), &c);
}

void engine_ctl_handler(struct engine *e, struct ctl_handler *ret)
{
	pthread_mutex_init(&e->ctl.lock, NULL);
	pthread_cond_init(&e->ctl.call_done, NULL);
	e->ctl.call_fd = -1;
	*ret = (struct ctl_handler){
		.ctx = e,
		.status = ctl_status,
		.list = ctl_list,
		.show = ctl_show,
		.metrics = ctl_metrics,
		.list_text = ctl_list_text,
		.metrics_text = ctl_metrics_text,
		.set = ctl_set,
		.set_persist = ctl_set_persist,
		.reload_report = ctl_reload_report,
		.generation = ctl_generation,
	};
}

/* ---- the server and its thread ---- */

static int attach_calls(struct engine *e, struct err *err)
{
	e->ctl.call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->ctl.call_fd < 0)
		return err_set(err, -errno, "control socket: eventfd: %s", strerror(errno));
	int r = loop_add(e->run.loop, e->ctl.call_fd, EPOLLIN, on_call_ready, e);
	if (r < 0)
		return err_set(err, r, "control socket: %s", strerror(-r));
	pthread_mutex_lock(&e->ctl.lock);
	e->ctl.calls_closed = false;
	pthread_mutex_unlock(&e->ctl.lock);
	return 0;
}

int engine_ctl_attach(struct engine *e, struct err *err)
{
	struct ctl_server_config cfg = { .path = e->opts.socket_path, .gid = (long)e->opts.socket_gid };

	engine_ctl_publish(e); /* replies before the first tick show the start */
	if (!e->opts.socket_path)
		return 0;
	if (e->opts.socket_gid == (gid_t)-1)
		cfg.gid = -1;
	int r = ctl_server_new(&cfg, &e->ctl.handler, &e->ctl.server, err);
	if (r == 0)
		r = attach_calls(e, err);
	if (r == 0)
		r = ctl_thread_start(e->ctl.server, &e->ctl.thread, err);
	if (r < 0) {
		engine_ctl_detach(e);
		return r;
	}
	log_info("control socket %s", e->opts.socket_path);
	return 0;
}

void engine_ctl_detach(struct engine *e)
{
	/* A call waiting now is refused: the tick thread runs no more of them. */
	pthread_mutex_lock(&e->ctl.lock);
	e->ctl.calls_closed = true;
	pthread_cond_broadcast(&e->ctl.call_done);
	pthread_mutex_unlock(&e->ctl.lock);
	ctl_thread_stop(e->ctl.thread);
	e->ctl.thread = NULL;
	if (e->ctl.call_fd >= 0) {
		if (e->run.loop)
			loop_remove(e->run.loop, e->ctl.call_fd);
		close(e->ctl.call_fd);
		e->ctl.call_fd = -1;
	}
	ctl_server_free(e->ctl.server);
	e->ctl.server = NULL;
	engine_snapshot_unref(e->ctl.published);
	e->ctl.published = NULL;
}
