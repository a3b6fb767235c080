/* Instruction cost of the MMIO driver's per-tick monitor reads, for callgrind.
 *
 *   bench_driver PARTITIONS MSCS MONITORS TICKS [--count-mmio]
 *
 * The MSCs are plain register files (writes stored, reads return what was stored; the monitor
 * registers banked by MSMON_CFG_MON_SEL), so the count is the driver's own work plus a few
 * instructions per register access, not a simulator's. Run it under
 *   valgrind --tool=callgrind --toggle-collect=bench_ticks ./bench_driver ...
 * and divide the collected instructions by TICKS (see bench/run-driver-bench); the register file's own
 * share is what callgrind counts inside flat_read32 and flat_write32. With --count-mmio it
 * counts the register reads and writes of those ticks instead and prints them (a separate run, so
 * that counting adds nothing to the instructions). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_arg.h"
#include "backends/mmio/monitors.h"
#include "backends/mmio/msc.h"
#include "backends/mpam/mpam_regs.h"

/* The monitor registers after MSMON_CFG_MON_SEL, up to MSMON_OFLOW_SR: one copy of the block per
 * monitor, as an MSC keeps FLT, CTL and the counters per monitor. */
#define MON_BLOCK_START (MSMON_CFG_MON_SEL + 4)
#define MON_BLOCK_WORDS ((MSMON_OFLOW_SR - MON_BLOCK_START) / 4)
#define TICK_NS		100000000ull

struct flat_bus {
	struct msc_bus base;
	uint32_t regs[MPAM_MSC_PAGE_SIZE / 4];
	uint32_t (*mon)[MON_BLOCK_WORDS]; /* per monitor */
	uint32_t *selected;		  /* the block MSMON_CFG_MON_SEL selects (a spare one when none) */
	unsigned monitors;
	unsigned long reads, writes; /* accesses while counting */
	bool counting;
};

/* Where the word at `off` lives: the selected monitor's block, or the page. */
static uint32_t *flat_reg(struct flat_bus *f, uint32_t off)
{
	uint32_t in_block = off - MON_BLOCK_START;

	return in_block < MON_BLOCK_WORDS * 4 ? &f->selected[in_block / 4] : &f->regs[off / 4];
}

static int flat_read32(struct msc_bus *b, uint32_t off, uint32_t *ret)
{
	struct flat_bus *f = (struct flat_bus *)b;

	if (!bus_access_ok(b->size, off, 4))
		return -EFAULT;
	*ret = *flat_reg(f, off);
	if (f->counting)
		f->reads++;
	return 0;
}

static int flat_write32(struct msc_bus *b, uint32_t off, uint32_t v)
{
	struct flat_bus *f = (struct flat_bus *)b;

	if (!bus_access_ok(b->size, off, 4))
		return -EFAULT;
	/* ID registers are read-only, as on hardware. */
	if (off >= MPAMCFG_PART_SEL)
		*flat_reg(f, off) = v;
	if (off == MSMON_CFG_MON_SEL) {
		unsigned mon = v & 0xffff;
		f->selected = f->mon[mon < f->monitors ? mon : f->monitors];
	}
	if (f->counting)
		f->writes++;
	return 0;
}

static int flat_read64(struct msc_bus *b, uint32_t off, uint64_t *ret)
{
	uint32_t lo, hi;
	int r = flat_read32(b, off, &lo);

	if (r == 0)
		r = flat_read32(b, off + 4, &hi);
	if (r == 0)
		*ret = (uint64_t)hi << 32 | lo;
	return r;
}

static int flat_write64(struct msc_bus *b, uint32_t off, uint64_t v)
{
	int r = flat_write32(b, off, (uint32_t)v);

	return r ? r : flat_write32(b, off + 4, (uint32_t)(v >> 32));
}

static void flat_close(struct msc_bus *b)
{
	free(((struct flat_bus *)b)->mon);
	free(b);
}

static const struct msc_bus_ops flat_ops = { flat_read32, flat_write32, flat_read64, flat_write64, flat_close };

static struct msc_bus *flat_bus_new(unsigned monitors)
{
	struct flat_bus *f = calloc(1, sizeof(*f));
	struct mpamf_idr idr = { .partid_max = 65535, .pmg_max = 1, .has_mbw_part = true, .has_msmon = true };
	struct mpamf_mbw_idr mbw = { .bwa_wd = 8, .has_max = true, .has_min = true };
	struct mpamf_mbwumon_idr mon = { .num_mon = (uint16_t)monitors, .has_long = true };
	uint64_t raw_idr = mpamf_idr_encode(&idr);

