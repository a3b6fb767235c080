#include "core/engine/compose.h"

#include <errno.h>
#include <string.h>

#include "backends/pmu/pmu_config.h"
#include "core/base/log.h"

/* Whether monitor = auto takes `ops`; when not, its reason is added to `why` ("name: reason; ..."). */
static bool monitor_wanted_by_auto(const struct composition *c, const struct monitor_ops *ops,
				   const struct config *config, struct err *why)
{
	struct err reason = { "" };

	if (ops->available(config, &c->shared, &reason))
		return true;
	size_t used = strlen(why->text);
	snprintf(why->text + used, sizeof(why->text) - used, "%s%s: %s", used ? "; " : "", ops->name, reason.text);
	return false;
}

/* monitor = auto: the first monitor of the table that can measure beside this control. When it cannot
 * be opened, control still works: bandwidth is then not measured, and the log says why. */
static const struct monitor_ops *auto_monitor(const struct engine_registry *r, const struct composition *c,
					      const struct config *config)
{
	struct err why = { "" };

	for (size_t i = 0; i < r->monitor_count; i++)
		if (monitor_wanted_by_auto(c, r->monitors[i], config, &why))
			return r->monitors[i];
	log_warning("no bandwidth counters (%s): bandwidth will not be measured", why.text);
	return NULL;
}

static int add_monitor(struct composition *c, const struct monitor_ops *ops, const struct config *config, bool required,
		       struct err *err)
{
	struct engine_monitor *m = &c->monitors[c->monitor_count];
	struct err why = { "" };
	int r = ops->open(config, &c->shared, &m->monitor, &why);

	if (r < 0 && required)
		return err_set(err, r, "%s", why.text);
	if (r < 0) {
		log_warning("monitor = auto: cannot read %s (%s); bandwidth will not be measured", ops->what, why.text);
		return 0;
	}
	m->ops = ops;
	ops->probe(m->monitor, &m->caps);
	m->first_domain = c->domain_count;
	for (unsigned d = 0; d < m->caps.domain_count && c->domain_count < ENGINE_MAX_DOMAINS; d++)
		c->domains[c->domain_count++] = (struct engine_domain){
			.name = m->caps.domains[d].name,
			.capacity_mbps = m->caps.domains[d].capacity_mbps,
			.counter_bits = m->caps.counter_bits,
			.counter_scale = m->caps.counter_scale,
			.id_space = m->caps.domains[d].id_space,
			.id = m->caps.domains[d].id,
		};
	c->monitor_count++;
	return 0;
}

static int open_monitors(const struct engine_registry *r, struct composition *c, const struct config *config,
			 struct err *err)
{
	bool automatic = !strcmp(config->global.monitor, "auto");
	const struct monitor_ops *ops =
		automatic ? auto_monitor(r, c, config) : engine_registry_monitor(r, config->global.monitor);

	if (!ops && !automatic)
		return err_set(err, -EOPNOTSUPP, "monitor %s is not available in this build", config->global.monitor);
	return ops ? add_monitor(c, ops, config, !automatic, err) : 0;
}

/* Each actuator the configuration wants; beside a simulated control, the simulator's stand-ins. */
static int open_actuators(const struct engine_registry *r, struct composition *c, const struct config *config,
			  struct err *err)
{
	for (size_t i = 0; i < r->actuator_count && c->actuator_count < ENGINE_MAX_ACTUATORS; i++) {
		const struct actuator_ops *ops = r->actuators[i];
		if ((!ops->any_control && ops->simulated != c->control_ops->simulated) ||
		    (ops->wanted && !ops->wanted(config)))
			continue;
		struct engine_actuator *a = &c->actuators[c->actuator_count];
		int ret = ops->open(config, &c->shared, &a->actuator, err);
		if (ret < 0)
			return ret;
		a->ops = ops;
		c->actuator_count++;
	}
	return 0;
}

/* The sampler that matches the control, unless [pmu] enabled = no. Without enabled = yes, a host with
 * nothing to count is a notice; with it, a warning. Either way control goes on without PMU counts. */
static void open_sampler(const struct engine_registry *r, struct composition *c, const struct config *config)
{
	const struct pmu_sampler_ops *ops = engine_registry_sampler(r, c->control_ops->simulated);
	const struct pmu_config *pc = pmu_config_of(config);
	struct err why = { "" };

	if (!ops || pmu_config_disabled(config))
		return;
	if (ops->open(config, &c->shared, &c->pmu.sampler, &why) < 0) {
		log_msg(pc->enabled == PMU_ENABLED_YES ? LOG_LEVEL_WARNING : LOG_LEVEL_INFO, "PMU counting is off: %s",
			why.text);
		return;
	}
	c->pmu.ops = ops;
}

static int monitor_claims(const struct monitor_ops *ops, const struct config *config, bool automatic,
			  const struct claim_sink *sink, struct err *err)
{
	return ops->claims ? ops->claims(config, automatic, sink, err) : 0;
}

