/* MBWU monitors of one MSC as a counter pool (core/counter_pool.c): this file knows the registers,
 * the pool decides who holds which monitor. */
#include "backends/mmio/monitors.h"

#include <errno.h>
#include <stdlib.h>

#include "backends/shared/counter_pool.h"
#include "core/base/grow.h"
#include "backends/mpam/mpam_regs.h"

/* A long counter whose high word keeps changing between reads is given up after this many tries. */
#define LONG_READ_RETRIES 3
/* Every this many ticks (a power of two) each monitor's filter is read back too, staggered over the
 * monitors, to catch another agent that changed only MSMON_CFG_MBWU_FLT. CTL is read on every tick
 * anyway, for its overflow status. */
#define FLT_CHECK_TICKS 16u

/* What mpamd last did with one hardware monitor. */
struct mon_state {
	uint64_t last; /* the last value read, counter units: a later one below it without an overflow
			   * means someone else zeroed the counter */
	uint32_t flt;  /* the filter programmed */
	bool fresh;    /* programmed and not read since: NRDY is expected then */
};

struct msc_monitors {
	struct msc *msc;
	unsigned ris;
	unsigned count; /* monitors the MSC has (the pool uses at most one per partition) */
	/* Beside the kernel's MPAM driver, which hands monitors out from 0, the pool's monitor i is the
	 * MSC's hw_top - i, so that the two collide as late as they can. */
	bool top_down;
	unsigned hw_top;
	unsigned bits; /* counter width read */
	bool use_long;
	uint32_t ctl;	     /* what CTL holds while counting (EN included) */
	uint32_t status_bit; /* the overflow status of the counter read */
	uint16_t *partids;   /* per partition index (grows with the indices added) */
	size_t part_count;
	struct mon_state *mon; /* per monitor */
	unsigned tick;	       /* reads of the whole set, for the staggered filter checks */
	struct counter_pool *pool;
};

static int select_monitor(struct msc_monitors *m, unsigned mon)
{
	/* Never let an index the MSC does not implement reach MON_SEL: it would raise an MSC error. */
	if (mon >= m->count || m->ris >= m->msc->caps.ris_count)
		return -ERANGE;
	unsigned hw = m->top_down ? m->hw_top - mon : mon;
	return bus_write32(m->msc->bus, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(m->ris, (uint16_t)hw));
}

/* Reads the selected monitor's counter: value in counter units and its NRDY bit. A long counter is
 * read high, low, high (the 64-bit register need not be single-copy atomic) until the highs agree. */
static inline __attribute__((always_inline)) int read_counter(struct msc_monitors *m, uint64_t *ret_value,
							      bool *ret_nrdy)
{
	struct msc_bus *bus = m->msc->bus;
	uint32_t lo, hi, hi2;
	int r;

	if (!m->use_long) {
		r = bus_read32(bus, MSMON_MBWU, &lo);
		if (r < 0)
			return r;
		*ret_value = lo & MSMON_MBWU_VALUE;
		*ret_nrdy = (lo & MSMON_MBWU_NRDY) != 0;
		return 0;
	}
	for (int tries = 0; tries < LONG_READ_RETRIES; tries++) {
		if ((r = bus_read32(bus, MSMON_MBWU_L + 4, &hi)) < 0 || (r = bus_read32(bus, MSMON_MBWU_L, &lo)) < 0 ||
		    (r = bus_read32(bus, MSMON_MBWU_L + 4, &hi2)) < 0)
			return r;
		if (hi == hi2) {
			uint64_t v = (uint64_t)hi << 32 | lo;
			*ret_value = v & mpam_counter_mask(m->bits);
			*ret_nrdy = (v & MSMON_MBWU_L_NRDY) != 0;
			return 0;
		}
	}
	return -EAGAIN;
}

/* Zeroes the counter in use: MSMON_MBWU, or both words of MSMON_MBWU_L, low first (the high word
 * holds NRDY). */
static int zero_counter(struct msc_monitors *m)
{
	struct msc_bus *bus = m->msc->bus;
	int r;

	if (!m->use_long)
		return bus_write32(bus, MSMON_MBWU, 0);
	r = bus_write32(bus, MSMON_MBWU_L, 0);
	return r < 0 ? r : bus_write32(bus, MSMON_MBWU_L + 4, 0);
}

/* Both overflow status bits: status, not settings, when CTL is compared with what was programmed. */
#define OFLOW_STATUS_BOTH ((uint32_t)(MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_OFLOW_STATUS_L))

/* The Linux driver's order: filter, CTL with EN clear, CTL with EN set, and only then zero the
 * counter. Enabling sets NRDY; an MSC that leaves NRDY to software clears it only when the counter
 * is written after that, so zeroing before enabling would leave the monitor not ready for good. */
