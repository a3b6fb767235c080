#include "backends/mmio/mmio_control.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/mmio/kernel_mpam.h"
#include "backends/mmio/quirks.h"
#include "backends/mpam/mpam_regs.h"
#include "backends/shared/partition_table.h"
#include "core/base/grow.h"
#include "core/config/config.h"

/* What apply last put on one MSC for one partition, and the registers it read back: an apply of the
 * same limits (the engine re-applies every partition's every tenth tick, to undo a change made behind
 * mpamd's back) reads the registers and compares rather than working the fields out and writing them
 * again. seen.kept false: nothing to compare with (write). The percentages are floats (one per slot
 * and MSC: half the room), kept only when each is a float exactly, as the ladders' rungs and what
 * MPAM's fractional fields hold are: anything else is written again, as without a record. */
struct msc_kept {
	float max_asked, min_asked; /* what apply was asked for on this MSC */
	float max_pct, min_pct;	    /* what that put in force */
	struct msc_bandwidth_seen seen;
};

/* Whether v is a float exactly (then the float gives v back). */
static bool float_exact(double v)
{
	return (double)(float)v == v;
}

/* Keeps what a write asked for and put in force, with its read-back in kept->seen, where the floats
 * hold them; else keeps nothing. */
static void kept_note(struct msc_kept *kept, double max, double min, double max_pct, double min_pct)
{
	if (!float_exact(max) || !float_exact(min) || !float_exact(max_pct) || !float_exact(min_pct)) {
		kept->seen.kept = false;
		return;
	}
	*kept = (struct msc_kept){ (float)max, (float)min, (float)max_pct, (float)min_pct, kept->seen };
}

struct mmio_limits {
	struct msc_set *set;
	struct partition_table partitions; /* the open ones, by slot */
	struct msc_kept *kept;		   /* kept_slots slots of set->count each */
	size_t kept_slots;
	int *domain_of;			    /* per MSC: the control's domain it is, -1 when none */
	size_t msc_of[CONTROL_MAX_DOMAINS]; /* per domain: its MSC's position (the reverse of domain_of) */
	unsigned domains;
};

/* An MSC whose bandwidth controls mpamd programs: a domain of the control. */
static bool msc_is_domain(const struct msc *msc)
{
	return msc->caps.mbw_ris >= 0 && !msc_quirks_controls_refused(msc->caps.quirks);
}

/* Every MSC that is a domain, in the set's order (the set does not change once probed). */
static int map_domains(struct mmio_limits *l, struct err *err)
{
	l->domain_of = calloc(l->set->count ? l->set->count : 1, sizeof(*l->domain_of));
	if (!l->domain_of)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < l->set->count; i++) {
		bool domain = msc_is_domain(&l->set->mscs[i]) && l->domains < CONTROL_MAX_DOMAINS;
		l->domain_of[i] = domain ? (int)l->domains : -1;
		if (domain)
			l->msc_of[l->domains++] = i;
	}
	return 0;
}

int mmio_limits_new(struct msc_set *set, size_t partitions, struct mmio_limits **ret, struct err *err)
{
	struct mmio_limits *l = calloc(1, sizeof(*l));
	int r = l ? partition_table_init(&l->partitions, partitions, err) : err_set(err, -ENOMEM, "out of memory");

	if (l)
		l->set = set;
	if (r == 0)
		r = map_domains(l, err);
	if (r < 0) {
		mmio_limits_free(l);
		return r;
	}
	*ret = l;
	return 0;
}

void mmio_limits_free(struct mmio_limits *l)
{
	if (!l)
		return;
	partition_table_fini(&l->partitions);
	free(l->domain_of);
	free(l->kept);
	free(l);
}

/* Slot `index`'s row of what apply put on each MSC, NULL past the room. */
static struct msc_kept *kept_row(const struct mmio_limits *l, size_t index)
{
	return index < l->kept_slots ? &l->kept[index * l->set->count] : NULL;
}

