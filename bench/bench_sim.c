/* Instruction cost of the simulator's traffic loop (sim_host_advance), for callgrind.
 *
 *   bench_sim PARTITIONS MSCS MONITORS TICKS
 *
 * A simulated host of MSCS MSCs with MONITORS MBWU monitors each; monitor i of every MSC counts
 * partition i's PARTID (as mpamd's driver programs them with a monitor per partition). Demand exceeds
 * the capacity: most partitions demand about twice their even share, and every HEAVY_EVERY-th a
 * HEAVY_FACTOR times that, held back by an MBW_MAX of one of the MAX_LEVELS lowest bands; so the
 * traffic model water-fills over several levels (saturating the lowest caps first), as on a
 * contended host. Run it under
 *   valgrind --tool=callgrind --toggle-collect=bench_ticks ./bench_sim ...
 * and divide the collected instructions by TICKS (see bench/run-sim-bench). It also prints the wall-clock
 * time per tick (meaningful without valgrind, on an idle machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_arg.h"
#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/sim_host.h"
#include "core/config/config.h"
#include "core/engine/registry.h"

#define INTERVAL_MS	 100u
#define CAPACITY_MBPS	 20000u
#define MAX_LEVELS	 8u /* distinct MBW_MAX settings among the heavy partitions */
#define HEAVY_EVERY	 32u
#define HEAVY_FACTOR	 1000u
#define BWA_WD		 8u
#define CONFIG_TEXT_BASE 4096u
#define PARTITION_TEXT	 96u

static char *config_text(unsigned partitions, unsigned mscs, unsigned monitors)
{
	size_t cap = CONFIG_TEXT_BASE + (size_t)partitions * PARTITION_TEXT;
	char *text = malloc(cap);
	size_t used;

	if (!text)
		return NULL;
	used = (size_t)snprintf(text, cap,
				"[global]\nbackend = sim\ninterval_ms = %u\n[pmu]\nenabled = no\n[sim]\nmscs = %u\n"
				"capacity_mbps = %u\nmonitors = %u\npartid_max = %u\nnrdy_ticks = 0\nbwa_wd = %u\n",
				INTERVAL_MS, mscs, CAPACITY_MBPS, monitors, partitions, BWA_WD);
	for (unsigned i = 0; i < partitions && used < cap; i++) {
		unsigned share = 2 * CAPACITY_MBPS * mscs / partitions + 1 + i % 7;
		used += (size_t)snprintf(text + used, cap - used, "[partition \"p%u\"]\nsim_demand = %u\n", i,
					 i % HEAVY_EVERY ? share : share * HEAVY_FACTOR);
	}
	return text;
}

static struct config *load(const char *text)
{
	struct diag_list diags;
	struct config *config = NULL;
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	diag_list_init(&diags, "bench");
	if (in && config_load(in, engine_default_schema(), NULL, &config, &diags) < 0)
		config = NULL;
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	if (in)
		fclose(in);
	return config;
}

static void wr(struct msc_model *m, uint32_t offset, uint32_t value)
{
	msc_model_write32(m, offset, value);
}

/* What the driver would have programmed: a monitor per partition, and a heavy partition's MBW_MAX in
 * one of the MAX_LEVELS lowest bands (the others unlimited). */
static void program(struct msc_model *m, const struct config *config, unsigned monitors)
{
	for (size_t i = 0; i < config->partition_count; i++) {
		uint16_t partid = config->partitions[i].partid;
		struct msmon_mbwu_flt flt = { .partid = partid };
		struct msmon_mbwu_ctl ctl = { .match_partid = true, .en = true };

		wr(m, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, partid));
		unsigned band = (unsigned)(i / HEAVY_EVERY) % MAX_LEVELS;
		wr(m, MPAMCFG_MBW_MAX, i % HEAVY_EVERY ? 0xFFFFu : band << (16 - BWA_WD));
		if (i >= monitors)
			continue;
		wr(m, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, (uint16_t)i));
		wr(m, MSMON_CFG_MBWU_FLT, msmon_mbwu_flt_encode(&flt));
		wr(m, MSMON_CFG_MBWU_CTL, msmon_mbwu_ctl_encode(&ctl));
	}
}

/* The measured part: callgrind collects only inside this function. */
__attribute__((noinline)) void bench_ticks(struct sim_host *host, unsigned ticks);
__attribute__((noinline)) void bench_ticks(struct sim_host *host, unsigned ticks)
{
	for (unsigned t = 1; t <= ticks; t++)
		sim_host_advance(host, (uint64_t)t * INTERVAL_MS * 1000000u);
}

int main(int argc, char **argv)
{
	struct sim_host *host = NULL;
	struct err err = { "" };

	if (argc != 5) {
		fprintf(stderr, "usage: bench_sim PARTITIONS MSCS MONITORS TICKS\n");
		return 2;
	}
	struct bench_shape shape = bench_shape_args("bench_sim", argv, 0);
	unsigned partitions = shape.partitions, mscs = shape.mscs, monitors = shape.monitors, ticks = shape.ticks;
	char *text = config_text(partitions, mscs, monitors);
	struct config *config = text ? load(text) : NULL;

	free(text);
	if (!config || sim_host_new(config, 0, &host, &err) < 0) {
		fprintf(stderr, "bench_sim: %s\n", config ? err.text : "the configuration did not load");
		config_free(config);
		return 1;
	}
	for (size_t m = 0; m < sim_host_msc_count(host); m++)
		program(sim_host_msc(host, m), config, monitors);
	struct timespec start, end;
	clock_gettime(CLOCK_MONOTONIC, &start);
	bench_ticks(host, ticks);
	clock_gettime(CLOCK_MONOTONIC, &end);
	double ms = (double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6;
	printf("ms/tick %.3f\n", ms / ticks);
	double total = 0;
	for (size_t i = 0; i < config->partition_count; i++)
		total += sim_host_truth_mbps(host, i);
	printf("served %.1f MB/s of %u\n", total, CAPACITY_MBPS * mscs);
	sim_host_free(host);
	config_free(config);
	return 0;
}
