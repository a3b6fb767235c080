/* MBWU monitors of one MSC as a counter pool (backends/shared/counter_pool.c): this file knows the registers,
 * the pool decides who holds which monitor.
 *
 * The sequence is Linux's (drivers/resctrl, 7.1+): programming writes FLT, CTL with EN clear, CTL
 * with EN set, and only then zeroes the counter; a read selects the monitor, reads the counter and
 * CTL (its overflow status, and whether someone else reprogrammed it), and honours NRDY. Where mpamd
 * owns the MSC alone (not beside the kernel's MPAM driver or resctrl) it saves register accesses
 * that tell it nothing new, each explained where it is made:
 *  - MSMON_CFG_MON_SEL is not written again within one pass when it already selects the monitor
 *    (a monitor programmed and then read for its baseline);
 *  - a long counter's high word is expected to be what it was at the last read, so the usual read is
 *    low, high instead of high, low, high;
 *  - a long counter that counted forwards and is ready is taken without reading CTL: CTL is read
 *    when the count needs a look (backwards, not ready) and on each monitor's staggered check;
 *  - the baseline read right after programming does not read CTL back. */
#include "backends/mmio/monitors.h"

#include <errno.h>
#include <stdlib.h>

#include "backends/shared/counter_pool.h"
#include "core/base/grow.h"
#include "backends/mpam/mpam_regs.h"

/* A long counter whose high word keeps changing between reads is given up after this many tries. */
#define LONG_READ_RETRIES 3
/* Every MSC_MONITORS_CHECK_TICKS ticks (a power of two) each monitor's settings are read back,
 * staggered over the monitors: its filter, to catch another agent that changed only
 * MSMON_CFG_MBWU_FLT, and its CTL, where CTL is not read on every tick (ctl_every_read). */
#define CHECK_TICKS MSC_MONITORS_CHECK_TICKS
_Static_assert((CHECK_TICKS & (CHECK_TICKS - 1)) == 0, "the staggered check is a mask: a power of two");
/* No MSMON_CFG_MON_SEL value known to be in the register (RIS and MON_SEL never fill bit 31). */
#define SEL_UNKNOWN UINT32_MAX

/* What mpamd last did with one hardware monitor. */
struct mon_state {
	uint64_t last;	   /* the last value read, counter units: a later one below it without an overflow
			* means someone else zeroed the counter */
	uint32_t sel;	   /* the MSMON_CFG_MON_SEL value that selects it */
	uint32_t sel_kept; /* what the pass remembers after writing it: sel, or SEL_UNKNOWN when not the
			    * sole user */
	uint32_t flt;	   /* the filter programmed */
	/* Long counter: the high word (NRDY included) at the last consistent read, when high_known. */
	uint32_t high;
	bool high_known;
	bool fresh; /* programmed and not read since: the next read is its first */
};

struct msc_monitors {
	struct msc *msc;
	struct msc_bus *bus; /* msc->bus, taken at the start of each pass */
	unsigned ris;
	unsigned count;	     /* monitors the MSC has (the pool uses at most one per partition) */
	unsigned bits;	     /* counter width read */
	uint64_t value_mask; /* its value bits in MSMON_MBWU_L */
	bool use_long;
	/* mpamd is the MSC's only user of the monitor registers: MON_SEL may be remembered within a
	 * pass and a long counter's high word predicted. Not beside the kernel's MPAM driver or
	 * resctrl, which select monitors (and zero counters on CPU hotplug) whenever they like. */
	bool sole_user;
	/* CTL is read on every read, for its overflow status and to see another agent's change at once:
	 * beside the kernel (Linux's sequence, every read) and for a 31-bit counter, whose range a
	 * late tick can pass at 20 GB/s (2^31 bytes in 100 ms), so that its overflow status is the
	 * only thing that tells a count that went all the way round from a small one. A long counter
	 * (44 or 63 bits) of mpamd alone takes minutes at least to wrap at memory speeds, and the engine
	 * refuses an interval with fewer than two reads per wrap: a forward, ready count of it tells all
	 * CTL would (see read_monitor), and CTL is read when the count needs a look and on the
	 * staggered checks. */
	bool ctl_every_read;
	uint32_t selected;   /* MON_SEL as this pass last wrote it, SEL_UNKNOWN when not known */
	uint32_t ctl;	     /* what CTL holds while counting (EN included) */
	uint32_t status_bit; /* the overflow status of the counter read */
	uint16_t *partids;   /* per partition index (grows with the indices added) */
	size_t part_count;
	struct mon_state *mon; /* per monitor */
	unsigned tick;	       /* reads of the whole set, for the staggered filter checks */
	struct counter_pool *pool;
};