	f->base = (struct msc_bus){ .ops = &flat_ops, .size = MPAM_MSC_PAGE_SIZE };
	f->mon = calloc(monitors + 1, sizeof(*f->mon));
	f->monitors = monitors;
	f->selected = f->mon[0];
	f->regs[MPAMF_AIDR / 4] = MPAMF_AIDR_V1;
	f->regs[MPAMF_IDR / 4] = (uint32_t)raw_idr;
	f->regs[MPAMF_MBW_IDR / 4] = mpamf_mbw_idr_encode(&mbw);
	f->regs[MPAMF_MSMON_IDR / 4] = (uint32_t)MPAMF_MSMON_IDR_MSMON_MBWU;
	f->regs[MPAMF_MBWUMON_IDR / 4] = mpamf_mbwumon_idr_encode(&mon);
	return &f->base;
}

/* Everything a tick of the driver does for every MSC; the function callgrind collects. */
__attribute__((noinline)) void bench_ticks(struct msc_monitors **mons, size_t mscs, uint64_t now, unsigned ticks,
					   struct sample *samples);

void bench_ticks(struct msc_monitors **mons, size_t mscs, uint64_t now, unsigned ticks, struct sample *samples)
{
	for (unsigned t = 0; t < ticks; t++) {
		now += TICK_NS;
		for (size_t m = 0; m < mscs; m++)
			msc_monitors_read(mons[m], now, &samples[m], mscs);
	}
}

int main(int argc, char **argv)
{
	bool count_mmio = argc == 6 && !strcmp(argv[5], "--count-mmio");
	if (argc != 5 && !count_mmio) {
		fprintf(stderr, "usage: bench_driver PARTITIONS MSCS MONITORS TICKS [--count-mmio]\n");
		return 2;
	}
	struct bench_shape shape = bench_shape_args("bench_driver", argv, 1);
	unsigned partitions = shape.partitions, mscs = shape.mscs, monitors = shape.monitors, ticks = shape.ticks;
	struct msc *msc = calloc(mscs, sizeof(*msc));
	struct msc_monitors **mons = calloc(mscs, sizeof(*mons));
	struct sample *samples = calloc((size_t)partitions * mscs, sizeof(*samples));
	struct err err;

	for (unsigned m = 0; m < mscs; m++) {
		msc[m].bus = flat_bus_new(monitors);
		if (msc_probe(msc[m].bus, &(struct msc_probe_opts){ 0 }, &msc[m].caps, &err) < 0 ||
		    msc_monitors_new(&msc[m], partitions, &mons[m], &err) < 0) {
			fprintf(stderr, "bench_driver: %s\n", err.text);
			return 1;
		}
		for (unsigned p = 0; p < partitions; p++)
			msc_monitors_add(mons[m], p, (uint16_t)(p + 1), &err);
	}
	/* Warm up outside bench_ticks: monitors assigned and baselined, and while rotating every partition
	 * measured once (a turn per monitor per tick), so that the counted ticks are the steady state. */
	unsigned warmup = 3 + (monitors < partitions ? (partitions + monitors - 1) / monitors : 0);
	uint64_t now = 1000000000ull;
	for (unsigned t = 0; t < warmup; t++, now += TICK_NS)
		for (unsigned m = 0; m < mscs; m++)
			msc_monitors_read(mons[m], now, &samples[m], mscs);
	for (unsigned m = 0; m < mscs; m++)
		((struct flat_bus *)msc[m].bus)->counting = count_mmio;
	bench_ticks(mons, mscs, now, ticks, samples);
	unsigned long reads = 0, writes = 0;
	for (unsigned m = 0; m < mscs; m++) {
		reads += ((struct flat_bus *)msc[m].bus)->reads;
		writes += ((struct flat_bus *)msc[m].bus)->writes;
	}
	/* For bench/run-driver-bench: register accesses during the counted ticks. */
	if (count_mmio)
		printf("mmio_reads %lu mmio_writes %lu\n", reads, writes);
	for (unsigned m = 0; m < mscs; m++) {
		msc_monitors_free(mons[m]);
		bus_free(msc[m].bus);
	}
	free(msc);
	free(mons);
	free(samples);
	return 0;
}
