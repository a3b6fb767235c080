#include "backends/mmio/monitors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/counter.h"
#include "core/mpam_regs.h"

/* A monitor held this many ticks without producing a measurement is handed on (NRDY that never
 * clears, or a counter that keeps failing to read). */
#define MONITOR_MAX_DWELL_TICKS 16
/* A long counter whose high word keeps changing between reads is given up after this many tries. */
#define LONG_READ_RETRIES 3

enum slot_result {
	SLOT_IDLE,
	SLOT_NOT_READY,
	SLOT_BASELINE,
	SLOT_MEASURED,
	SLOT_FAILED,
};

struct mon_slot {
	long owner; /* partition index, -1 when free */
	bool has_baseline;
	uint64_t baseline; /* counter value, in counter units */
	uint64_t baseline_ns;
	unsigned ticks_held;
	unsigned measurements;
	/* this tick */
	enum slot_result result;
	uint64_t bytes, elapsed_ns;
	const char *reason;
};

struct mon_partition {
	bool active;
	uint16_t partid;
	long slot; /* -1 when it holds no monitor */
	bool has_rate;
	double bytes_per_ns;
	uint64_t last_ns; /* end of the last sample produced */
};

struct msc_monitors {
	struct msc *msc;
	unsigned ris;
	unsigned count;	     /* hardware monitors in use: NUM_MON */
	unsigned bits;	     /* counter width read */
	unsigned unit_shift; /* counter units are 2^unit_shift bytes */
	bool use_long;
	uint32_t ctl;	     /* what CTL holds while counting (EN included) */
	uint32_t status_bit; /* the overflow status of the counter read */
	struct mon_slot *slots;
	struct mon_partition *parts;
	size_t part_count;
	size_t active;
	size_t cursor; /* next partition to consider for a free monitor */
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
	/* More monitors than partitions would only be scanned for nothing each tick. */
	m->count = rc->num_mon < partitions ? rc->num_mon : (unsigned)partitions;
	m->use_long = rc->has_long;
	m->bits = rc->counter_bits;
	/* The long counter is never scaled; the 31-bit one is, when SCALE gives it more range. */
	m->unit_shift = rc->has_long ? 0 : rc->scale;
	m->ctl = (uint32_t)(mpam_field_prep(MSMON_CFG_CTL_TYPE, MSMON_CFG_CTL_TYPE_MBWU) | MSMON_CFG_CTL_MATCH_PARTID |
			    MSMON_CFG_CTL_EN | (m->unit_shift ? MSMON_CFG_CTL_SCLEN : 0));
	m->status_bit = (uint32_t)(rc->has_long ? MSMON_CFG_CTL_OFLOW_STATUS_L : MSMON_CFG_CTL_OFLOW_STATUS);
	m->slots = calloc(m->count, sizeof(*m->slots));
	m->parts = calloc(partitions ? partitions : 1, sizeof(*m->parts));
	if (!m->slots || !m->parts) {
		msc_monitors_free(m);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < m->count; i++)
		m->slots[i].owner = -1;
	for (size_t i = 0; i < partitions; i++)
		m->parts[i].slot = -1;
	m->part_count = partitions;
	*ret = m;
	return 0;
}

void msc_monitors_free(struct msc_monitors *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->parts);
	free(m);
}

size_t msc_monitors_active(const struct msc_monitors *m)
{
	return m->active;
}

bool msc_monitors_rotating(const struct msc_monitors *m)
{
	return m->active > m->count;
}

/* ---- register access ---- */

static int select_monitor(struct msc_monitors *m, unsigned mon)
{
	/* Never let an index the MSC does not implement reach MON_SEL: it would raise an MSC error. */
	if (mon >= m->count || m->ris >= m->msc->caps.ris_count)
		return -ERANGE;
	return bus_write32(m->msc->bus, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(m->ris, (uint16_t)mon));
}

/* Reads the selected monitor's counter: value in counter units and its NRDY bit. A long counter is
 * read high, low, high (the 64-bit register need not be single-copy atomic) until the highs agree. */
static int read_counter(struct msc_monitors *m, uint64_t *ret_value, bool *ret_nrdy)
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

