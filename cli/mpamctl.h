/* mpamctl's subcommands; each parses its own arguments (argv[0] is the command name). */
#ifndef MPAMD_CLI_MPAMCTL_H
#define MPAMD_CLI_MPAMCTL_H

#include <stdbool.h>

/* Exit codes shared by every subcommand. */
enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,      /* the request was understood and failed: invalid config, daemon error... */
	EXIT_USAGE = 2,	      /* bad command line */
	EXIT_UNREACHABLE = 3, /* no mpamd answers on the control socket */
};

struct ctl_options {
	const char *socket_path;
	bool json;
	bool wide;    /* list --wide: every field */
	bool persist; /* set --persist: kept across restarts */
};

int cmd_check_config(int argc, char **argv, const struct ctl_options *opts);
int cmd_discover(int argc, char **argv, const struct ctl_options *opts);
/* Draws a record file as SVG or PNG (cli/cmd_plot.c). */
int cmd_plot(int argc, char **argv, const struct ctl_options *opts);
/* Requests to the running daemon over its control socket (cli/cmd_ctl.c). */
int cmd_status(int argc, char **argv, const struct ctl_options *opts);
int cmd_list(int argc, char **argv, const struct ctl_options *opts);
int cmd_show(int argc, char **argv, const struct ctl_options *opts);
int cmd_set(int argc, char **argv, const struct ctl_options *opts);
int cmd_reload(int argc, char **argv, const struct ctl_options *opts);
int cmd_metrics(int argc, char **argv, const struct ctl_options *opts);
/* A live view of the partitions, refreshed every tick (cli/cmd_top.c). */
int cmd_top(int argc, char **argv, const struct ctl_options *opts);
/* PMU counters through perf_event_open (cli/cmd_pmu.c). */
int cmd_pmu(int argc, char **argv, const struct ctl_options *opts);

#endif