int composition_claims(const struct engine_registry *r, const struct config *config, const struct claim_sink *sink,
		       struct err *err)
{
	const struct control_ops *control = engine_registry_control(r, config->global.backend);
	bool automatic = !strcmp(config->global.monitor, "auto");
	const struct monitor_ops *monitor = automatic ? NULL : engine_registry_monitor(r, config->global.monitor);
	int ret = 0;

	if (!control)
		return err_set(err, -EOPNOTSUPP, "backend %s is not available in this build", config->global.backend);
	if (!automatic && !monitor)
		return err_set(err, -EOPNOTSUPP, "monitor %s is not available in this build", config->global.monitor);
	if (control->simulated)
		return 0;
	if (control->claims)
		ret = control->claims(config, sink, err);
	if (monitor && ret == 0)
		ret = monitor_claims(monitor, config, false, sink, err);
	for (size_t i = 0; automatic && ret == 0 && i < r->monitor_count; i++)
		ret = monitor_claims(r->monitors[i], config, true, sink, err);
	return ret;
}

int composition_open(const struct engine_registry *r, const struct config *config, struct clock *clock,
		     struct composition *c, struct err *err)
{
	memset(c, 0, sizeof(*c));
	c->control_ops = engine_registry_control(r, config->global.backend);
	if (!c->control_ops)
		return err_set(err, -EOPNOTSUPP, "backend %s is not available in this build", config->global.backend);
	int ret = c->control_ops->open(config, clock, &c->control, err);
	if (ret < 0) {
		c->control_ops = NULL;
		return ret;
	}
	c->control_ops->probe(c->control, &c->caps);
	c->shared.clock = clock;
	c->control_ops->share(c->control, &c->shared);
	if ((ret = open_monitors(r, c, config, err)) == 0)
		ret = open_actuators(r, c, config, err);
	if (ret < 0)
		composition_close(c);
	else
		open_sampler(r, c, config);
	return ret;
}

void composition_close(struct composition *c)
{
	if (c->pmu.ops)
		c->pmu.ops->free(c->pmu.sampler);
	for (size_t i = 0; i < c->actuator_count; i++)
		c->actuators[i].ops->free(c->actuators[i].actuator);
	for (size_t i = 0; i < c->monitor_count; i++)
		c->monitors[i].ops->free(c->monitors[i].monitor);
	if (c->control_ops)
		c->control_ops->free(c->control);
	memset(c, 0, sizeof(*c));
}

int composition_control_domain(const struct composition *c, unsigned m)
{
	const struct engine_domain *md = &c->domains[m];

	for (unsigned d = 0; md->id_space && d < c->caps.domain_count; d++)
		if (c->caps.domains[d].id_space && !strcmp(c->caps.domains[d].id_space, md->id_space) &&
		    c->caps.domains[d].id == md->id)
			return (int)d;
	return c->caps.domain_count == 1 ? 0 : -1;
}

json_t *composition_describe(const struct composition *c)
{
	json_t *d = c->control_ops->describe(c->control);
	json_t *monitors = json_object();

	json_object_set_new(d, "backend", json_string(c->control_ops->name));
	json_object_set_new(d, "monitor", json_string(c->monitor_count ? c->monitors[0].ops->name : "none"));
	for (size_t i = 0; i < c->monitor_count; i++)
		json_object_set_new(monitors, c->monitors[i].ops->name,
				    c->monitors[i].ops->describe(c->monitors[i].monitor));
	json_object_set_new(d, "monitors", monitors);
	json_object_set_new(d, "pmu", c->pmu.ops ? c->pmu.ops->describe(c->pmu.sampler) : json_null());
	return d;
}

/* A partition with a guarantee keeps its counter where counters rotate: the guard judges it every
 * tick, and a shortfall seen a rotation late is a rotation of ticks short (policies/guard_estimates.c). */
static bool keeps_counter(const struct partition_config *p)
{
	return p->goals.guarantee_mbps > 0;
}

void composition_monitors_keep(struct composition *c, size_t index, const struct partition_config *p)
{
	for (size_t m = 0; m < c->monitor_count; m++) {
		const struct monitor_ops *ops = c->monitors[m].ops;
		struct err why = { "" };
		int r = ops->keep ? ops->keep(c->monitors[m].monitor, index, keeps_counter(p), &why) : 0;
		if (r < 0 && r != -ENOENT) /* ENOENT: not measured by this monitor (not open, or unmeasured) */
			log_warning("partition %s: its counter goes round with the others although it has a "
				    "guarantee: %s",
				    p->name, why.text);
	}
}

/* Partition `index` (`ref`) to every monitor. One the control says nothing can count by itself is
 * given to none (its samples are invalid with that reason: engine.c), so none counts its group's whole
 * as its own. */