/* Room for slot `index`'s row, which is forgotten: a slot opened or closed holds another partition. */
static int kept_forget(struct mmio_limits *l, size_t index, struct err *err)
{
	size_t mscs = l->set->count ? l->set->count : 1;

	if (array_grow((void **)&l->kept, &l->kept_slots, index + 1, mscs * sizeof(*l->kept), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	memset(kept_row(l, index), 0, l->set->count * sizeof(*l->kept));
	return 0;
}

static unsigned min_nonzero(unsigned a, unsigned b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* Its id is the MSC's position in the set, which the MBWU monitor's domains carry too. */
/* An MSC's MBW_MAX and MBW_MIN ladders: its first bandwidth RIS's BWA_WD (a T241's MBW_MIN is the
 * erratum's, not a minimum mpamd offers). */
static void msc_ladders(const struct msc *msc, struct ladder *max, struct ladder *min)
{
	const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mbw_ris];

	*max = (struct ladder){ .kind = LADDER_NONE };
	*min = (struct ladder){ .kind = LADDER_NONE };
	if (rc->has_max)
		ladder_mpam_max(rc->bwa_wd, max);
	if (rc->has_min && !(msc->caps.quirks & MSC_QUIRK_T241_MBW_MIN_FLOOR))
		ladder_mpam_min(rc->bwa_wd, min);
}

/* Keeps in *coarsest the ladder of fewer rungs: a decision for the host as a whole must be a setting
 * every MSC holds. */
static void keep_coarsest(struct ladder *coarsest, const struct ladder *l)
{
	if (ladder_exists(l) && (!ladder_exists(coarsest) || l->count < coarsest->count))
		*coarsest = *l;
}

static void probe_domains(const struct mmio_limits *l, struct control_caps *caps)
{
	for (size_t i = 0; i < l->set->count; i++) {
		if (l->domain_of[i] < 0)
			continue;
		struct control_domain *d = &caps->domains[l->domain_of[i]];
		d->id = (unsigned)i;
		d->id_space = DOMAIN_SPACE_MSC;
		snprintf(d->name, sizeof(d->name), "msc %s", l->set->mscs[i].name);
		msc_ladders(&l->set->mscs[i], &d->max_ladder, &d->min_ladder);
		keep_coarsest(&caps->max_ladder, &d->max_ladder);
		keep_coarsest(&caps->min_ladder, &d->min_ladder);
	}
	caps->domain_count = l->domains;
}

void mmio_limits_probe(const struct mmio_limits *l, struct control_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->partitions_max = 65536;
	caps->partitions_reserved = 0; /* mpamd's own driver holds no PARTID back */
	caps->pmgs = 256;
	for (size_t i = 0; i < l->set->count; i++) {
		const struct msc *msc = &l->set->mscs[i];
		caps->partitions_max = min_nonzero(caps->partitions_max, msc->caps.partid_max + 1u);
		caps->pmgs = min_nonzero(caps->pmgs, msc->caps.pmg_max + 1u);
		if (msc_quirks_controls_refused(msc->caps.quirks))
			continue; /* its controls are not programmed: it offers none */
		if (msc->caps.mbw_ris >= 0) {
			const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mbw_ris];
			caps->has_mb_min =
				caps->has_mb_min || (rc->has_min && !(msc->caps.quirks & MSC_QUIRK_T241_MBW_MIN_FLOOR));
		}
		for (unsigned r = 0; r < msc->caps.ris_count; r++)
			caps->cbm_bits = min_nonzero(caps->cbm_bits, msc->caps.ris[r].cpbm_wd);
	}
	probe_domains(l, caps);
}

/* What opening a partition checks: a PARTID that every MSC has. */
static int check_partid(const struct mmio_limits *l, const struct partition_config *p, struct err *err)
{
	if (!p->has_partid)
		return err_set(err, -EINVAL, "partition \"%s\" has no partid", p->name);
	for (size_t i = 0; i < l->set->count; i++) {
		const struct msc *msc = &l->set->mscs[i];
		if (p->partid > msc->caps.partid_max)
			return err_set(err, -ERANGE, "partid %u is above %s %u of msc \"%s\"", p->partid,
				       msc_narrows_partids(msc) ? "INTPARTID_MAX (it narrows PARTIDs)" : "PARTID_MAX",
				       msc->caps.partid_max, msc->name);
	}
	return 0;
}

size_t mmio_limits_domain_msc(const struct mmio_limits *l, unsigned domain)
{
	return domain < l->domains ? l->msc_of[domain] : SIZE_MAX;
}

int mmio_limits_partition_open(struct mmio_limits *l, size_t index, const struct partition_config *p,
			       struct partition_ref *ret, struct err *err)
{
	int r = check_partid(l, p, err);
	if (r == 0)
		r = kept_forget(l, index, err);
	if (r == 0)
		r = partition_table_open(&l->partitions, index, p, err);
	if (r < 0)
		return r;
	*ret = (struct partition_ref){ .config = p, .group_dirfd = -1, .hw_id = p->partid };
	return 0;
}

void mmio_limits_partition_close(struct mmio_limits *l, size_t index)
{
	struct msc_kept *row = kept_row(l, index);

	if (row)
		memset(row, 0, l->set->count * sizeof(*row));
	partition_table_close(&l->partitions, index);
}

/* Whether `want` asks the hardware for anything beyond its reset state (100%, no minimum, the cache
 * portion left alone) on any domain. */
static bool limits_anything(const struct partition_limits *want)
{
	return limits_lowest_max(want) < 100 || limits_any_min(want) || want->l3_cbm;
}

/* Whether the bandwidth limits `kept` says were put on the MSC for the same request still read back
 * as they did: then nothing needs writing. A register that reads otherwise (another writer, an MSC
 * reset) or cannot be read: written again. */
static bool still_in_force(struct msc *msc, uint16_t partid, const struct msc_kept *kept, double max, double min)
{
	return kept && kept->seen.kept && kept->max_asked == max && kept->min_asked == min &&
	       msc_bandwidth_as_seen(msc, partid, &kept->seen) == 1;
}

/* One MSC's share of apply (domain `dom` of the control, -1 when it is none): programmed, or with
 * `plan` only recorded there; `kept` (NULL with a plan) what the last apply put there. */
static int apply_one_msc(struct msc *msc, int dom, uint16_t partid, const struct partition_limits *want,
			 struct partition_limits *eff, struct msc_kept *kept, json_t *plan, struct err *err)
{
	double max_pct, min_pct;
	double max = dom >= 0 ? limits_max_at(want, (unsigned)dom) : want->mb_max;
	double min = dom >= 0 ? limits_min_at(want, (unsigned)dom) : want->mb_min;
	const char *refused = msc_quirks_controls_refused(msc->caps.quirks);

	/* Nothing is written to such an MSC; a partition that wants no limit there is fine with that. */
	if (refused)
		return limits_anything(want) ? err_set(err, -EPERM, "%s", refused) : 0;
	/* What an earlier owner left for the PARTID goes before mpamd's limits are written. */
	int r = msc_take_over(msc, partid, plan, err);
	if (r < 0)
		return r;
	if (!want->l3_cbm && still_in_force(msc, partid, kept, max, min)) {
		if (dom >= 0) {
			eff->mb_max_at[dom] = kept->max_pct;
			eff->mb_min_at[dom] = kept->min_pct;
		}
		return 0;
	}
	if (kept)
		kept->seen.kept = false; /* until written and read back again */
	r = plan ? msc_plan_bandwidth(msc, partid, max, min, &max_pct, &min_pct, plan, err)
		 : msc_set_bandwidth_seen(msc, partid, max, min, &max_pct, &min_pct, kept ? &kept->seen : NULL, err);
	if (r == 0 && kept)
		kept_note(kept, max, min, max_pct, min_pct);

	if (r == 0 && dom >= 0) {
		eff->mb_max_at[dom] = max_pct;
		eff->mb_min_at[dom] = min_pct;
	}
	if (r < 0 && r != -EOPNOTSUPP)
		return r;
	if (want->l3_cbm) {
		r = plan ? msc_plan_cpbm(msc, partid, want->l3_cbm, plan, err)
			 : msc_set_cpbm(msc, partid, want->l3_cbm, err);
		if (r < 0 && r != -EOPNOTSUPP)
			return r;
		if (r == 0)
			eff->l3_cbm = want->l3_cbm;
	}
	return 0;
}

/* Every MSC gets `want` for `partid` (each domain its own limits); with `plan`, the writes are only
 * recorded there. */
static int program(const struct mmio_limits *l, uint16_t partid, const struct partition_limits *want,
		   struct partition_limits *effective, struct msc_kept *kept, json_t *plan, struct err *err)
{
	struct partition_limits eff = limits_unlimited(l->domains);

	for (size_t i = 0; i < l->set->count; i++) {
		int r = apply_one_msc(&l->set->mscs[i], l->domain_of[i], partid, want, &eff, kept ? &kept[i] : NULL,
				      plan, err);
		if (r < 0) {
			err_prefix(err, "msc \"%s\"", l->set->mscs[i].name);
			return r;
		}
	}
	if (want->l3_cbm && !eff.l3_cbm)
		return err_set(err, -EOPNOTSUPP, "no MSC has cache portion controls for l3_cbm");
	limits_summarise(&eff);
	*effective = eff;
	return 0;
}

static bool t241_min_floor(const struct msc_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->mscs[i].caps.quirks & MSC_QUIRK_T241_MBW_MIN_FLOOR)
			return true;
	return false;
}