/* The recommended reset sequence: EN=0, zero the counter(s), filter, EN=1. */
static int program_monitor(struct msc_monitors *m, unsigned mon, uint16_t partid)
{
	struct msc_bus *bus = m->msc->bus;
	uint32_t flt = msmon_mbwu_flt_encode(&(struct msmon_mbwu_flt){ .partid = partid });
	int r;

	if (partid > m->msc->caps.partid_max)
		return -ERANGE;
	if ((r = select_monitor(m, mon)) < 0 ||
	    (r = bus_write32(bus, MSMON_CFG_MBWU_CTL, m->ctl & ~MSMON_CFG_CTL_EN)) < 0 ||
	    (r = bus_write32(bus, MSMON_MBWU, 0)) < 0)
		return r;
	if (m->use_long &&
	    ((r = bus_write32(bus, MSMON_MBWU_L, 0)) < 0 || (r = bus_write32(bus, MSMON_MBWU_L + 4, 0)) < 0))
		return r;
	if ((r = bus_write32(bus, MSMON_CFG_MBWU_FLT, flt)) < 0)
		return r;
	return bus_write32(bus, MSMON_CFG_MBWU_CTL, m->ctl);
}

/* Reads counter and overflow status in an order that leaves no gap: the status is checked after the
 * value, and when it is set it is cleared and the value read again, so a wrap is always attributed
 * to the interval that ends with the value used. */
static int sample_monitor(struct msc_monitors *m, unsigned mon, uint64_t *ret_value, bool *ret_nrdy, bool *ret_overflow,
			  bool *ret_tampered)
{
	struct msc_bus *bus = m->msc->bus;
	uint32_t ctl;
	int r;

	if ((r = select_monitor(m, mon)) < 0 || (r = read_counter(m, ret_value, ret_nrdy)) < 0 ||
	    (r = bus_read32(bus, MSMON_CFG_MBWU_CTL, &ctl)) < 0)
		return r;
	uint32_t both_status = (uint32_t)(MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_OFLOW_STATUS_L);
	*ret_tampered = (ctl & ~both_status) != m->ctl;
	*ret_overflow = (ctl & m->status_bit) != 0;
	if (*ret_tampered)
		return 0;
	if (ctl & both_status) {
		if ((r = bus_write32(bus, MSMON_CFG_MBWU_CTL, ctl & ~both_status)) < 0)
			return r;
		if (*ret_overflow && (r = read_counter(m, ret_value, ret_nrdy)) < 0)
			return r;
	}
	if (!m->msc->caps.nrdy_hw)
		*ret_nrdy = false; /* software-managed NRDY means nothing (reference B.2 step 5) */
	return 0;
}

/* ---- per-slot state machine ---- */

static void slot_fail(struct mon_slot *s, const char *reason)
{
	s->result = SLOT_FAILED;
	s->reason = reason;
	s->has_baseline = false;
}

static void slot_read(struct msc_monitors *m, unsigned mon, uint64_t now_ns)
{
	struct mon_slot *s = &m->slots[mon];
	uint64_t value;
	bool nrdy, overflow, tampered;
	int r = sample_monitor(m, mon, &value, &nrdy, &overflow, &tampered);

	s->ticks_held++;
	if (r == -EAGAIN)
		return slot_fail(s, "long counter kept changing while read");
	if (r < 0)
		return slot_fail(s, "monitor registers could not be read");
	if (tampered) {
		/* Something else reprogrammed or reset the monitor: start again. */
		if (program_monitor(m, mon, m->parts[s->owner].partid) < 0)
			return slot_fail(s, "monitor could not be reprogrammed");
		return slot_fail(s, "monitor was reprogrammed behind mpamd's back; restarted");
	}
	if (nrdy) {
		s->result = SLOT_NOT_READY;
		s->reason = "monitor not ready (NRDY)";
		s->has_baseline = false; /* the count around a not-ready period cannot be trusted */
		return;
	}
	if (!s->has_baseline) {
		s->result = SLOT_BASELINE;
		s->reason = "first reading of a newly programmed monitor";
	} else {
		uint64_t units = counter_delta(s->baseline, value, m->bits, overflow);
		s->result = SLOT_MEASURED;
		s->bytes = units << m->unit_shift;
		s->elapsed_ns = now_ns - s->baseline_ns;
		s->measurements++;
	}
	s->has_baseline = true;
	s->baseline = value;
	s->baseline_ns = now_ns;
}

