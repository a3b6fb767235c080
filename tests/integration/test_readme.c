/* The README's resctrl-emu walkthrough, run line by line as written (from the top of the repository,
 * with this build's binaries for build/ and a private mount point and config, with a control socket
 * of its own, in place of /tmp/resctrl and etc/resctrl-emu.ini): what a new user types must work.
 * And its check-config samples, run as shown: what they print is what mpamctl prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define WALKTHROUGH_HEADING "### Trying it without resctrl hardware"

/* The first ```sh block after `heading`, malloc'ed; NULL if there is none. */
static char *shell_block_after(const char *text, const char *heading)
{
	const char *h = strstr(text, heading);
	const char *start = h ? strstr(h, "```sh\n") : NULL;
	const char *end = start ? strstr(start + 6, "```") : NULL;

	return end ? strndup(start + 6, (size_t)(end - start - 6)) : NULL;
}

/* Every "build/" at the start of a word becomes this build's directory. */
static char *with_build_dir(const char *script)
{
	size_t len = strlen(script) * 4 + 1, used = 0;
	char *out = malloc(len);

	for (const char *p = script; *p; p++) {
		bool word_start = p == script || p[-1] == ' ' || p[-1] == '\n';
		if (word_start && !strncmp(p, "build/", 6)) {
			used += (size_t)snprintf(out + used, len - used, "%s/", BUILD_DIR);
			p += 5;
		} else {
			out[used++] = *p;
		}
	}
	out[used] = '\0';
	return out;
}

/* `text` with every `from` replaced by `to`, malloc'ed; frees `text`. */
static char *replace_all(char *text, const char *from, const char *to)
{
	size_t from_len = strlen(from), count = 0;

	for (const char *p = strstr(text, from); p; p = strstr(p + from_len, from))
		count++;
	char *out = malloc(strlen(text) + count * strlen(to) + 1), *o = out;
	const char *p = text;
	for (const char *hit = strstr(p, from); hit; hit = strstr(p, from)) {
		o = mempcpy(o, p, (size_t)(hit - p));
		o = stpcpy(o, to);
		p = hit + from_len;
	}
	strcpy(o, p);
	free(text);
	return out;
}

/* The walkthrough's mount point and config, moved to private copies: a dead mount left at
 * /tmp/resctrl by a killed emulator of an earlier run (or the user's own) must not fail this
 * run, and this run must not touch the user's. */
struct walkthrough_paths {
	char mount[64];
	char config[64];
};

static void private_paths(struct walkthrough_paths *w)
{
	char path[512];

	make_test_dir(w->mount, sizeof(w->mount), "readme-mnt");
	snprintf(w->config, sizeof(w->config), "/tmp/mpamd-readme-ini-XXXXXX");
	int fd = mkstemp(w->config);
	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "%s/etc/resctrl-emu.ini", MPAMD_SOURCE_DIR);
	char *ini = read_text_file(path);
	assert_non_null(ini);
	assert_non_null(strstr(ini, "resctrl_root = /tmp/resctrl\n"));
	assert_null(strstr(ini, "socket"));
	ini = replace_all(ini, "/tmp/resctrl", w->mount);
	/* Its own control socket too, beside the config: not /run/mpamd's, which another mpamd may hold. */
	char socket_line[128];
	snprintf(socket_line, sizeof(socket_line), "[global]\nsocket = %s.sock\n", w->config);
	ini = replace_all(ini, "[global]\n", socket_line);
	assert_true(write(fd, ini, strlen(ini)) == (ssize_t)strlen(ini));
	close(fd);
	free(ini);
}

/* Whatever the walkthrough left mounted goes, even when it failed half-way. */
static void remove_private_paths(const struct walkthrough_paths *w)
{
	char *cmd = NULL;

	assert_true(asprintf(&cmd, "umount -l '%s' 2>/dev/null", w->mount) > 0);
	if (system(cmd) == -1)
		perror("umount");
	free(cmd);
	rmdir(w->mount);
	unlink(w->config);
	char sock[80];
	snprintf(sock, sizeof(sock), "%s.sock", w->config);
	unlink(sock);
}