int mmio_limits_validate(const struct mmio_limits *l, const struct partition_limits *want, struct err *err)
{
	struct control_caps caps;

	mmio_limits_probe(l, &caps);
	for (size_t i = 0; i < l->set->count && limits_anything(want); i++) {
		const char *refused = msc_quirks_controls_refused(l->set->mscs[i].caps.quirks);
		if (refused)
			return err_set(err, -EOPNOTSUPP, "msc \"%s\": %s", l->set->mscs[i].name, refused);
	}
	if (limits_any_min(want) && !caps.has_mb_min)
		return err_set(err, -EOPNOTSUPP,
			       "mb_min: no MSC offers minimum-bandwidth control (MBW_MIN%s); "
			       "guarantee_mbps is held without it",
			       t241_min_floor(l->set) ? ": on NVIDIA T241 it works around erratum T241-MPAM-4" : "");
	if (!want->l3_cbm)
		return 0;
	if (!caps.cbm_bits)
		return err_set(err, -EOPNOTSUPP, "l3_cbm: no MSC has cache-portion control (CPOR)");
	uint64_t mask = caps.cbm_bits >= 64 ? ~0ull : (1ull << caps.cbm_bits) - 1;
	if (want->l3_cbm & ~mask)
		return err_set(err, -ERANGE, "l3_cbm 0x%llx has bits outside the %u cache portions (0x%llx)",
			       (unsigned long long)want->l3_cbm, caps.cbm_bits, (unsigned long long)mask);
	return 0;
}

