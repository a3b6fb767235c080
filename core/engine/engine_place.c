/* Placement's side of the engine: the proc connector's socket on the loop (each task the kernel
 * reports goes to the actuators that place, so a new thread lands in its group at once), and the
 * reconcile every reconcile_ms, counted in ticks, which catches what events missed and follows VMs
 * (engine_vms.c). Events queued before a tick are handled at its start, so "placed within one tick"
 * holds however late the loop gets to the socket. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "backends/cgroup/proc_connector.h"
#include "core/base/log.h"
#include "core/base/loop.h"
#include "core/engine/engine_internal.h"

/* Whether anything names tasks: a partition's cgroup, vm or pids, or a template for VMs. */
static bool wanted(const struct engine *e)
{
	if (e->gens.config->template_count)
		return true;
	for (size_t i = 0; i < e->slots.count; i++) {
		const struct engine_partition *ep = &e->slots.partitions[i];
		if (ep->used && (ep->config->cgroup || ep->config->vm || ep->config->pid_count))
			return true;
	}
	return false;
}

static void on_event(void *ctx, const struct task_event *ev)
{
	struct engine *e = ctx;

	e->place.events++;
	composition_task_event(&e->hw, ev);
}

static void connector_close(struct engine *e)
{
	if (!e->place.connector)
		return;
	if (e->run.loop)
		loop_remove(e->run.loop, proc_connector_fd(e->place.connector));
	proc_connector_free(e->place.connector);
	e->place.connector = NULL;
}

static void drain(struct engine *e)
{
	struct err err = { "" };
	bool lost = false;

	if (!e->place.connector)
		return;
	if (proc_connector_drain(e->place.connector, on_event, e, &lost, &err) < 0) {
		/* A socket in error stays readable: closed, or the loop would spin on it. */
		log_warning("%s: new threads are placed at the next reconcile from now on", err.text);
		connector_close(e);
		snprintf(e->place.why, sizeof(e->place.why), "%s", err.text);
		e->place.soon = true;
		return;
	}
	if (!lost)
		return;
	if (!e->place.lost++)
		log_warning("proc connector: the kernel dropped events (mpamd fell behind); every partition is "
			    "reconciled at the next tick (said once; status counts them)");
	e->place.soon = true;
}

static void on_socket(void *ctx, int fd, uint32_t events)
{
	(void)fd;
	(void)events;
	drain(ctx);
}

#define CONNECTOR_OFF "proc_connector = no"

/* The socket goes on the loop once the loop runs; a connector that cannot be opened is said once. */
static void connector_open(struct engine *e)
{
	struct err err = { "" };

	if (e->place.connector || e->place.why[0] || !e->run.loop)
		return;
	int r = proc_connector_open(PROC_CONNECTOR_RCVBUF, &e->place.connector, &err);
	if (r == 0 && (r = loop_add(e->run.loop, proc_connector_fd(e->place.connector), EPOLLIN, on_socket, e)) < 0)
		err_set(&err, r, "proc connector: cannot watch its socket: %s", strerror(-r));
	if (r < 0) {
		connector_close(e);
		snprintf(e->place.why, sizeof(e->place.why), "%s", err.text);
		log_warning("%s: new threads are placed at the next reconcile, every %u ms", err.text,
			    e->gens.config->global.reconcile_ms);
		return;
	}
	log_info("proc connector: new threads are placed as they start");
	e->place.soon = true; /* what started between the partitions' opening and now */
}

void engine_place_update(struct engine *e)
{
	bool off = !e->gens.config->global.proc_connector;

	if (off) {
		if (e->place.connector)
			log_info("proc_connector = no: new threads are placed at the next reconcile");
		connector_close(e);
		snprintf(e->place.why, sizeof(e->place.why), CONNECTOR_OFF);
		return;
	}
	if (!strcmp(e->place.why, CONNECTOR_OFF))
		e->place.why[0] = '\0'; /* turned on by a reload */
	if (!e->hw.shared.placer) {	/* events would change nothing */
		snprintf(e->place.why, sizeof(e->place.why), "backend = %s cannot place tasks",
			 e->hw.control_ops->name);
		return;
	}
	if (wanted(e))
		connector_open(e);
	else
		connector_close(e);
}

void engine_place_stop(struct engine *e)
{
	connector_close(e);
	e->place.why[0] = '\0';
}

/* reconcile_ms in whole ticks, at least one. */
static uint64_t period_ticks(const struct engine *e)
{
	unsigned interval = e->gens.config->global.interval_ms ? e->gens.config->global.interval_ms : 1;
	uint64_t ticks = (e->gens.config->global.reconcile_ms + interval - 1) / interval;

	return ticks ? ticks : 1;
}

static void reconcile_all(struct engine *e)
{
	engine_vms_sync(e);
	for (size_t i = 0; i < e->slots.count; i++) {
		struct engine_partition *ep = &e->slots.partitions[i];
		struct err err = { "" };
		if (ep->used && ep->status.open && composition_reconcile(&e->hw, i, &err) < 0)
			log_error("partition %s: placing its threads: %s", ep->config->name, err.text);
	}
	e->place.reconciles++;
}

void engine_place_tick(struct engine *e)
{
	uint64_t tick = e->ticks.done + 1; /* the one beginning */

	drain(e);
	if (!e->place.soon && tick % period_ticks(e) != 0)
		return;
	e->place.soon = false;
	reconcile_all(e);
}

json_t *engine_place_detail_json(const struct engine *e, size_t index)
{
	const struct placement_status *st =
		e->slots.partitions[index].status.open ? composition_placement(&e->hw, index) : NULL;

	if (!st)
		return json_null();
	return json_pack("{s:s,s:b,s:b,s:I,s:I,s:I,s:o}", "source", st->source, "found", st->found, "places",
			 st->places, "tasks", (json_int_t)st->tasks, "placements", (json_int_t)st->placements, "misses",
			 (json_int_t)st->misses, "reason", st->reason[0] ? json_string(st->reason) : json_null());
}
