/* A scenario of resctrl file operations, run against a resctrl tree (the kernel's mount or
 * resctrl-emu's) into a transcript (transcript.h).
 *
 * One operation a line; `#` starts a comment line. A line may begin with `[PROFILE,...]`: it runs
 * only for those profiles (intel, amd). PATH is relative to the resctrl root ("." is the root).
 *   read PATH            the file's text
 *   sorted PATH          the file's lines in sorted order (schemata and size, whose line order is
 *                        compared once, by read)
 *   ls PATH              the directory's entries, sorted, directories with a trailing '/'
 *   readall PATH         ls of PATH and of every directory below it, and read of every file
 *   write PATH "TEXT"    one write(2) of TEXT (C escapes \n \t \\ \"; $NAME is the pid of the
 *                        task spawned as NAME), then last_cmd_status
 *   mkdir PATH | rmdir PATH   then last_cmd_status
 *   rename PATH NEWPATH  rename(2) (a MON group into a mon_groups), then last_cmd_status
 *   spawn NAME           a child process that sleeps until reaped
 *   reap NAME            kills and reaps it (its pid keeps its name in the transcript)
 *   sleep MS             waits (for the kernel's timers, such as the RMID limbo worker's)
 */
#ifndef MPAMD_TESTS_KERNEL_SCENARIO_H
#define MPAMD_TESTS_KERNEL_SCENARIO_H

#include <stdio.h>

#include "transcript.h"

/* scenario_run's flags. */
#define SCENARIO_NO_SLEEP \
	1u /* sleep lines do nothing: for a tree without the kernel's timers, when
			      * only the transcript's repeatability is tested */

/* Runs the scenario read from `in` (named `name` in messages) against `root` for `profile`, adding
 * its observations to `out`. 0; -EINVAL after printing "NAME:LINE: why" to `errors` for a line it
 * cannot parse; -ENOMEM. A refused operation is an observation, not an error. */
int scenario_run(FILE *in, const char *name, const char *root, const char *profile, unsigned flags,
		 struct transcript *out, FILE *errors);

#endif