int mmio_limits_apply(struct mmio_limits *l, size_t index, const struct partition_limits *want,
		      struct partition_limits *effective, struct err *err)
{
	const struct partition_config *p = partition_table_get(&l->partitions, index);

	if (!p)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	return program(l, p->partid, want, effective, kept_row(l, index), NULL, err);
}

/* Whether an mb_max below 100% on `msc` is a soft or a hard limit, and why: a note for the plan. */
static void note_limit_kind(const struct msc *msc, json_t *notes)
{
	if (msc->caps.mbw_ris < 0 || !msc->caps.ris[msc->caps.mbw_ris].has_max)
		return;
	const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mbw_ris];
	bool hard = msc_limits_hard(msc, rc);
	char why[96];

	if (rc->max_lim == MPAM_MAX_LIM_EITHER)
		snprintf(why, sizeof(why), "mb_max_mode = %s; MAX_LIM lets software choose", hard ? "hard" : "soft");
	else
		snprintf(why, sizeof(why), "MPAMF_MBW_IDR.MAX_LIM is %s%s", msc_max_lim_name(rc->max_lim),
			 hard != msc->hard_limits ? ", whatever mb_max_mode says" : "");
	json_array_append_new(notes,
			      json_sprintf("msc %s: mb_max is a %s limit (%s)%s", msc->name, hard ? "hard" : "soft",
					   why, hard ? "" : ": idle bandwidth above it stays usable"));
}

/* Whether the partition's mb_max on domain `dom` (-1: the MSC is none) can be below 100%: configured
 * so, or moved there by the policies (the target controller, the guard's cuts of a best-effort one). */
static bool may_be_limited(const struct partition_config *p, const struct partition_limits *want, int dom)
{
	double max = dom >= 0 ? limits_max_at(want, (unsigned)dom) : want->mb_max;

	return max < 100 || p->goals.target_mbps || p->goals.class == CLASS_BEST_EFFORT;
}