/* Both overflow status bits: status, not settings, when CTL is compared with what was programmed. */
#define OFLOW_STATUS_BOTH ((uint32_t)(MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_OFLOW_STATUS_L))

/* After a failed access nothing is known of the selection, nor of a counter's high word: the bus may
 * have done the access before failing. */
static int forget(struct msc_monitors *m, struct mon_state *st, int r)
{
	m->selected = SEL_UNKNOWN;
	st->high_known = false;
	return r;
}

static inline int select_monitor(struct msc_monitors *m, struct mon_state *st)
{
	if (st->sel == m->selected)
		return 0;
	int r = bus_write32(m->bus, MSMON_CFG_MON_SEL, st->sel);
	if (r < 0)
		return forget(m, st, r);
	m->selected = st->sel_kept;
	return 0;
}

/* Reads the selected monitor's long counter, whose 64-bit register need not be single-copy atomic:
 * the low word is good only with the high word it was read under. Linux reads high, low, high until
 * the highs agree, three times at most. This does the same, from a high word `expected` already read
 * (have_expected), or from the start. */
static __attribute__((noinline)) int read_long_retry(struct msc_monitors *m, struct mon_state *st, bool have_expected,
						     uint32_t expected, uint64_t *ret_value, bool *ret_nrdy)
{
	uint32_t lo, hi;
	int r;

	if (!have_expected && (r = bus_read32(m->bus, MSMON_MBWU_L + 4, &expected)) < 0)
		return forget(m, st, r);
	for (int tries = 0; tries < LONG_READ_RETRIES; tries++) {
		if ((r = bus_read32(m->bus, MSMON_MBWU_L, &lo)) < 0 ||
		    (r = bus_read32(m->bus, MSMON_MBWU_L + 4, &hi)) < 0)
			return forget(m, st, r);
		if (hi == expected) {
			*ret_value = ((uint64_t)hi << 32 | lo) & m->value_mask;
			*ret_nrdy = (hi & (uint32_t)(MSMON_MBWU_L_NRDY >> 32)) != 0;
			st->high = hi;
			st->high_known = m->sole_user;
			return 0;
		}
		expected = hi;
	}
	return forget(m, st, -EAGAIN);
}

/* Reads the selected monitor's long counter. When its high word is expected (the last read's: it
 * changes only every 2^32 units, or when the counter is zeroed, which only mpamd does while it is
 * the sole user), low then high is enough: a high word equal to the expected one was there all
 * along since the last read, so also when the low word was read. When it differs, that high word is
 * the first of Linux's sequence, which takes over. */
static inline __attribute__((always_inline)) int read_long(struct msc_monitors *m, struct mon_state *st,
							   uint64_t *ret_value, bool *ret_nrdy)
{
	uint32_t lo, hi;
	int r;

	if (!st->high_known)
		return read_long_retry(m, st, false, 0, ret_value, ret_nrdy);
	if ((r = bus_read32(m->bus, MSMON_MBWU_L, &lo)) < 0 || (r = bus_read32(m->bus, MSMON_MBWU_L + 4, &hi)) < 0)
		return forget(m, st, r);
	if (__builtin_expect(hi != st->high, 0))
		return read_long_retry(m, st, true, hi, ret_value, ret_nrdy);
	*ret_value = ((uint64_t)hi << 32 | lo) & m->value_mask;
	*ret_nrdy = (hi & (uint32_t)(MSMON_MBWU_L_NRDY >> 32)) != 0;
	return 0;
}

/* Reads the selected monitor's counter: value in counter units and its NRDY bit. */
static inline __attribute__((always_inline)) int read_counter(struct msc_monitors *m, struct mon_state *st,
							      uint64_t *ret_value, bool *ret_nrdy)
{
	uint32_t lo;
	int r;

	if (m->use_long)
		return read_long(m, st, ret_value, ret_nrdy);
	if ((r = bus_read32(m->bus, MSMON_MBWU, &lo)) < 0)
		return forget(m, st, r);
	*ret_value = lo & MSMON_MBWU_VALUE;
	*ret_nrdy = (lo & MSMON_MBWU_NRDY) != 0;
	return 0;
}

