/* monitor = mmio: MPAM MBWU monitors over the MSC bus. The MSCs are the control's when it drives
 * some (backend = mmio, sim); beside resctrl (Arm hosts on Linux 7.1, whose resctrl has no bandwidth
 * counters) they are the [msc] windows, probed monitor-only: only monitor registers are written, for
 * the PARTID resctrl gave each group. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/mmio/kernel_mpam.h"
#include "backends/mmio/mbwu_monitor.h"
#include "backends/mmio/monitors.h"
#include "backends/mmio/msc_set.h"
#include "core/base/log.h"
#include "core/config/config.h"

#define MBWU_MONITOR "mmio"

/* The errors an MSC raised, as logged: a value once, and one that keeps coming back once a minute. */
struct esr_report {
	uint64_t esr;	  /* the last one logged */
	uint64_t at_ns;	  /* when */
	unsigned repeats; /* raised again since, not logged */
};

#define ESR_REPEAT_LOG_NS (60ull * 1000000000ull)

struct mbwu_monitor {
	struct monitor base;
	struct msc_set *set;
	bool owns_set;
	struct msc_monitors **mons; /* per MSC; NULL for an MSC without MBWU monitors */
	size_t *domain_msc;	    /* monitor domain -> MSC index */
	unsigned domain_count;
	struct esr_report *reported_esr; /* per MSC */
	size_t partitions;
};

static struct mbwu_monitor *mbwu_of(struct monitor *m)
{
	return (struct mbwu_monitor *)m;
}

/* The MSCs a control lends have passed its own check; the [msc] windows are mapped here, beside a
 * control that is not the MMIO driver (resctrl: the kernel's MPAM driver programs those MSCs). */
static int beside_kernel_check(const struct config *config, const struct control_shared *shared,
			       struct msc_probe_opts *access, struct err *err)
{
	return kernel_mpam_check(config, shared->resctrl != NULL, SYSFS_ROOT, KERNEL_MPAM_MONITORS, access, err);
}

static bool mbwu_available(const struct config *config, const struct control_shared *shared, struct err *why)
{
	struct kernel_mpam k;
	bool beside;

	if (shared->mscs)
		return true;
	if (config->msc_count == 0) {
		err_set(why, -ENODEV, "no [msc] sections are configured");
		return false;
	}
	kernel_mpam_detect(SYSFS_ROOT, shared->resctrl != NULL, &k);
	if (kernel_mpam_allow(config, &k, KERNEL_MPAM_MONITORS, &beside, NULL) == 0)
		return true;
	kernel_mpam_why_not(&k, KERNEL_MPAM_MONITORS, why);
	return false;
}

static void mbwu_free(struct monitor *m)
{
	struct mbwu_monitor *w = mbwu_of(m);

	if (!w)
		return;
	for (size_t i = 0; w->mons && i < w->set->count; i++)
		msc_monitors_free(w->mons[i]);
	if (w->owns_set)
		msc_set_free(w->set);
	free(w->mons);
	free(w->domain_msc);
	free(w->reported_esr);
	free(w);
}

/* The MSCs with MBWU monitors are this monitor's domains. */
static int make_domains(struct mbwu_monitor *w, struct err *err)
{
	for (size_t i = 0; i < w->set->count; i++) {
		struct msc *msc = &w->set->mscs[i];
		if (msc->caps.mon_ris < 0)
			continue;
		int r = msc_monitors_new(msc, w->partitions, &w->mons[i], err);
		if (r < 0) {
			err_prefix(err, "msc \"%s\"", msc->name);
			return r;
		}
		w->domain_msc[w->domain_count++] = i;
	}
	return 0;
}

static int mbwu_open(const struct config *config, const struct control_shared *shared, struct monitor **ret,
		     struct err *err)
{
	struct mbwu_monitor *w = calloc(1, sizeof(*w));
	int r = 0;

	if (!w)
		return err_set(err, -ENOMEM, "out of memory");
	w->base.ops = &monitor_mbwu_ops;
	w->partitions = config->partition_count;
	w->set = shared->mscs;
	/* Beside a control without MSCs of its own (resctrl), the controls are the kernel's: monitor-only. */
	if (!w->set) {
		struct msc_probe_opts access = { .monitor_only = true };
		w->owns_set = true;
		r = beside_kernel_check(config, shared, &access, err);
		if (r == 0)
			r = msc_set_new_from_config(config, &access, &w->set, err);
	}
	if (r == 0) {
		w->mons = calloc(w->set->count ? w->set->count : 1, sizeof(*w->mons));
		w->domain_msc = calloc(w->set->count ? w->set->count : 1, sizeof(*w->domain_msc));
		w->reported_esr = calloc(w->set->count ? w->set->count : 1, sizeof(*w->reported_esr));
		r = w->mons && w->domain_msc && w->reported_esr ? make_domains(w, err)
								: err_set(err, -ENOMEM, "out of memory");
	}
	if (r < 0) {
		mbwu_free(&w->base);
		return r;
	}
	*ret = &w->base;
	return 0;
}

