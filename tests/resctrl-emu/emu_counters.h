/* Monitoring data from the shared traffic model (backends/sim/traffic.h).
 *
 * Demand: a group named PREFIX + NAME makes the sim_demand of config partition NAME (the CTRL_MON
 * group of that name if there is one, else the first MON group of that name), with the config's
 * noise and seed, one demand value per interval_ms tick, split evenly over the domains its
 * sim_domains names (every domain by default; domain d is the d-th of the profile's, as in the
 * simulator), and on and off as its sim_burst says (backends/sim/burst.h, the simulator's code:
 * traffic is integrated in segments that end at every burst edge). Groups without a partition make
 * no traffic.
 * Service: in each domain (capacity [sim] capacity_mbps, default 20000 MB/s) every CLOSID is one
 * traffic request whose demand is the sum of its groups' and whose max share comes from its MB
 * schemata value through the plant's curve ([sim] mb_curve, backends/sim/mb_curve.h, linear by
 * default). The curve's PCT is the share of the domain the value names: Intel's percentage, the top
 * of an MPAM band, and for AMD's absolute 1/8 GB/s units their bandwidth over capacity_mbps (a value
 * that names the whole domain or more is 100). mba_MBps values are held by the kernel's controller,
 * idealised: no curve. A CLOSID's service is shared by its groups in proportion to their demand.
 * Delay ([sim] delay_ticks N): the MB value that governs a tick's traffic is the one schemata held at
 * the end of the tick N ticks before (a value written during tick k governs from tick k + N on);
 * schemata shows the written value at once.
 * Counters: bytes accumulate as time passes (integrated lazily, fractions kept, 1 MB = 10^6 bytes),
 * the bytes of each tick times 1 + measure_noise_pct/100 * u (u uniform in [-1, 1), a draw per
 * partition, domain and tick from its own sequence of the config's seed; no noise by default);
 * mbm_local_bytes is EMU_LOCAL_SHARE of mbm_total_bytes; llc_occupancy splits each cache way among
 * the CLOSIDs whose mask holds it in proportion to their current bandwidth (0 while idle), in
 * multiples of 64 bytes. A CTRL_MON group's value includes its MON groups. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_COUNTERS_H
#define MPAMD_TESTS_RESCTRL_EMU_COUNTERS_H

#include "emu_node.h"
#include "emu_profile.h"

#define EMU_DEFAULT_CAPACITY_MBPS 20000.0
#define EMU_LOCAL_SHARE		  0.8

/* 0 or -ENOMEM. */
int emu_traffic_init(struct emu *e);
void emu_traffic_fini(struct emu *e);
/* Runs the traffic up to the emulator's current time; call before anything that changes rates. */
void emu_traffic_sync(struct emu *e);
/* Works out again which group makes which partition's demand (after mkdir and rmdir). */
void emu_traffic_bind(struct emu *e);
/* A counter that is (re)assigned counts from 0. */
void emu_counter_restart(struct emu_group *g, unsigned domain, enum emu_event ev);
/* A counter just assigned: it counts from 0 and, with --nrdy-ms, is not ready until that much later
 * on the emulator's clock. A read before then waits the not-ready time (real time, with everything
 * else waiting too, as the kernel holds rdtgroup_mutex: drivers/resctrl/mpam_devices.c
 * mpam_msmon_read() sleeps class->nrdy_usec after an EBUSY and reads again); a monitor still not
 * ready then makes the read EBUSY, which the file shows as the sum it has (0 for a new count). */
void emu_counter_assigned(struct emu *e, struct emu_group *g, unsigned domain, enum emu_event ev);
/* A group's value for an event in a domain: 0, or -EIO, -EINVAL or -ENOENT as the kernel's
 * rmid read reports them (Error, Unavailable, Unassigned). */
int emu_counter_read(struct emu *e, struct emu_group *g, unsigned domain, enum emu_event ev, double *val);

/* The llc_occupancy of g's own RMID in a domain (its MON groups' not added), in bytes. */
double emu_rmid_occupancy(struct emu *e, const struct emu_group *g, unsigned d);

emu_show_fn emu_mondata_show;

#endif