static int program_monitor(void *ctx, unsigned mon, size_t partition)
{
	struct msc_monitors *m = ctx;
	struct msc_bus *bus = m->msc->bus;
	uint16_t partid = m->partids[partition];
	uint32_t flt = msmon_mbwu_flt_encode(&(struct msmon_mbwu_flt){ .partid = partid });
	int r;

	if (partid > m->msc->caps.partid_max)
		return -ERANGE;
	if ((r = select_monitor(m, mon)) < 0 || (r = bus_write32(bus, MSMON_CFG_MBWU_FLT, flt)) < 0 ||
	    (r = bus_write32(bus, MSMON_CFG_MBWU_CTL, m->ctl & ~MSMON_CFG_CTL_EN)) < 0 ||
	    (r = bus_write32(bus, MSMON_CFG_MBWU_CTL, m->ctl)) < 0 || (r = zero_counter(m)) < 0)
		return r;
	m->mon[mon] = (struct mon_state){ .flt = flt, .fresh = true };
	return 0;
}

/* Reads counter and overflow status in an order that leaves no gap: the status is checked after the
 * value, and when it is set it is cleared and the value read again, so a wrap is always attributed
 * to the interval that ends with the value used. Returns CTL as read in *ret_ctl. */
static int sample_monitor(struct msc_monitors *m, unsigned mon, struct counter_reading *rd, uint32_t *ret_ctl)
{
	struct msc_bus *bus = m->msc->bus;
	uint32_t ctl;
	int r;

	if ((r = select_monitor(m, mon)) < 0 || (r = read_counter(m, &rd->value, &rd->not_ready)) < 0 ||
	    (r = bus_read32(bus, MSMON_CFG_MBWU_CTL, &ctl)) < 0)
		return r;
	*ret_ctl = ctl;
	rd->overflowed = (ctl & m->status_bit) != 0;
	if ((ctl & ~OFLOW_STATUS_BOTH) != m->ctl || !(ctl & OFLOW_STATUS_BOTH))
		return 0;
	if ((r = bus_write32(bus, MSMON_CFG_MBWU_CTL, ctl & ~OFLOW_STATUS_BOTH)) < 0)
		return r;
	return rd->overflowed ? read_counter(m, &rd->value, &rd->not_ready) : 0;
}

/* Programs the monitor again for its owner and reads the fresh count, which is the new baseline. */
static int restart_monitor(struct msc_monitors *m, unsigned mon, struct counter_reading *rd)
{
	long owner = counter_pool_owner(m->pool, mon);
	int r;

	if (owner < 0 || program_monitor(m, mon, (size_t)owner) < 0)
		return -EIO;
	if ((r = read_counter(m, &rd->value, &rd->not_ready)) < 0)
		return r;
	rd->overflowed = false;
	m->mon[mon].last = rd->value;
	return 0;
}

/* Why the monitor no longer counts what mpamd programmed, or NULL. CTL comes with every sample; the
 * filter is read back only when it is cheap to be careful: when the sample looks wrong and every
 * FLT_CHECK_TICKS ticks. */
static const char *settings_changed(struct msc_monitors *m, unsigned mon, uint32_t ctl)
{
	uint32_t flt;

	if ((ctl & ~OFLOW_STATUS_BOTH) != m->ctl)
		return "monitor control (MSMON_CFG_MBWU_CTL) was changed by another agent; reprogrammed";
	if (bus_read32(m->msc->bus, MSMON_CFG_MBWU_FLT, &flt) < 0)
		return "monitor filter (MSMON_CFG_MBWU_FLT) could not be read";
	if (flt != m->mon[mon].flt)
		return "monitor filter (MSMON_CFG_MBWU_FLT) was changed by another agent; reprogrammed";
	return NULL;
}

/* The careful path of a read, for a sample that looks wrong or is due for a filter check: a
 * monitor someone else reprogrammed is programmed again, a counter someone zeroed starts a new
 * baseline, and either way this sample is invalid with the reason. NRDY means what it says on
 * every MSC, whoever clears it (Linux honours it on every MBWU read): it is passed on as it is. */
static __attribute__((noinline)) int check_monitor(struct msc_monitors *m, unsigned mon, struct counter_reading *rd,
						   uint32_t ctl, const char **reason)
{
	struct mon_state *st = &m->mon[mon];
	bool backwards = !rd->not_ready && !rd->overflowed && rd->value < st->last;
	const char *why = settings_changed(m, mon, ctl);

	if (!why && !backwards) {
		if (!rd->not_ready)
			st->last = rd->value;
		return 0;
	}
	rd->restarted = true;
	if (!why) {
		/* Same settings, lower count: zeroed under us (Linux does so when the MSC's last CPU goes
		 * offline). What it counts from here on is good. */
		*reason = "counter went backwards without an overflow (reset by another agent); restarted";
		st->last = rd->value;
		return 0;
	}
	*reason = why;
	if (restart_monitor(m, mon, rd) < 0) {
		*reason = "monitor could not be reprogrammed";
		return -EIO;
	}
	return 0;
}

