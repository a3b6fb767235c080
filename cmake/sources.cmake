# The product, layer by layer (see cmake/layers.cmake and docs/ARCHITECTURE.md). A library sees the
# directories of its own layer and of its DEPS, nothing else: one place to add a file or a dependency.

# Base layer: errors, logging, parsing, clock, the event loop, counters.
mpamd_layer(mpamd_base DIRS core/base LIBS m SOURCES
  core/base/clock.c
  core/base/counter.c
  core/base/decimal_text.c
  core/base/diag.c
  core/base/error.c
  core/base/file_create.c
  core/base/file_replace.c
  core/base/file_read.c
  core/base/histogram.c
  core/base/ladder.c
  core/base/log.c
  core/base/loop.c
  core/base/name_index.c
  core/base/parse.c
  core/base/rfc3339.c
  core/base/suggest.c
  core/base/utf8.c)

# Base layer: the configuration model, its key tables and loader.
mpamd_layer(mpamd_config DIRS core/config DEPS mpamd_base LIBS PkgConfig::INIH PkgConfig::JANSSON SOURCES
  core/config/config_check.c
  core/config/config_clone.c
  core/config/config_compare.c
  core/config/config_json.c
  core/config/config_keys.c
  core/config/config_lines.c
  core/config/config_load.c
  core/config/config_template.c
  core/config/config_types.c
  core/config/config_domain_values.c
  core/config/config_write.c
  core/config/config_persist.c
  core/config/model.c)

# The three contracts (headers) and what their implementations share.
mpamd_layer(mpamd_contracts DIRS backends/contracts backends/shared DEPS mpamd_config SOURCES
  backends/shared/counter_pool.c
  backends/shared/limits_snap.c
  backends/shared/partition_table.c
  backends/shared/threads.c
  backends/shared/hmat_capacity.c)

# The MPAM register map: the hardware's home, used by the MSC driver and the MSC model.
mpamd_layer(mpamd_mpam DIRS backends/mpam SOURCES
  backends/mpam/mpam_regs.c)

mpamd_layer(mpamd_mmio DIRS backends/mmio DEPS mpamd_contracts mpamd_mpam SOURCES
  backends/mmio/bus_devmem.c
  backends/mmio/describe_print.c
  backends/mmio/kernel_mpam.c
  backends/mmio/mmio_control.c
  backends/mmio/monitor_mbwu.c
  backends/mmio/monitors.c
  backends/mmio/msc.c
  backends/mmio/msc_access.c
  backends/mmio/msc_set.c
  backends/mmio/msc_takeover.c
  backends/mmio/quirks.c
  backends/mmio/soc_id.c)

mpamd_layer(mpamd_resctrl DIRS backends/resctrl DEPS mpamd_contracts LIBS PkgConfig::JANSSON SOURCES
  backends/resctrl/control_classes.c
  backends/resctrl/control_resctrl.c
  backends/resctrl/describe_print.c
  backends/resctrl/files.c
  backends/resctrl/fs.c
  backends/resctrl/group.c
  backends/resctrl/mb_ladder.c
  backends/resctrl/monitor_resctrl.c
  backends/resctrl/parse.c
  backends/resctrl/partid.c
  backends/resctrl/pool.c
  backends/resctrl/probe.c)

# The simulator is a bus for the MMIO driver: it sits on the mmio layer.
mpamd_layer(mpamd_sim DIRS backends/sim DEPS mpamd_mmio SOURCES
  backends/sim/actuator_sim.c
  backends/sim/burst.c
  backends/sim/bus_sim.c
  backends/sim/control_sim.c
  backends/sim/mb_curve.c
  backends/sim/msc_model.c
  backends/sim/msc_model_config.c
  backends/sim/msc_model_delay.c
  backends/sim/msc_model_partsel.c
  backends/sim/msc_model_monitors.c
  backends/sim/sampler_sim.c
  backends/sim/sim_config.c
  backends/sim/sim_host.c
  backends/sim/sim_preload.c
  backends/sim/traffic.c)

mpamd_layer(mpamd_cgroup DIRS backends/cgroup DEPS mpamd_contracts LIBS PkgConfig::LIBCGROUP PkgConfig::LIBNL SOURCES
  backends/cgroup/actuator_cpu_quota.c
  backends/cgroup/actuator_placement.c
  backends/cgroup/cgroup_tree.c
  backends/cgroup/cpu_quota.c
  backends/cgroup/placement_match.c
  backends/cgroup/placement_source.c
  backends/cgroup/proc_connector.c
  backends/cgroup/qemu_threads.c
  backends/cgroup/vm_scope.c)

# PMU counters through perf_event_open: the event resolver over sysfs, groups, deltas.
mpamd_layer(mpamd_perf DIRS backends/perf DEPS mpamd_base SOURCES
  backends/perf/perf_advice.c
  backends/perf/perf_delta.c
  backends/perf/perf_format.c
  backends/perf/perf_group.c
  backends/perf/perf_resolve.c
  backends/perf/perf_sysfs.c)

