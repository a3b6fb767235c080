#include "backends/mmio/mmio_backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/mmio/monitors.h"
#include "backends/mmio/msc.h"
#include "core/log.h"
#include "core/mpam_regs.h"

#define DEVMEM_PATH "/dev/mem"

int mmio_map_config_windows(const struct config *config, size_t count, struct msc_bus **buses, struct err *err)
{
	for (size_t i = 0; i < count; i++) {
		const struct msc_config *m = &config->mscs[i];
		int r = bus_devmem_open(DEVMEM_PATH, m->base, m->size, &buses[i], err ? err->text : NULL,
					err ? sizeof(err->text) : 0);
		if (r < 0) {
			err_prefix(err, "msc \"%s\"", m->name);
			for (size_t j = 0; j < i; j++)
				bus_close(buses[j]);
			return r;
		}
	}
	return 0;
}

struct mmio_backend {
	struct msc *mscs;
	struct msc_monitors **monitors; /* NULL for an MSC without monitors */
	size_t msc_count;
	const struct partition_config **partitions; /* open ones; NULL otherwise */
	size_t partition_count;
	uint64_t *reported_esr; /* last ESR logged per MSC, so a stuck error is logged once */
};

void mmio_backend_destroy(struct mmio_backend *mb)
{
	if (!mb)
		return;
	for (size_t i = 0; i < mb->msc_count; i++) {
		msc_monitors_free(mb->monitors ? mb->monitors[i] : NULL);
		bus_close(mb->mscs[i].bus);
	}
	free(mb->mscs);
	free(mb->monitors);
	free(mb->partitions);
	free(mb->reported_esr);
	free(mb);
}

static int probe_one(struct mmio_backend *mb, size_t i, bool monitor_only, struct err *err)
{
	struct msc *msc = &mb->mscs[i];
	int r = msc_probe(msc->bus, monitor_only, &msc->caps, err);

	if (r < 0) {
		err_prefix(err, "msc \"%s\" at 0x%llx", msc->name, (unsigned long long)msc->bus->base);
		return r;
	}
	if (msc->caps.stale_esr) {
		char text[160];
		msc_describe_esr(msc->caps.stale_esr, text, sizeof(text));
		log_warning("msc \"%s\": error status left by an earlier user: %s%s", msc->name, text,
			    monitor_only ? "" : " (cleared)");
	}
	if (msc->caps.mon_ris >= 0) {
		r = msc_monitors_new(msc, mb->partition_count, &mb->monitors[i], err);
		if (r < 0)
			err_prefix(err, "msc \"%s\"", msc->name);
	}
	return r;
}

int mmio_backend_create(const struct config *config, struct msc_bus **buses, const char *const *names, size_t count,
			bool monitor_only, struct mmio_backend **ret, struct err *err)
{
	struct mmio_backend *mb = calloc(1, sizeof(*mb));
	int r = 0;

	if (mb) {
		mb->mscs = calloc(count ? count : 1, sizeof(*mb->mscs));
		mb->monitors = calloc(count ? count : 1, sizeof(*mb->monitors));
		mb->reported_esr = calloc(count ? count : 1, sizeof(*mb->reported_esr));
		mb->partitions = calloc(config->partition_count ? config->partition_count : 1, sizeof(*mb->partitions));
	}
	if (!mb || !mb->mscs || !mb->monitors || !mb->partitions || !mb->reported_esr) {
		for (size_t i = 0; i < count; i++)
			bus_close(buses[i]);
		mmio_backend_destroy(mb);
		return err_set(err, -ENOMEM, "out of memory");
	}
	mb->msc_count = count;
	mb->partition_count = config->partition_count;
	for (size_t i = 0; i < count; i++) {
		mb->mscs[i].bus = buses[i];
		mb->mscs[i].monitor_only = monitor_only;
		snprintf(mb->mscs[i].name, sizeof(mb->mscs[i].name), "%s", names[i]);
	}
	for (size_t i = 0; i < count && r == 0; i++)
		r = probe_one(mb, i, monitor_only, err);
	if (r < 0) {
		mmio_backend_destroy(mb);
		return r;
	}
	*ret = mb;
	return 0;
}