static void slot_assign(struct msc_monitors *m, unsigned mon, size_t index, uint64_t now_ns)
{
	struct mon_slot *s = &m->slots[mon];

	memset(s, 0, sizeof(*s));
	s->owner = (long)index;
	m->parts[index].slot = mon;
	if (program_monitor(m, mon, m->parts[index].partid) < 0) {
		slot_fail(s, "monitor could not be programmed");
		return;
	}
	/* Hardware without a settling time is ready at once: take the baseline now. */
	slot_read(m, mon, now_ns);
	s->ticks_held = 0;
	if (s->result == SLOT_BASELINE)
		s->result = SLOT_IDLE;
}

static void slot_release(struct msc_monitors *m, unsigned mon)
{
	struct mon_slot *s = &m->slots[mon];

	if (s->owner >= 0)
		m->parts[s->owner].slot = -1;
	s->owner = -1;
}

/* ---- partitions ---- */

int msc_monitors_add(struct msc_monitors *m, size_t index, uint16_t partid, struct err *err)
{
	if (index >= m->part_count)
		return err_set(err, -EINVAL, "partition index %zu out of range", index);
	if (partid > m->msc->caps.partid_max)
		return err_set(err, -ERANGE, "PARTID %u is above the MSC's PARTID_MAX %u", partid,
			       m->msc->caps.partid_max);
	struct mon_partition *p = &m->parts[index];
	if (!p->active)
		m->active++;
	*p = (struct mon_partition){ .active = true, .partid = partid, .slot = -1 };
	return 0;
}

static long next_waiting(struct msc_monitors *m)
{
	for (size_t n = 0; n < m->part_count; n++) {
		size_t i = (m->cursor + n) % m->part_count;
		if (m->parts[i].active && m->parts[i].slot < 0) {
			m->cursor = (i + 1) % m->part_count;
			return (long)i;
		}
	}
	return -1;
}

/* Hands free monitors to partitions that wait. While rotating, a monitor whose partition has been
 * measured (or that has been held too long) is freed first. */
static void rotate(struct msc_monitors *m, uint64_t now_ns)
{
	bool rotating = msc_monitors_rotating(m);

	for (unsigned mon = 0; mon < m->count; mon++) {
		struct mon_slot *s = &m->slots[mon];
		if (s->owner >= 0 && rotating && (s->measurements > 0 || s->ticks_held >= MONITOR_MAX_DWELL_TICKS))
			slot_release(m, mon);
		if (s->owner < 0) {
			long next = next_waiting(m);
			if (next < 0)
				break;
			slot_assign(m, mon, (size_t)next, now_ns);
		}
	}
}

static void fill_sample(struct msc_monitors *m, size_t index, uint64_t now_ns, struct sample *out)
{
	struct mon_partition *p = &m->parts[index];
	const struct mon_slot *s = p->slot >= 0 ? &m->slots[p->slot] : NULL;

	if (!p->active) {
		*out = (struct sample){ .state = SAMPLE_INVALID, .reason = "not measured on this MSC" };
		return;
	}
	if (s && s->result == SLOT_MEASURED && s->elapsed_ns > 0) {
		*out = (struct sample){ .state = SAMPLE_MEASURED, .bytes = s->bytes, .elapsed_ns = s->elapsed_ns };
		p->has_rate = true;
		p->bytes_per_ns = (double)s->bytes / (double)s->elapsed_ns;
	} else if (msc_monitors_rotating(m) && p->has_rate && now_ns > p->last_ns) {
		uint64_t elapsed = now_ns - p->last_ns;
		*out = (struct sample){ .state = SAMPLE_ESTIMATED,
					.bytes = (uint64_t)(p->bytes_per_ns * (double)elapsed + 0.5),
					.elapsed_ns = elapsed };
	} else {
		const char *why = s ? s->reason : "waiting for a free monitor";
		*out = (struct sample){ .state = SAMPLE_INVALID, .reason = why ? why : "no reading yet" };
	}
	p->last_ns = now_ns;
}

void msc_monitors_read(struct msc_monitors *m, uint64_t now_ns, struct sample *out, size_t stride)
{
	for (unsigned mon = 0; mon < m->count; mon++) {
		m->slots[mon].result = SLOT_IDLE;
		m->slots[mon].reason = NULL;
		if (m->slots[mon].owner >= 0)
			slot_read(m, mon, now_ns);
	}
	for (size_t i = 0; i < m->part_count; i++)
		fill_sample(m, i, now_ns, &out[i * stride]);
	rotate(m, now_ns);
}