static void test_emulator_walkthrough(void **state)
{
	char path[512], log[64] = "/tmp/mpamd-readme-XXXXXX";
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/README.md", MPAMD_SOURCE_DIR);
	char *readme = read_text_file(path);
	assert_non_null(readme);
	char *block = shell_block_after(readme, WALKTHROUGH_HEADING);
	if (!block)
		fail_msg("README.md has no ```sh block after '%s'", WALKTHROUGH_HEADING);
	assert_non_null(strstr(block, "umount /tmp/resctrl"));
	assert_non_null(strstr(block, "-c etc/resctrl-emu.ini"));
	bool had_run_dir = stat("/run/mpamd", &st) == 0;
	struct walkthrough_paths paths;
	private_paths(&paths);
	char *script = replace_all(with_build_dir(block), "etc/resctrl-emu.ini", paths.config);
	script = replace_all(script, "/tmp/resctrl", paths.mount);
	int fd = mkstemp(log);
	assert_true(fd >= 0);
	close(fd);
	char *cmd = NULL;
	assert_true(asprintf(&cmd, "cd '%s' && sh -e -x >%s 2>&1 <<'WALKTHROUGH'\n%s\nWALKTHROUGH", MPAMD_SOURCE_DIR,
			     log, script) > 0);
	int rc = system(cmd);
	remove_private_paths(&paths);
	char *out = read_text_file(log);
	unlink(log);
	if (rc != 0)
		fail_msg("the walkthrough failed (%d):\n%s", rc, out);
	/* discover saw the emulated host, and mpamd ran its ticks on it. */
	assert_non_null(strstr(out, "L3"));
	assert_non_null(strstr(out, "stopped after 50 tick(s)"));
	assert_null(strstr(out, "error"));
	if (!had_run_dir)
		rmdir("/run/mpamd");
	free(out);
	free(cmd);
	free(script);
	free(block);
	free(readme);
}

/* The sample session in `block` (lines "$ cat FILE" followed by the file, "$ mpamctl ARGS" followed by
 * what it prints, stdout and stderr together), run in `dir` (where etc/ is the repository's): every
 * file written, every command's output compared whole. */
static void run_session(const char *block, const char *dir)
{
	char *copy = strdup(block), *expected = NULL, *command = NULL, *file = NULL;
	size_t len = 0;
	FILE *content = NULL;

	/* a trailing "$" line closes the last command */
	char *session = NULL;
	assert_true(asprintf(&session, "%s$\n", copy) > 0);
	/* strsep, not strtok: a file's empty lines count */
	for (char *rest = session, *line = strsep(&rest, "\n"); rest; line = strsep(&rest, "\n")) {
		if (strncmp(line, "$", 1)) {
			fprintf(content, "%s\n", line);
			continue;
		}
		if (content) {
			fclose(content);
			content = NULL;
		}
		if (command) {
			char *cmd = NULL, out[600];
			snprintf(out, sizeof(out), "%s/out", dir);
			assert_true(asprintf(&cmd, "cd '%s' && PATH='%s':$PATH %s >'%s' 2>&1", dir, BUILD_DIR, command,
					     out) > 0);
			(void)!system(cmd);
			char *got = read_text_file(out);
			if (!got || strcmp(got, expected))
				fail_msg("README: $ %s\nprints:\n%s\nnot, as the README says:\n%s", command,
					 got ? got : "", expected);
			free(got);
			free(cmd);
			free(command);
			free(expected);
			command = NULL;
		}
		if (!strncmp(line, "$ cat ", 6)) {
			free(file);
			assert_true(asprintf(&file, "%s/%s", dir, line + 6) > 0);
			content = fopen(file, "w");
			assert_non_null(content);
		} else if (!strncmp(line, "$ mpamctl ", 10)) {
			command = strdup(line + 2);
			expected = NULL;
			content = open_memstream(&expected, &len);
		}
	}
	assert_null(command);
	free(file);
	free(session);
	free(copy);
}

/* Each ``` block of the README that begins "$ mpamctl check-config" or "$ cat", with its output. */
static void test_check_config_samples(void **state)
{
	char path[512], dir[64] = "/tmp/mpamd-readme-cc-XXXXXX", etc[600], link_to[600];
	unsigned sessions = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/README.md", MPAMD_SOURCE_DIR);
	char *readme = read_text_file(path);
	assert_non_null(readme);
	assert_non_null(mkdtemp(dir));
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	snprintf(link_to, sizeof(link_to), "%s/etc", MPAMD_SOURCE_DIR);
	assert_int_equal(symlink(link_to, etc), 0);
	for (const char *p = strstr(readme, "```\n$ "); p; p = strstr(p, "```\n$ ")) {
		const char *start = p + 4, *end = strstr(start, "```");
		assert_non_null(end);
		char *block = strndup(start, (size_t)(end - start));
		if (!strncmp(block, "$ mpamctl check-config", 22) || !strncmp(block, "$ cat ", 6)) {
			run_session(block, dir);
			sessions++;
		}
		free(block);
		p = end + 3;
	}
	assert_int_equal(remove_tree(dir), 0);
	free(readme);
	assert_int_equal(sessions, 3); /* etc/demo.ini, over.ini and bad.ini */
}

TEST_MAIN({
	cmocka_unit_test(test_emulator_walkthrough),
	cmocka_unit_test(test_check_config_samples),
})