# The PMU sampler over backends/perf: [pmu] events per partition (cgroup or pids), uncore host-wide.
mpamd_layer(mpamd_pmu DIRS backends/pmu DEPS mpamd_contracts mpamd_perf SOURCES
  backends/pmu/pmu_cgroup.c
  backends/pmu/pmu_config.c
  backends/pmu/pmu_counter.c
  backends/pmu/pmu_events.c
  backends/pmu/sampler_perf.c)

mpamd_layer(mpamd_policies DIRS policies DEPS mpamd_config SOURCES
  policies/chain.c
  policies/class_assign.c
  policies/class_place.c
  policies/escalate.c
  policies/guard.c
  policies/guard_cut.c
  policies/guard_estimates.c
  policies/guard_heap.c
  policies/guard_ipc.c
  policies/guard_minimum.c
  policies/guard_victims.c
  policies/overcommit.c
  policies/share.c
  policies/static.c
  policies/steps.c
  policies/target.c
  policies/target_evidence.c
  policies/target_search.c
  policies/target_share.c)

# The control socket: its server runs on a thread of its own (ctl_thread.c).
find_package(Threads REQUIRED)
mpamd_layer(mpamd_ctl DIRS core/ctl DEPS mpamd_base LIBS PkgConfig::JANSSON Threads::Threads SOURCES
  core/ctl/ctl_server.c
  core/ctl/ctl_server_client.c
  core/ctl/ctl_server_peer.c
  core/ctl/ctl_server_socket.c
  core/ctl/ctl_thread.c
  core/ctl/json_text.c
  core/ctl/proto.c
  core/ctl/reply_buf.c
  core/ctl/reply_cache.c)

# What formats and writes the engine's output: the record file, the Prometheus text and its textfile,
# the event log. Below the engine, which hands it views of its state; the placement report metrics
# show is the actuator contract's.
mpamd_layer(mpamd_report DIRS core/report DEPS mpamd_contracts LIBS PkgConfig::JANSSON SOURCES
  core/report/events.c
  core/report/metrics.c
  core/report/output_path.c
  core/report/record.c
  core/report/record_columns.c
  core/report/record_health.c
  core/report/record_history.c
  core/report/record_out.c
  core/report/record_peaks.c
  core/report/record_read.c
  core/report/textfile.c)

# The one place that composes: controls, monitors, actuators, policies and the control socket.
mpamd_layer(mpamd_engine DIRS core/engine
  DEPS mpamd_mmio mpamd_resctrl mpamd_sim mpamd_cgroup mpamd_pmu mpamd_policies mpamd_ctl mpamd_report SOURCES
  core/engine/capacity_learner.c
  core/engine/compose.c
  core/engine/domain_limits.c
  core/engine/engine.c
  core/engine/engine_apply.c
  core/engine/engine_capacity.c
  core/engine/engine_capacity_record.c
  core/engine/engine_classes.c
  core/engine/engine_domains.c
  core/engine/engine_gens.c
  core/engine/engine_ctl.c
  core/engine/engine_desired.c
  core/engine/engine_loop.c
  core/engine/engine_set.c
  core/engine/engine_metrics.c
  core/engine/engine_partition.c
  core/engine/engine_place.c
  core/engine/engine_pool.c
  core/engine/engine_record.c
  core/engine/engine_pmu.c
  core/engine/engine_slots.c
  core/engine/engine_snapshot.c
  core/engine/engine_snapshot_json.c
  core/engine/engine_snapshot_text.c
  core/engine/engine_vms.c
  core/engine/slot_limits.c
  core/engine/registry.c)

# The programs on top.
mpamd_layer(mpamd_cli DIRS cli DEPS mpamd_engine mpamd_perf LIBS PkgConfig::CAIRO PkgConfig::FONTCONFIG PkgConfig::NCURSES
  PkgConfig::LIBSYSTEMD SOURCES
  cli/capacity_hint.c
  cli/check_host.c
  cli/check_host_classes.c
  cli/check_host_overcommit.c
  cli/check_outputs.c
  cli/cli_error.c
  cli/cmd_check_config.c
  cli/cmd_ctl.c
  cli/ctl_table.c
  cli/ctl_client.c
  cli/cmd_discover.c
  cli/cmd_plot.c
  cli/cmd_pmu.c
  cli/cmd_top.c
  cli/event_time.c
  cli/flock_holder.c
  cli/instance_lock.c
  cli/pidfile.c
  cli/plot.c
  cli/plot_axis.c
  cli/service_notify.c
  cli/socket_access.c
  cli/tick_table.c
  cli/top_frame.c
  cli/top_layout.c
  cli/top_model.c)

set(MPAMD_SOURCES cli/mpamd.c)
set(MPAMCTL_SOURCES cli/mpamctl.c)