static unsigned min_nonzero(unsigned a, unsigned b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

static void mbwu_probe(struct monitor *m, struct monitor_caps *caps)
{
	struct mbwu_monitor *w = mbwu_of(m);

	memset(caps, 0, sizeof(*caps));
	caps->domain_count = w->domain_count < MONITOR_MAX_DOMAINS ? w->domain_count : MONITOR_MAX_DOMAINS;
	for (unsigned d = 0; d < caps->domain_count; d++) {
		const struct msc *msc = &w->set->mscs[w->domain_msc[d]];
		const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mon_ris];
		snprintf(caps->domains[d].name, sizeof(caps->domains[d].name), "%s", msc->name);
		caps->domains[d].base = msc->bus->base;
		caps->domains[d].capacity_mbps = msc->capacity_mbps;
		caps->domains[d].id_space = DOMAIN_SPACE_MSC;
		caps->domains[d].id = (unsigned)w->domain_msc[d];
		caps->counters = min_nonzero(caps->counters, rc->num_mon);
		caps->counter_bits = rc->counter_bits;
		caps->counter_scale = msc_counter_unit_shift(msc, rc);
	}
}

/* The PARTID a partition's traffic carries: what the control says, else the partid key (beside
 * resctrl mounted without -o debug, which does not show ctrl_hw_id). */
static int partid_of(const struct partition_ref *ref, uint16_t *ret, struct err *err)
{
	if (ref->hw_id >= 0) {
		if (ref->group)
			log_info("partition %s: PARTID %ld from %s/ctrl_hw_id", ref->config->name, ref->hw_id,
				 ref->group);
		*ret = (uint16_t)ref->hw_id;
		return 0;
	}
	if (ref->config->has_partid) {
		log_info("partition %s: PARTID %u from the partid key (the control does not tell it; on resctrl, "
			 "mount with -o debug to have it from ctrl_hw_id)",
			 ref->config->name, ref->config->partid);
		*ret = ref->config->partid;
		return 0;
	}
	return err_set(err, -EINVAL,
		       "partition %s: no PARTID to monitor: mount resctrl with -o debug (ctrl_hw_id) or set partid",
		       ref->config->name);
}

static int mbwu_add(struct monitor *m, size_t index, const struct partition_ref *ref, struct err *err)
{
	struct mbwu_monitor *w = mbwu_of(m);
	uint16_t partid = 0;
	int r = partid_of(ref, &partid, err);

	if (r < 0)
		return r;
	for (size_t i = 0; i < w->set->count; i++)
		if (partid > w->set->mscs[i].caps.partid_max)
			return err_set(err, -ERANGE, "partid %u is above PARTID_MAX %u of msc \"%s\"", partid,
				       w->set->mscs[i].caps.partid_max, w->set->mscs[i].name);
	for (unsigned d = 0; d < w->domain_count; d++) {
		size_t i = w->domain_msc[d];
		if ((r = msc_monitors_add(w->mons[i], index, partid, err)) < 0) {
			err_prefix(err, "msc \"%s\"", w->set->mscs[i].name);
			return r;
		}
	}
	if (index >= w->partitions)
		w->partitions = index + 1; /* a slot added after the start: its samples are ours to write too */
	return 0;
}

static int mbwu_keep(struct monitor *m, size_t index, bool keep, struct err *err)
{
	struct mbwu_monitor *w = mbwu_of(m);
	int r = 0;

	for (unsigned d = 0; d < w->domain_count; d++) {
		size_t i = w->domain_msc[d];
		struct err why = { "" };
		int one = msc_monitors_keep(w->mons[i], index, keep, &why);
		if (one < 0 && r == 0) { /* the first failure says why; the other MSCs are still asked */
			r = one;
			err_set(err, one, "msc \"%s\": %s", w->set->mscs[i].name, why.text);
		}
	}
	return r;
}

static void mbwu_remove(struct monitor *m, size_t index)
{
	struct mbwu_monitor *w = mbwu_of(m);

	for (unsigned d = 0; d < w->domain_count; d++)
		msc_monitors_remove(w->mons[w->domain_msc[d]], index);
}

/* An MSC error means the driver (or someone) did something wrong: said loudly (a value once, one
 * that keeps coming back once a minute), and the samples of that MSC are invalid for the tick: a
 * count around an error cannot be trusted. On an MSC mpamd owns the error is then acknowledged, so
 * that measuring resumes and the next error is seen; beside resctrl or the kernel's driver the ESR
 * is theirs, and the samples stay invalid while it holds an error. */
