#include "backends/mmio/msc_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/mmio/quirks.h"
#include "backends/mpam/mpam_regs.h"
#include "core/base/log.h"

#define DEVMEM_PATH "/dev/mem"

void msc_set_free(struct msc_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; set->mscs && i < set->count; i++)
		bus_free(set->mscs[i].bus);
	free(set->mscs);
	free(set);
}

static int probe_one(struct msc *msc, struct err *err)
{
	int r = msc_probe(msc->bus, &msc->access, &msc->caps, err);
	bool cleared = !msc->access.monitor_only && !msc->access.beside_kernel;

	if (r < 0) {
		err_prefix(err, "msc \"%s\" at 0x%llx", msc->name, (unsigned long long)msc->bus->base);
		return r;
	}
	if (msc->caps.stale_esr) {
		char text[160];
		msc_describe_esr(msc->caps.stale_esr, text, sizeof(text));
		log_warning("msc \"%s\": error status left by an earlier user: %s%s", msc->name, text,
			    cleared ? " (cleared)" : "");
	}
	msc_quirks_log(msc->name, msc->caps.iidr, &msc->access.soc);
	return 0;
}

/* Beside the kernel the probe writes no monitor, so nothing is known of who clears NRDY: nothing
 * depends on it (NRDY is honoured on every read, and zeroing a counter after enabling it clears
 * NRDY whoever manages it). */
static void say_what_is_assumed(const struct msc_set *set)
{
	if (set->access.beside_kernel && set->count)
		log_info("beside the kernel's MPAM driver: NRDY behaviour not probed (the probe writes monitor 0); "
			 "mpamd honours NRDY on every read and zeroes each counter after enabling it, which clears "
			 "NRDY on MSCs that leave it to software; error status (ESR) is left to the kernel");
}

int msc_set_new(struct msc_bus **buses, const char *const *names, size_t count, const struct msc_probe_opts *access,
		struct msc_set **ret, struct err *err)
{
	struct msc_set *set = calloc(1, sizeof(*set));
	int r = 0;

	if (set)
		set->mscs = calloc(count ? count : 1, sizeof(*set->mscs));
	if (!set || !set->mscs) {
		for (size_t i = 0; i < count; i++)
			bus_free(buses[i]);
		msc_set_free(set);
		return err_set(err, -ENOMEM, "out of memory");
	}
	set->count = count;
	set->access = *access;
	for (size_t i = 0; i < count; i++) {
		set->mscs[i].bus = buses[i];
		set->mscs[i].access = *access;
		snprintf(set->mscs[i].name, sizeof(set->mscs[i].name), "%s", names[i]);
	}
	for (size_t i = 0; i < count && r == 0; i++)
		r = probe_one(&set->mscs[i], err);
	if (r < 0) {
		msc_set_free(set);
		return r;
	}
	say_what_is_assumed(set);
	*ret = set;
	return 0;
}

/* Maps every [msc] window; on failure nothing stays mapped and err names the MSC. */
static int map_windows(const struct config *config, struct msc_bus **buses, const char **names, struct err *err)
{
	for (size_t i = 0; i < config->msc_count; i++) {
		const struct msc_config *m = &config->mscs[i];
		int r = bus_devmem_new(DEVMEM_PATH, m->base, m->size, &buses[i], err);
		if (r < 0) {
			err_prefix(err, "msc \"%s\"", m->name);
			for (size_t j = 0; j < i; j++)
				bus_free(buses[j]);
			return r;
		}
		names[i] = m->name;
	}
	return 0;
}

int msc_set_new_from_config(const struct config *config, const struct msc_probe_opts *access, struct msc_set **ret,
			    struct err *err)
{
	size_t n = config->msc_count;
	struct msc_bus **buses = calloc(n ? n : 1, sizeof(*buses));
	const char **names = calloc(n ? n : 1, sizeof(*names));
	int r = buses && names ? 0 : err_set(err, -ENOMEM, "out of memory");
	struct msc_probe_opts with_soc = *access;

	soc_id_read(SYSFS_ROOT, &with_soc.soc);
	if (r == 0)
		r = map_windows(config, buses, names, err);
	if (r == 0)
		r = msc_set_new(buses, names, n, &with_soc, ret, err);
	free(buses);
	free(names);
	return r;
}

int msc_set_claim_windows(const struct config *config, const struct claim_sink *sink, struct err *err)
{
	for (size_t i = 0; i < config->msc_count; i++) {
		const struct msc_config *m = &config->mscs[i];
		char id[64], what[NAME_MAX_LEN + 64];
		snprintf(id, sizeof(id), "msc-0x%llx", (unsigned long long)m->base);
		snprintf(what, sizeof(what), "the MSC window at 0x%llx ([msc \"%s\"])", (unsigned long long)m->base,
			 m->name);
		int r = claim(sink, id, what, err);
		if (r < 0)
			return r;
	}
	return 0;
}