/* What apply passes over quietly: MSCs that cannot hold a limit everywhere, and how each holds one. */
static void note_msc_gaps(const struct mmio_limits *l, const struct partition_config *p,
			  const struct partition_limits *want, json_t *notes)
{
	uint16_t partid = p->partid;

	for (size_t i = 0; i < l->set->count; i++) {
		const struct msc *msc = &l->set->mscs[i];
		bool has_cpbm = false;
		for (unsigned r = 0; r < msc->caps.ris_count; r++)
			has_cpbm |= msc->caps.ris[r].cpbm_wd != 0;
		if (!msc_quirks_controls_refused(msc->caps.quirks) && !msc_taken_over(msc, partid))
			json_array_append_new(
				notes, json_sprintf("msc %s: PARTID %u is taken over first: %severy "
						    "control it has is written to its reset value "
						    "before the limits",
						    msc->name, partid,
						    msc_narrows_partids(msc) ? "mapped to its intPARTID, " : ""));
		if (may_be_limited(p, want, l->domain_of[i]))
			note_limit_kind(msc, notes);
		if (msc->caps.mbw_ris < 0)
			json_array_append_new(notes, json_sprintf("msc %s has no bandwidth controls: mb_max and mb_min "
								  "are not held there",
								  msc->name));
		if (want->l3_cbm && !has_cpbm)
			json_array_append_new(notes, json_sprintf("msc %s has no cache portion controls: l3_cbm is "
								  "not held there",
								  msc->name));
	}
}

int mmio_limits_plan(const struct mmio_limits *l, const struct partition_config *p, const struct partition_limits *want,
		     struct control_plan *ret, struct err *err)
{
	int r = 0;

	ret->writes = json_array();
	ret->notes = json_array();
	if (!ret->writes || !ret->notes)
		r = err_set(err, -ENOMEM, "out of memory");
	if (r == 0)
		r = check_partid(l, p, err);
	if (r == 0)
		r = program(l, p->partid, want, &ret->effective, NULL, ret->writes, err);
	if (r == 0)
		note_msc_gaps(l, p, want, ret->notes);
	if (r < 0)
		control_plan_fini(ret);
	return r;
}

/* The fewest MBWU monitors of any MSC that has some. */
static unsigned monitors_per_msc(const struct msc_set *set)
{
	unsigned fewest = 0;

	for (size_t i = 0; i < set->count; i++)
		if (set->mscs[i].caps.mon_ris >= 0)
			fewest = min_nonzero(fewest, set->mscs[i].caps.ris[set->mscs[i].caps.mon_ris].num_mon);
	return fewest;
}

json_t *mmio_limits_describe(const struct mmio_limits *l)
{
	struct control_caps caps;
	char steps[128];

	mmio_limits_probe(l, &caps);
	ladder_describe(&caps.max_ladder, steps, sizeof(steps));
	return json_pack("{s:I,s:I,s:s,s:I,s:o}", "partids", (json_int_t)caps.partitions_max, "pmgs",
			 (json_int_t)caps.pmgs, "bandwidth_steps", steps, "monitors_per_msc",
			 (json_int_t)monitors_per_msc(l->set), "mscs", msc_set_describe(l->set));
}

/* ---- any control over MSCs (struct msc_control): its limits answer ---- */

static struct mmio_limits *limits_of(struct control *c)
{
	return ((struct msc_control *)c)->limits;
}

void msc_control_probe(struct control *c, struct control_caps *ret)
{
	mmio_limits_probe(limits_of(c), ret);
}

int msc_control_validate(struct control *c, const struct partition_limits *want, struct err *err)
{
	return mmio_limits_validate(limits_of(c), want, err);
}

int msc_control_apply(struct control *c, size_t index, const struct partition_limits *want,
		      struct partition_limits *effective, struct err *err)
{
	return mmio_limits_apply(limits_of(c), index, want, effective, err);
}

int msc_control_plan(struct control *c, size_t index, const struct partition_config *p,
		     const struct partition_limits *want, struct control_plan *ret, struct err *err)
{
	(void)index;
	return mmio_limits_plan(limits_of(c), p, want, ret, err);
}

/* ---- backend = mmio: the [msc] windows mapped from /dev/mem ---- */

static struct msc_control *mmio_of(struct control *c)
{
	return (struct msc_control *)c;
}

static void mmio_free(struct control *c)
{
	struct msc_control *m = mmio_of(c);

	if (!m)
		return;
	mmio_limits_free(m->limits);
	msc_set_free(m->set);
	free(m);
}