/* Zeroes the counter in use: MSMON_MBWU, or both words of MSMON_MBWU_L, low first (the high word
 * holds NRDY). Afterwards a long counter's high word is known to be 0, as written. */
static int zero_counter(struct msc_monitors *m, struct mon_state *st)
{
	int r;

	if (!m->use_long)
		return bus_write32(m->bus, MSMON_MBWU, 0);
	if ((r = bus_write32(m->bus, MSMON_MBWU_L, 0)) < 0 || (r = bus_write32(m->bus, MSMON_MBWU_L + 4, 0)) < 0)
		return r;
	st->high = 0;
	st->high_known = m->sole_user;
	return 0;
}

/* The Linux driver's order: filter, CTL with EN clear, CTL with EN set, and only then zero the
 * counter. Enabling sets NRDY; an MSC that leaves NRDY to software clears it only when the counter
 * is written after that, so zeroing before enabling would leave the monitor not ready for good. */
static int program_monitor(void *ctx, unsigned mon, size_t partition)
{
	struct msc_monitors *m = ctx;
	struct mon_state *st = &m->mon[mon];
	uint16_t partid = m->partids[partition];
	uint32_t flt = msmon_mbwu_flt_encode(&(struct msmon_mbwu_flt){ .partid = partid });
	int r;

	if (mon >= m->count || partid > m->msc->caps.partid_max)
		return -ERANGE;
	st->high_known = false;
	if ((r = select_monitor(m, st)) < 0 || (r = bus_write32(m->bus, MSMON_CFG_MBWU_FLT, flt)) < 0 ||
	    (r = bus_write32(m->bus, MSMON_CFG_MBWU_CTL, m->ctl & ~MSMON_CFG_CTL_EN)) < 0 ||
	    (r = bus_write32(m->bus, MSMON_CFG_MBWU_CTL, m->ctl)) < 0 || (r = zero_counter(m, st)) < 0)
		return forget(m, st, r);
	st->last = 0;
	st->flt = flt;
	st->fresh = true;
	return 0;
}

/* Programs the monitor again for its owner and reads the fresh count, which is the new baseline. */
static int restart_monitor(struct msc_monitors *m, unsigned mon, struct counter_reading *rd)
{
	struct mon_state *st = &m->mon[mon];
	long owner = counter_pool_owner(m->pool, mon);
	int r;

	/* Someone else wrote the monitor's registers, maybe MON_SEL too: select it again. */
	m->selected = SEL_UNKNOWN;
	if (owner < 0 || program_monitor(m, mon, (size_t)owner) < 0)
		return -EIO;
	st->fresh = false;
	if ((r = read_counter(m, st, &rd->value, &rd->not_ready)) < 0)
		return r;
	rd->overflowed = false;
	st->last = rd->value;
	return 0;
}

/* Why the monitor no longer counts what mpamd programmed, or NULL. CTL is the one the careful path
 * read; the filter is read back only when it is cheap to be careful: when the sample looks wrong and
 * every CHECK_TICKS ticks. */
static const char *settings_changed(struct msc_monitors *m, struct mon_state *st, uint32_t ctl)
{
	uint32_t flt;

	if ((ctl & ~OFLOW_STATUS_BOTH) != m->ctl)
		return "monitor control (MSMON_CFG_MBWU_CTL) was changed by another agent; reprogrammed";
	if (bus_read32(m->bus, MSMON_CFG_MBWU_FLT, &flt) < 0) {
		forget(m, st, -EIO);
		return "monitor filter (MSMON_CFG_MBWU_FLT) could not be read";
	}
	if (flt != st->flt)
		return "monitor filter (MSMON_CFG_MBWU_FLT) was changed by another agent; reprogrammed";
	return NULL;
}

/* The careful path of a read, for a sample that looks wrong or is due for a filter check: a
 * monitor someone else reprogrammed is programmed again, a counter someone zeroed starts a new
 * baseline, and either way this sample is invalid with the reason. NRDY means what it says on
 * every MSC, whoever clears it (Linux honours it on every MBWU read): it is passed on as it is. */