void msc_set_limit_mode(struct msc_set *set, bool hard)
{
	for (size_t i = 0; i < set->count; i++) {
		struct msc *msc = &set->mscs[i];
		msc->hard_limits = hard;
		for (unsigned r = 0; r < msc->caps.ris_count; r++) {
			const struct msc_ris_caps *rc = &msc->caps.ris[r];
			if (!rc->has_max || msc_limits_hard(msc, rc) == hard)
				continue;
			log_warning("msc \"%s\" RIS %u: mb_max_mode = %s, but its MBW_MAX limits are %s "
				    "(MPAMF_MBW_IDR.MAX_LIM: %s)%s",
				    msc->name, r, hard ? "hard" : "soft", hard ? "soft" : "hard",
				    msc_max_lim_name(rc->max_lim),
				    hard ? ": a partition can use idle bandwidth above its mb_max there"
					 : ": a partition gets nothing above its mb_max there, even when it is idle");
			break;
		}
	}
}

/* The bandwidth controls of a RIS, and the kind of limit its MBW_MAX is as mpamd programs it. */
static json_t *describe_bandwidth(const struct msc *msc, const struct msc_ris_caps *rc)
{
	json_t *bw =
		json_pack("{s:I,s:I,s:I,s:b,s:b,s:I,s:s,s:b,s:I}", "bwa_wd", (json_int_t)rc->bwa_wd, "granularity_pct",
			  (json_int_t)mpam_bandwidth_gran_percent(rc->bwa_wd), "min_bandwidth_pct",
			  (json_int_t)mpam_min_bandwidth_percent(rc->bwa_wd), "has_min", rc->has_min, "has_max",
			  rc->has_max, "max_lim", (json_int_t)rc->max_lim, "max_lim_means",
			  msc_max_lim_name(rc->max_lim), "has_prop", rc->has_prop, "pbm_wd", (json_int_t)rc->pbm_wd);

	if (rc->has_max)
		json_object_set_new(bw, "mb_max_limit", json_string(msc_limits_hard(msc, rc) ? "hard" : "soft"));
	return bw;
}

static json_t *describe_ris(const struct msc *msc, const struct msc_ris_caps *rc, unsigned index)
{
	json_t *ris = json_pack("{s:I,s:I,s:I}", "index", (json_int_t)index, "cpbm_wd", (json_int_t)rc->cpbm_wd,
				"monitors", (json_int_t)rc->num_mon);

	json_object_set_new(ris, "intpartids",
			    rc->has_partid_nrw ? json_integer((json_int_t)rc->intpartid_max + 1) : json_null());
	if (rc->has_mbw)
		json_object_set_new(ris, "bandwidth", describe_bandwidth(msc, rc));
	if (rc->num_mon)
		json_object_set_new(ris, "counter",
				    json_pack("{s:I,s:I,s:b,s:b,s:b}", "bits", (json_int_t)rc->counter_bits, "scale",
					      (json_int_t)rc->scale, "rwbw", rc->has_rwbw, "capture", rc->has_capture,
					      "ofsr", rc->has_ofsr));
	return ris;
}

json_t *msc_set_describe(const struct msc_set *set)
{
	json_t *mscs = json_array();

	for (size_t i = 0; i < set->count; i++) {
		const struct msc *m = &set->mscs[i];
		json_t *ris = json_array();
		for (unsigned r = 0; r < m->caps.ris_count; r++)
			json_array_append_new(ris, describe_ris(m, &m->caps.ris[r], r));
		char base[24], iidr[16], aidr[8], soc[16];
		snprintf(base, sizeof(base), "0x%llx", (unsigned long long)m->bus->base);
		snprintf(iidr, sizeof(iidr), "0x%08x", m->caps.iidr);
		snprintf(aidr, sizeof(aidr), "%u.%u", (unsigned)mpam_field_get(MPAMF_AIDR_ARCH_MAJOR_REV, m->caps.aidr),
			 (unsigned)mpam_field_get(MPAMF_AIDR_ARCH_MINOR_REV, m->caps.aidr));
		soc_id_format(&m->access.soc, soc, sizeof(soc));
		json_array_append_new(mscs,
				      json_pack("{s:s,s:s,s:I,s:s,s:s,s:s,s:I,s:I,s:b,s:s,s:o,s:o}", "name", m->name,
						"base", base, "size", (json_int_t)m->bus->size, "iidr", iidr,
						"architecture", aidr, "soc_id", soc, "partid_max",
						(json_int_t)m->caps.partid_max, "pmg_max", (json_int_t)m->caps.pmg_max,
						"esr", m->caps.has_esr, "nrdy", msc_nrdy_name(m->caps.nrdy), "quirks",
						msc_quirks_describe(m->caps.iidr, &m->access.soc), "ris", ris));
	}
	return mscs;
}
