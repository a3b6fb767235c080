/* resctrl_transcript: runs a scenario of resctrl file operations and prints its transcript, or
 * compares two transcripts of the same scenario (the kernel's and resctrl-emu's). See --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "transcript.h"
#include "transcript_compare.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: resctrl_transcript run ROOT SCENARIO PROFILE\n"
		     "       resctrl_transcript compare KNOWN SCOPE KERNEL_TRANSCRIPT EMULATOR_TRANSCRIPT\n"
		     "run: executes SCENARIO's operations on the resctrl tree at ROOT (the lines for PROFILE,\n"
		     "  intel or amd) and prints one KEY<TAB>VALUE line per observation; exit 0, or 1 when the\n"
		     "  scenario cannot be run.\n"
		     "compare: compares the two transcripts, excusing the differences the file KNOWN lists for\n"
		     "  SCOPE (KERNEL/PROFILE); prints the others and a summary line; exit 0 when none is left,\n"
		     "  1 when some differ, 2 on a usage or file error.\n");
}

static FILE *open_or_complain(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		fprintf(stderr, "resctrl_transcript: %s: %s\n", path, strerror(errno));
	return f;
}

static int cmd_run(const char *root, const char *scenario, const char *profile)
{
	struct transcript t;
	FILE *in = open_or_complain(scenario);

	if (!in)
		return 1;
	transcript_init(&t);
	int r = scenario_run(in, scenario, root, profile, 0, &t, stderr);
	fclose(in);
	transcript_write(&t, stdout);
	transcript_fini(&t);
	if (r == -ENOMEM)
		fprintf(stderr, "resctrl_transcript: out of memory\n");
	return r ? 1 : 0;
}

static int read_transcript(const char *path, struct transcript *t)
{
	FILE *in = open_or_complain(path);

	if (!in)
		return -ENOENT;
	int r = transcript_read(in, t);
	fclose(in);
	if (r < 0)
		fprintf(stderr, "resctrl_transcript: %s: %s\n", path, strerror(-r));
	return r;
}

static int cmd_compare(const char *known_path, const char *scope, const char *kernel_path, const char *emu_path)
{
	struct transcript kernel, emu;
	struct known_list known = { 0 };
	struct compare_counts c;
	FILE *in = open_or_complain(known_path);
	int r = in ? known_list_read(in, known_path, &known, stderr) : -ENOENT;

	if (in)
		fclose(in);
	transcript_init(&kernel);
	transcript_init(&emu);
	if (r == 0)
		r = read_transcript(kernel_path, &kernel);
	if (r == 0)
		r = read_transcript(emu_path, &emu);
	if (r == 0 && kernel.count == 0) {
		fprintf(stderr, "resctrl_transcript: %s: no transcript lines\n", kernel_path);
		r = -ENODATA;
	}
	if (r == 0) {
		transcript_compare(&kernel, &emu, &known, scope, stdout, &c);
		printf("%s: %u same, %u known differences, %u unexpected\n", scope, c.same, c.known, c.unexpected);
	}
	transcript_fini(&kernel);
	transcript_fini(&emu);
	known_list_fini(&known);
	return r ? 2 : c.unexpected ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "run") == 0)
		return cmd_run(argv[2], argv[3], argv[4]);
	if (argc == 6 && strcmp(argv[1], "compare") == 0)
		return cmd_compare(argv[2], argv[3], argv[4], argv[5]);
	usage(stderr);
	return 2;
}