static unsigned min_nonzero(unsigned a, unsigned b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

void mmio_backend_caps(struct mmio_backend *mb, struct backend_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->domain_count = (unsigned)(mb->msc_count < BACKEND_MAX_DOMAINS ? mb->msc_count : BACKEND_MAX_DOMAINS);
	caps->partitions_max = 65536;
	caps->pmgs = 256;
	for (unsigned i = 0; i < caps->domain_count; i++) {
		const struct msc *msc = &mb->mscs[i];
		struct backend_domain_caps *d = &caps->domains[i];
		snprintf(d->name, sizeof(d->name), "%s", msc->name);
		d->base = msc->bus->base;
		d->measures = msc->caps.mon_ris >= 0;
		caps->partitions_max = min_nonzero(caps->partitions_max, msc->caps.partid_max + 1u);
		caps->pmgs = min_nonzero(caps->pmgs, msc->caps.pmg_max + 1u);
		if (msc->caps.mbw_ris >= 0) {
			const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mbw_ris];
			/* Limits must be valid on every MSC: take the coarsest steps and the highest floor. */
			unsigned gran = mpam_bandwidth_gran_percent(rc->bwa_wd);
			unsigned floor = mpam_min_bandwidth_percent(rc->bwa_wd);
			caps->bw_gran_pct = gran > caps->bw_gran_pct ? gran : caps->bw_gran_pct;
			caps->bw_min_pct = floor > caps->bw_min_pct ? floor : caps->bw_min_pct;
			caps->has_mb_min = caps->has_mb_min || rc->has_min;
		}
		for (unsigned r = 0; r < msc->caps.ris_count; r++)
			caps->cbm_bits = min_nonzero(caps->cbm_bits, msc->caps.ris[r].cpbm_wd);
		if (msc->caps.mon_ris >= 0) {
			const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mon_ris];
			caps->monitors = min_nonzero(caps->monitors, rc->num_mon);
			caps->counter_bits = rc->counter_bits;
			caps->counter_scale = rc->has_long ? 0 : rc->scale;
		}
	}
}

int mmio_backend_add_monitored(struct mmio_backend *mb, size_t index, uint16_t partid, struct err *err)
{
	if (index >= mb->partition_count)
		return err_set(err, -EINVAL, "partition index %zu out of range", index);
	for (size_t i = 0; i < mb->msc_count; i++) {
		if (partid > mb->mscs[i].caps.partid_max)
			return err_set(err, -ERANGE, "partid %u is above PARTID_MAX %u of msc \"%s\"", partid,
				       mb->mscs[i].caps.partid_max, mb->mscs[i].name);
	}
	for (size_t i = 0; i < mb->msc_count; i++) {
		int r = mb->monitors[i] ? msc_monitors_add(mb->monitors[i], index, partid, err) : 0;
		if (r < 0) {
			err_prefix(err, "msc \"%s\"", mb->mscs[i].name);
			return r;
		}
	}
	return 0;
}

int mmio_backend_partition_open(struct mmio_backend *mb, size_t index, const struct partition_config *p,
				struct err *err)
{
	if (!p->has_partid)
		return err_set(err, -EINVAL, "partition \"%s\" has no partid", p->name);
	int r = mmio_backend_add_monitored(mb, index, p->partid, err);
	if (r == 0)
		mb->partitions[index] = p;
	return r;
}

static int apply_one_msc(struct msc *msc, uint16_t partid, const struct partition_limits *limits,
			 struct partition_limits *eff, bool *did_bw, struct err *err)
{
	unsigned max_pct, min_pct;
	int r = msc_set_bandwidth(msc, partid, limits->mb_max, limits->mb_min, &max_pct, &min_pct, err);

	if (r == 0 && !*did_bw) {
		eff->mb_max = max_pct;
		eff->mb_min = min_pct;
		*did_bw = true;
	}
	if (r < 0 && r != -EOPNOTSUPP)
		return r;
	if (limits->l3_cbm) {
		r = msc_set_cpbm(msc, partid, limits->l3_cbm, err);
		if (r < 0 && r != -EOPNOTSUPP)
			return r;
		if (r == 0)
			eff->l3_cbm = limits->l3_cbm;
	}
	return 0;
}

int mmio_backend_apply(struct mmio_backend *mb, size_t index, const struct partition_limits *limits,
		       struct partition_limits *effective, struct err *err)
{
	const struct partition_config *p = index < mb->partition_count ? mb->partitions[index] : NULL;
	struct partition_limits eff = { .mb_max = 100 };
	bool did_bw = false;

	if (!p)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	for (size_t i = 0; i < mb->msc_count; i++) {
		int r = apply_one_msc(&mb->mscs[i], p->partid, limits, &eff, &did_bw, err);
		if (r < 0) {
			err_prefix(err, "msc \"%s\"", mb->mscs[i].name);
			return r;
		}
	}
	if (limits->l3_cbm && !eff.l3_cbm)
		return err_set(err, -EOPNOTSUPP, "no MSC has cache portion controls for l3_cbm");
	*effective = eff;
	return 0;
}