static bool msc_in_error(struct mbwu_monitor *w, size_t i, uint64_t now_ns)
{
	struct esr_report *seen = &w->reported_esr[i];
	struct msc *msc = &w->set->mscs[i];
	uint64_t esr = 0;

	if (msc_read_esr(msc, &esr) < 0 || esr == 0)
		return false;
	bool acknowledged = msc_clear_esr(msc) == 0;
	if (esr == seen->esr && now_ns - seen->at_ns < ESR_REPEAT_LOG_NS) {
		seen->repeats++;
		return true;
	}
	char text[160];
	msc_describe_esr(esr, text, sizeof(text));
	log_error("msc \"%s\" reports an error: %s%s", msc->name, text,
		  acknowledged ? " (acknowledged; this tick's counts are not used)" : "");
	if (seen->repeats)
		log_error("msc \"%s\": %u more error(s) since the last one logged", msc->name, seen->repeats);
	*seen = (struct esr_report){ .esr = esr, .at_ns = now_ns };
	return true;
}

static int mbwu_read(struct monitor *m, uint64_t now_ns, struct sample *out, size_t stride, struct err *err)
{
	struct mbwu_monitor *w = mbwu_of(m);

	(void)err;
	msc_set_sync(w->set, now_ns);
	for (unsigned d = 0; d < w->domain_count; d++) {
		size_t i = w->domain_msc[d];
		msc_monitors_read(w->mons[i], now_ns, &out[d], stride);
		if (msc_in_error(w, i, now_ns))
			for (size_t p = 0; p < w->partitions; p++)
				out[p * stride + d] = (struct sample){ .state = SAMPLE_INVALID,
								       .reason = "MSC reported an error (ESR)" };
	}
	msc_set_after_read(w->set);
	return 0;
}

static json_t *mbwu_describe(struct monitor *m)
{
	struct mbwu_monitor *w = mbwu_of(m);
	json_t *d = json_pack("{s:b,s:b,s:o}", "monitor_only", w->set->access.monitor_only, "beside_kernel",
			      w->set->access.beside_kernel, "mscs", json_array());

	for (unsigned i = 0; i < w->domain_count; i++) {
		const struct msc *msc = &w->set->mscs[w->domain_msc[i]];
		const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mon_ris];
		json_array_append_new(json_object_get(d, "mscs"),
				      json_pack("{s:s,s:I,s:I,s:b}", "name", msc->name, "monitors",
						(json_int_t)rc->num_mon, "counter_bits", (json_int_t)rc->counter_bits,
						"rotating", msc_monitors_rotating(w->mons[w->domain_msc[i]])));
	}
	return d;
}

/* monitor = mmio beside resctrl reads the [msc] windows, so there must be some; and resctrl there is
 * the kernel's MPAM driver, beside which mpamd reads them only when told the risk is accepted. */
static void mbwu_check(struct config *c, struct diag_list *d)
{
	bool beside_resctrl = !strcmp(c->global.monitor, MBWU_MONITOR) && !strcmp(c->global.backend, "resctrl");

	if (beside_resctrl && c->msc_count == 0)
		diag_add(d, DIAG_ERROR, config_global_key_line(c, "monitor"),
			 "monitor = mmio needs at least one [msc \"NAME\"] section");
	else if (beside_resctrl && !c->global.mmio_beside_kernel)
		diag_add(d, DIAG_WARNING, config_global_key_line(c, "monitor"),
			 "monitor = mmio beside backend = resctrl is refused at start: the kernel's MPAM driver "
			 "selects the same monitors through MSMON_CFG_MON_SEL (use monitor = resctrl on Linux 7.3+, "
			 "or set mmio_beside_kernel = yes to accept the risk)");
}

static const struct config_ext mbwu_config_ext = {
	.name = "mmio monitor",
	.check = mbwu_check,
};

/* It maps the [msc] windows itself beside a control that lends no MSCs; beside one that lends them,
 * the control has claimed them. */
static int mbwu_claims(const struct config *config, bool automatic, const struct claim_sink *sink, struct err *err)
{
	(void)automatic;
	return msc_set_claim_windows(config, sink, err);
}

const struct monitor_ops monitor_mbwu_ops = {
	.name = MBWU_MONITOR,
	.what = "MSC monitors",
	.description = "MPAM MBWU monitors: the control's MSCs, or the [msc] windows",
	.config_ext = &mbwu_config_ext,
	.claims = mbwu_claims,
	.available = mbwu_available,
	.open = mbwu_open,
	.free = mbwu_free,
	.probe = mbwu_probe,
	.add = mbwu_add,
	.keep = mbwu_keep,
	.remove = mbwu_remove,
	.read = mbwu_read,
	.describe = mbwu_describe,
};