static __attribute__((noinline)) void check_monitor(struct msc_monitors *m, unsigned mon, struct counter_reading *rd,
						    uint32_t ctl)
{
	struct mon_state *st = &m->mon[mon];
	bool backwards = !rd->not_ready && !rd->overflowed && rd->value < st->last;
	const char *why = settings_changed(m, st, ctl);

	if (!why && !backwards) {
		if (!rd->not_ready)
			st->last = rd->value;
		return;
	}
	rd->restarted = true;
	if (!why) {
		/* Same settings, lower count: zeroed under us (Linux does so when the MSC's last CPU goes
		 * offline). What it counts from here on is good. */
		rd->reason = "counter went backwards without an overflow (reset by another agent); restarted";
		st->last = rd->value;
		return;
	}
	rd->reason = why;
	if (restart_monitor(m, mon, rd) < 0) {
		rd->reason = "monitor could not be reprogrammed";
		rd->error = -EIO;
	}
}

static __attribute__((noinline)) void read_failed(struct counter_reading *rd, int r)
{
	*rd = (struct counter_reading){ .held = true };
	rd->error = r;
	rd->reason = r == -EAGAIN ? "long counter kept changing while read" : "monitor registers could not be read";
}

/* The first read after programming, in the same pass: the baseline. CTL was just written with its
 * status clear and the counter zeroed, so there is nothing to read back; NRDY is expected. */
static __attribute__((noinline)) void read_fresh(struct msc_monitors *m, struct mon_state *st,
						 struct counter_reading *rd)
{
	int r = select_monitor(m, st);

	*rd = (struct counter_reading){ .held = true };
	st->fresh = false;
	if (r == 0)
		r = read_counter(m, st, &rd->value, &rd->not_ready);
	if (r < 0)
		return read_failed(rd, r);
	if (!rd->not_ready)
		st->last = rd->value;
}

/* The rest of a read whose CTL was not simply what mpamd programmed, or whose count needs a look.
 * Counter and overflow status are read in an order that leaves no gap: the status is checked after
 * the value, and when it is set it is cleared and the value read again, so a wrap is always
 * attributed to the interval that ends with the value used. */
static __attribute__((noinline)) void read_monitor_careful(struct msc_monitors *m, unsigned mon,
							   struct counter_reading *rd, uint32_t ctl)
{
	struct mon_state *st = &m->mon[mon];
	int r;

	rd->overflowed = (ctl & m->status_bit) != 0;
	if ((ctl & ~OFLOW_STATUS_BOTH) == m->ctl && (ctl & OFLOW_STATUS_BOTH)) {
		if ((r = bus_write32(m->bus, MSMON_CFG_MBWU_CTL, ctl & ~OFLOW_STATUS_BOTH)) < 0)
			return read_failed(rd, forget(m, st, r));
		if (rd->overflowed && (r = read_counter(m, st, &rd->value, &rd->not_ready)) < 0)
			return read_failed(rd, r);
	}
	/* Where CTL is not read on every tick, a set status may be older than this interval: a wrap
	 * just after a forward count was taken shows as a backwards count at the next read, which
	 * comes here and clears it, but one that a failed or not-ready read let pass (with its
	 * baseline) is seen only at the staggered check. Within an interval the engine allows, the
	 * count went round since the last read exactly when it is now below it; a status beside a
	 * forward count is that older one, cleared above and not a wrap (counted, it would add the
	 * counter's whole range). */
	if (rd->overflowed && !m->ctl_every_read && rd->value >= st->last)
		rd->overflowed = false;
	/* Settings as programmed, a count that did not go backwards, ready, no check due. */
	if ((ctl & ~OFLOW_STATUS_BOTH) == m->ctl && (rd->overflowed || rd->value >= st->last) && !rd->not_ready &&
	    ((m->tick + mon) & (CHECK_TICKS - 1))) {
		st->last = rd->value;
		return;
	}
	check_monitor(m, mon, rd, ctl);
}

/* One held monitor's reading into *rd: select it, read the counter, then CTL where it is read on
 * every tick. The usual case ends here: a count that went forwards, ready, no check due, and CTL
 * (when read) exactly as programmed, without overflow status.
 * Without CTL, that count is still all CTL would tell: a wrap since the last read would show as a
 * count below it (the engine keeps the interval under half a wrap), and so would a
 * counter zeroed by another agent (unless it climbed back past the last count, which CTL would not
 * tell either); settings changed by one are caught at the staggered check, or at once when they make
 * the monitor not ready. Any other count goes the careful way, which reads CTL. */