/* An MSC error means the driver (or someone) did something wrong: say so loudly, once per value. */
static bool msc_in_error(struct mmio_backend *mb, size_t i)
{
	uint64_t esr = 0;

	if (msc_read_esr(&mb->mscs[i], &esr) < 0 || esr == 0) {
		mb->reported_esr[i] = 0;
		return false;
	}
	if (esr != mb->reported_esr[i]) {
		char text[160];
		msc_describe_esr(esr, text, sizeof(text));
		log_error("msc \"%s\" reports an error: %s", mb->mscs[i].name, text);
		mb->reported_esr[i] = esr;
	}
	return true;
}

int mmio_backend_read(struct mmio_backend *mb, uint64_t now_ns, struct sample *samples, struct err *err)
{
	size_t domains = mb->msc_count;

	(void)err;
	for (size_t i = 0; i < domains; i++) {
		if (!mb->monitors[i]) {
			for (size_t p = 0; p < mb->partition_count; p++)
				samples[p * domains + i] =
					(struct sample){ .state = SAMPLE_INVALID, .reason = "MSC has no monitors" };
			continue;
		}
		msc_monitors_read(mb->monitors[i], now_ns, &samples[i], domains);
		if (msc_in_error(mb, i))
			for (size_t p = 0; p < mb->partition_count; p++)
				samples[p * domains + i] = (struct sample){ .state = SAMPLE_INVALID,
									    .reason = "MSC reported an error (ESR)" };
	}
	return 0;
}

static json_t *describe_ris(const struct msc_ris_caps *rc, unsigned index)
{
	json_t *ris = json_pack("{s:I,s:I,s:I}", "index", (json_int_t)index, "cpbm_wd", (json_int_t)rc->cpbm_wd,
				"monitors", (json_int_t)rc->num_mon);

	if (rc->has_mbw)
		json_object_set_new(ris, "bandwidth",
				    json_pack("{s:I,s:I,s:I,s:b,s:b,s:I}", "bwa_wd", (json_int_t)rc->bwa_wd,
					      "granularity_pct", (json_int_t)mpam_bandwidth_gran_percent(rc->bwa_wd),
					      "min_bandwidth_pct", (json_int_t)mpam_min_bandwidth_percent(rc->bwa_wd),
					      "has_min", rc->has_min, "has_max", rc->has_max, "max_lim",
					      (json_int_t)rc->max_lim));
	if (rc->num_mon)
		json_object_set_new(ris, "counter",
				    json_pack("{s:I,s:I,s:b,s:b,s:b}", "bits", (json_int_t)rc->counter_bits, "scale",
					      (json_int_t)rc->scale, "rwbw", rc->has_rwbw, "capture", rc->has_capture,
					      "ofsr", rc->has_ofsr));
	return ris;
}

json_t *mmio_backend_describe(struct mmio_backend *mb)
{
	json_t *mscs = json_array();

	for (size_t i = 0; i < mb->msc_count; i++) {
		const struct msc *m = &mb->mscs[i];
		json_t *ris = json_array();
		for (unsigned r = 0; r < m->caps.ris_count; r++)
			json_array_append_new(ris, describe_ris(&m->caps.ris[r], r));
		char base[24], iidr[16];
		snprintf(base, sizeof(base), "0x%llx", (unsigned long long)m->bus->base);
		snprintf(iidr, sizeof(iidr), "0x%08x", m->caps.iidr);
		json_array_append_new(mscs, json_pack("{s:s,s:s,s:I,s:s,s:I,s:I,s:b,s:b,s:o}", "name", m->name, "base",
						      base, "size", (json_int_t)m->bus->size, "iidr", iidr,
						      "partid_max", (json_int_t)m->caps.partid_max, "pmg_max",
						      (json_int_t)m->caps.pmg_max, "esr", m->caps.has_esr,
						      "nrdy_hardware_managed", m->caps.nrdy_hw, "ris", ris));
	}
	struct backend_caps caps;
	mmio_backend_caps(mb, &caps);
	return json_pack("{s:I,s:I,s:I,s:I,s:o}", "partids", (json_int_t)caps.partitions_max, "pmgs",
			 (json_int_t)caps.pmgs, "bandwidth_granularity_pct", (json_int_t)caps.bw_gran_pct,
			 "monitors_per_msc", (json_int_t)caps.monitors, "mscs", mscs);
}