static int read_monitor(void *ctx, unsigned mon, struct counter_reading *rd, const char **reason)
{
	struct msc_monitors *m = ctx;
	struct mon_state *st = &m->mon[mon];
	uint32_t ctl = 0;
	int r = sample_monitor(m, mon, rd, &ctl);
	bool fresh = st->fresh;

	if (r < 0) {
		*reason =
			r == -EAGAIN ? "long counter kept changing while read" : "monitor registers could not be read";
		return r;
	}
	st->fresh = false;
	/* Settings as programmed, a count that did not go backwards, no filter check due; right after
	 * programming NRDY is expected and says nothing about the settings. */
	if ((ctl & ~OFLOW_STATUS_BOTH) == m->ctl && (rd->overflowed || rd->value >= st->last) &&
	    (!rd->not_ready || fresh) && ((m->tick + mon) & (FLT_CHECK_TICKS - 1))) {
		if (!rd->not_ready)
			st->last = rd->value;
		return 0;
	}
	return check_monitor(m, mon, rd, ctl, reason);
}

static const struct counter_pool_ops monitor_ops = {
	.program = program_monitor,
	.read = read_monitor,
};

int msc_monitors_new(struct msc *msc, size_t partitions, struct msc_monitors **ret, struct err *err)
{
	if (msc->caps.mon_ris < 0)
		return err_set(err, -EOPNOTSUPP, "the MSC has no bandwidth (MBWU) monitors");
	const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mon_ris];
	struct msc_monitors *m = calloc(1, sizeof(*m));
	if (!m)
		return err_set(err, -ENOMEM, "out of memory");
	m->msc = msc;
	m->ris = (unsigned)msc->caps.mon_ris;
	m->count = rc->num_mon;
	m->top_down = msc->access.beside_kernel;
	m->hw_top = rc->num_mon - 1;
	m->use_long = rc->has_long;
	m->bits = rc->counter_bits;
	unsigned scale = msc_counter_scale(msc, rc);
	unsigned unit_shift = msc_counter_unit_shift(msc, rc);
	m->ctl = (uint32_t)(mpam_field_prep(MSMON_CFG_CTL_TYPE, MSMON_CFG_CTL_TYPE_MBWU) | MSMON_CFG_CTL_MATCH_PARTID |
			    MSMON_CFG_CTL_EN | (scale ? MSMON_CFG_CTL_SCLEN : 0));
	m->status_bit = (uint32_t)(rc->has_long ? MSMON_CFG_CTL_OFLOW_STATUS_L : MSMON_CFG_CTL_OFLOW_STATUS);
	int grown = array_grow((void **)&m->partids, &m->part_count, partitions ? partitions : 1, sizeof(*m->partids),
			       NULL);
	m->mon = calloc(m->count ? m->count : 1, sizeof(*m->mon));
	struct counter_pool_params params = {
		.counters = m->count, .partitions = partitions, .bits = m->bits, .unit_shift = unit_shift
	};
	if (grown < 0 || !m->mon || counter_pool_new(&params, &monitor_ops, m, &m->pool) < 0) {
		msc_monitors_free(m);
		return err_set(err, -ENOMEM, "out of memory");
	}
	*ret = m;
	return 0;
}

void msc_monitors_free(struct msc_monitors *m)
{
	if (!m)
		return;
	counter_pool_free(m->pool);
	free(m->partids);
	free(m->mon);
	free(m);
}

bool msc_monitors_rotating(const struct msc_monitors *m)
{
	return counter_pool_rotating(m->pool);
}

int msc_monitors_add(struct msc_monitors *m, size_t index, uint16_t partid, struct err *err)
{
	if (index == SIZE_MAX ||
	    array_grow((void **)&m->partids, &m->part_count, index + 1, sizeof(*m->partids), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	if (partid > m->msc->caps.partid_max)
		return err_set(err, -ERANGE, "PARTID %u is above the MSC's PARTID_MAX %u", partid,
			       m->msc->caps.partid_max);
	m->partids[index] = partid;
	return counter_pool_add(m->pool, index) < 0 ? err_set(err, -ENOMEM, "out of memory") : 0;
}

void msc_monitors_remove(struct msc_monitors *m, size_t index)
{
	counter_pool_remove(m->pool, index);
}

void msc_monitors_read(struct msc_monitors *m, uint64_t now_ns, struct sample *out, size_t stride)
{
	counter_pool_read(m->pool, now_ns, out, stride);
	m->tick++;
}