static inline __attribute__((always_inline)) void read_monitor(struct msc_monitors *m, unsigned mon,
							       struct counter_reading *rd)
{
	struct mon_state *st = &m->mon[mon];
	uint64_t value;
	uint32_t ctl;
	bool nrdy;
	int r;

	if (st->fresh)
		return read_fresh(m, st, rd);
	if ((r = select_monitor(m, st)) < 0 || (r = read_counter(m, st, &value, &nrdy)) < 0)
		return read_failed(rd, r);
	*rd = (struct counter_reading){ .value = value, .held = true, .not_ready = nrdy };
	bool forwards = value >= st->last && !nrdy && ((m->tick + mon) & (CHECK_TICKS - 1));
	if (__builtin_expect(forwards && !m->ctl_every_read, 1)) {
		st->last = value;
		return;
	}
	if ((r = bus_read32(m->bus, MSMON_CFG_MBWU_CTL, &ctl)) < 0)
		return read_failed(rd, forget(m, st, r));
	if (forwards && ctl == m->ctl) {
		st->last = value;
		return;
	}
	read_monitor_careful(m, mon, rd, ctl);
}

static void read_monitors(void *ctx, unsigned first, unsigned count, struct counter_reading *ret)
{
	struct msc_monitors *m = ctx;

	if (first >= m->count)
		return;
	if (count > m->count - first)
		count = m->count - first;
	for (unsigned k = 0; k < count; k++)
		if (ret[k].held)
			read_monitor(m, first + k, &ret[k]);
}

static const struct counter_pool_ops monitor_ops = {
	.program = program_monitor,
	.read = read_monitors,
};

/* Beside the kernel's MPAM driver, which hands monitors out from 0, the pool's monitor i is the MSC's
 * last - i, so that the two collide as late as they can. */
static void set_selections(struct msc_monitors *m, bool top_down)
{
	for (unsigned i = 0; i < m->count; i++) {
		m->mon[i].sel = msmon_cfg_mon_sel(m->ris, (uint16_t)(top_down ? m->count - 1 - i : i));
		m->mon[i].sel_kept = m->sole_user ? m->mon[i].sel : SEL_UNKNOWN;
	}
}

int msc_monitors_new(struct msc *msc, size_t partitions, struct msc_monitors **ret, struct err *err)
{
	if (msc->caps.mon_ris < 0 || (unsigned)msc->caps.mon_ris >= msc->caps.ris_count)
		return err_set(err, -EOPNOTSUPP, "the MSC has no bandwidth (MBWU) monitors");
	const struct msc_ris_caps *rc = &msc->caps.ris[msc->caps.mon_ris];
	struct msc_monitors *m = calloc(1, sizeof(*m));
	if (!m)
		return err_set(err, -ENOMEM, "out of memory");
	m->msc = msc;
	m->ris = (unsigned)msc->caps.mon_ris;
	m->count = rc->num_mon;
	m->sole_user = !msc->access.beside_kernel && !msc->access.monitor_only;
	m->selected = SEL_UNKNOWN;
	m->use_long = rc->has_long;
	m->ctl_every_read = !m->sole_user || !m->use_long;
	m->bits = rc->counter_bits;
	m->value_mask = mpam_counter_mask(m->bits);
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
	set_selections(m, msc->access.beside_kernel);
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

int msc_monitors_keep(struct msc_monitors *m, size_t index, bool keep, struct err *err)
{
	int r = counter_pool_keep(m->pool, index, keep);

	if (r == -ENOSPC)
		return err_set(err, r, "all but one of its %u monitors are kept already", m->count);
	return r < 0 ? err_set(err, r, "partition slot %zu is not measured here", index) : 0;
}

void msc_monitors_remove(struct msc_monitors *m, size_t index)
{
	counter_pool_remove(m->pool, index);
}

/* One pass: every monitor access of a tick happens inside it. MON_SEL is taken as unknown at its
 * start, whatever this pass last wrote: between two ticks anyone may have written it. */
void msc_monitors_read(struct msc_monitors *m, uint64_t now_ns, struct sample *out, size_t stride)
{
	m->bus = m->msc->bus;
	m->selected = SEL_UNKNOWN;
	counter_pool_read(m->pool, now_ns, out, stride);
	m->selected = SEL_UNKNOWN; /* between passes too: whatever programs a monitor selects it anew */
	m->tick++;
}