static int open_for(const struct config *config, bool plan_only, struct control **ret, struct err *err)
{
	struct msc_control *m = calloc(1, sizeof(*m));
	int r = m ? 0 : err_set(err, -ENOMEM, "out of memory");

	struct msc_probe_opts access = { 0 };

	if (r == 0)
		r = kernel_mpam_check(config, false, SYSFS_ROOT, KERNEL_MPAM_CONTROLS, &access, err);
	access.plan_only = plan_only;
	if (r == 0)
		r = msc_set_new_from_config(config, &access, &m->set, err);
	if (r == 0)
		r = mmio_limits_new(m->set, config->partition_count, &m->limits, err);
	if (r == 0)
		msc_set_limit_mode(m->set, config->global.mb_max_mode == MB_MAX_HARD);
	if (r < 0) {
		mmio_free(m ? &m->base : NULL);
		return r;
	}
	m->base.ops = &control_mmio_ops;
	*ret = &m->base;
	return 0;
}

static int mmio_open(const struct config *config, struct clock *clock, struct control **ret, struct err *err)
{
	(void)clock;
	return open_for(config, false, ret, err);
}

/* A dry run may sit beside a running mpamd that programs the same MSCs: probe without disturbing it. */
static int mmio_open_to_plan(const struct config *config, struct clock *clock, struct control **ret, struct err *err)
{
	(void)clock;
	return open_for(config, true, ret, err);
}

static void mmio_share(struct control *c, struct control_shared *ret)
{
	ret->mscs = mmio_of(c)->set;
	ret->cannot_place =
		"a task's PARTID is what the kernel writes to MPAM0_EL1 and MPAM1_EL1 when it runs the task, "
		"which user space cannot choose (without the kernel's MPAM driver every task has the default)";
}

static int mmio_partition_open(struct control *c, size_t index, const struct partition_config *p,
			       struct partition_ref *ret, struct err *err)
{
	return mmio_limits_partition_open(mmio_of(c)->limits, index, p, ret, err);
}

static void mmio_partition_close(struct control *c, size_t index)
{
	mmio_limits_partition_close(mmio_of(c)->limits, index);
}

static json_t *mmio_describe(struct control *c)
{
	return mmio_limits_describe(mmio_of(c)->limits);
}

#define MMIO_BACKEND "mmio"

/* backend = mmio programs MSCs by PARTID, in the windows the [msc] sections name. */
static void mmio_check(struct config *c, struct diag_list *d)
{
	if (strcmp(c->global.backend, MMIO_BACKEND))
		return;
	if (c->msc_count == 0)
		diag_add(d, DIAG_ERROR, c->global.backend_from_command_line ? 0 : config_global_key_line(c, "backend"),
			 "%smmio needs at least one [msc \"NAME\"] section with base and size",
			 c->global.backend_from_command_line ? "--backend " : "backend = ");
	for (size_t i = 0; i < c->partition_count; i++)
		if (!c->partitions[i].has_partid)
			diag_add(d, DIAG_ERROR, c->partitions[i].origin.line,
				 "partition \"%s\" needs a partid: backend = mmio programs MSCs by PARTID",
				 c->partitions[i].name);
	for (size_t i = 0; i < c->template_count; i++)
		diag_add(d, DIAG_ERROR, c->templates[i].partition.origin.line,
			 "vm-template \"%s\" needs backend = resctrl: backend = mmio programs MSCs by PARTID, which "
			 "each VM's partition would need from the file",
			 c->templates[i].name);
}

static const struct config_ext mmio_config_ext = {
	.name = MMIO_BACKEND,
	.check = mmio_check,
};

const struct control_ops control_mmio_ops = {
	.name = MMIO_BACKEND,
	.description = "Arm MPAM MSC registers through /dev/mem (the [msc] windows)",
	.config_ext = &mmio_config_ext,
	.claims = msc_set_claim_windows,
	.open = mmio_open,
	.open_to_plan = mmio_open_to_plan,
	.free = mmio_free,
	.probe = msc_control_probe,
	.share = mmio_share,
	.partition_open = mmio_partition_open,
	.partition_close = mmio_partition_close,
	.validate = msc_control_validate,
	.apply = msc_control_apply,
	.plan = msc_control_plan,
	.describe = mmio_describe,
	.describe_print = mmio_describe_print,
};