static int monitors_add(struct composition *c, size_t index, const struct partition_ref *ref, struct err *err)
{
	int r = 0;

	for (size_t m = 0; r == 0 && !ref->unmeasured && m < c->monitor_count; m++)
		r = c->monitors[m].ops->add(c->monitors[m].monitor, index, ref, err);
	if (r == 0 && !ref->unmeasured)
		composition_monitors_keep(c, index, ref->config);
	return r;
}

int composition_remonitor(struct composition *c, size_t index, const struct partition_ref *ref, struct err *err)
{
	for (size_t m = 0; m < c->monitor_count; m++)
		c->monitors[m].ops->remove(c->monitors[m].monitor, index);
	return monitors_add(c, index, ref, err);
}

int composition_partition_open(struct composition *c, size_t index, const struct partition_config *p,
			       struct partition_ref *ret, struct err *err)
{
	int r = c->control_ops->partition_open(c->control, index, p, ret, err);

	if (r == 0)
		r = monitors_add(c, index, ret, err);
	for (size_t a = 0; r == 0 && a < c->actuator_count; a++)
		r = c->actuators[a].ops->partition_open(c->actuators[a].actuator, index, ret, err);
	return r;
}

/* The partition's control, monitors and actuators; not its PMU events, which follow its tasks and
 * cgroup (partition_ref.config) rather than anything the control made. */
static int close_hardware(struct composition *c, size_t index, bool remove, struct err *err)
{
	const struct control_ops *ops = c->control_ops;

	for (size_t m = 0; m < c->monitor_count; m++)
		c->monitors[m].ops->remove(c->monitors[m].monitor, index);
	for (size_t a = 0; a < c->actuator_count; a++)
		if (c->actuators[a].ops->partition_close)
			c->actuators[a].ops->partition_close(c->actuators[a].actuator, index);
	if (remove && ops->partition_remove)
		return ops->partition_remove(c->control, index, err);
	ops->partition_close(c->control, index);
	return 0;
}

int composition_partition_close(struct composition *c, size_t index, bool remove, struct err *err)
{
	if (c->pmu.ops && c->pmu.ops->remove)
		c->pmu.ops->remove(c->pmu.sampler, index);
	return close_hardware(c, index, remove, err);
}

int composition_partition_reopen(struct composition *c, size_t index, const struct partition_config *p,
				 struct partition_ref *ret, struct err *err)
{
	close_hardware(c, index, false, err);
	return composition_partition_open(c, index, p, ret, err);
}

int composition_recover(struct composition *c, struct err *err)
{
	return c->control_ops->recover ? c->control_ops->recover(c->control, err) : 0;
}

int composition_tidy(struct composition *c, const char *const *keep, size_t count, struct err *err)
{
	return c->control_ops->tidy ? c->control_ops->tidy(c->control, keep, count, err) : 0;
}

int composition_read(struct composition *c, uint64_t now_ns, struct sample *samples, struct err *err)
{
	int first = 0;

	for (size_t m = 0; m < c->monitor_count; m++) {
		struct engine_monitor *mon = &c->monitors[m];
		int r = mon->ops->read(mon->monitor, now_ns, &samples[mon->first_domain], c->domain_count, err);
		first = first ? first : r;
	}
	return first;
}

int composition_pmu_add(struct composition *c, size_t index, const struct partition_ref *ref, struct err *err)
{
	return c->pmu.ops ? c->pmu.ops->add(c->pmu.sampler, index, ref, err) : 0;
}

void composition_read_pmu(struct composition *c, uint64_t now_ns, struct pmu_sample *out, size_t count)
{
	struct err err = { "" };

	if (!c->pmu.ops || c->pmu.ops->read(c->pmu.sampler, now_ns, out, count, &err) < 0) {
		/* Not counted, without a reason of its own. */
		for (size_t i = 0; i < count; i++)
			out[i] = (struct pmu_sample){ .open = false };
		if (err.text[0])
			log_error("reading the PMU counters failed: %s", err.text);
	}
}

int composition_reconcile(struct composition *c, size_t index, struct err *err)
{
	int first = 0;

	for (size_t a = 0; a < c->actuator_count; a++) {
		struct engine_actuator *act = &c->actuators[a];
		struct err why = { "" };
		int r = act->ops->reconcile ? act->ops->reconcile(act->actuator, index, &why) : 0;
		if (r < 0 && !first)
			first = err_set(err, r, "%s", why.text);
	}
	return first;
}

void composition_task_event(struct composition *c, const struct task_event *ev)
{
	for (size_t a = 0; a < c->actuator_count; a++)
		if (c->actuators[a].ops->task_event)
			c->actuators[a].ops->task_event(c->actuators[a].actuator, ev);
}

const struct placement_status *composition_placement(const struct composition *c, size_t index)
{
	for (size_t a = 0; a < c->actuator_count; a++) {
		const struct engine_actuator *act = &c->actuators[a];
		const struct placement_status *st =
			act->ops->placement ? act->ops->placement(act->actuator, index) : NULL;
		if (st)
			return st;
	}
	return NULL;
}
