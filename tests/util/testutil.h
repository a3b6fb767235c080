/* Helpers shared by the test programs. */
#ifndef MPAMD_TESTS_TESTUTIL_H
#define MPAMD_TESTS_TESTUTIL_H

#include <stddef.h>
#include <sys/types.h>

struct run_result {
	int exit_code; /* -1 if the child did not exit normally */
	char *out;     /* captured stdout, NUL-terminated */
	char *err;     /* captured stderr */
};

/* Runs argv (argv[0] is a path) with stdin from /dev/null; captures output. Returns 0 or -errno. */
int run_command(char *const argv[], struct run_result *ret);
void run_result_fini(struct run_result *r);
/* Runs argv and fails the test unless it exits with `code` and says each of the NULL-terminated
 * `texts`: on stdout when `code` is 0, else on stderr. One cmocka assertion for the run, one for the
 * exit code and one a text. */
void expect_run_says(char *const argv[], int code, const char *const texts[]);
#define expect_run(argv, code, ...) expect_run_says(argv, code, (const char *const[]){ __VA_ARGS__, NULL })
/* A NULL-terminated argument vector in place. */
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* Starts argv in the background with stdout and stderr appended to `log_path`; returns its pid or
 * a negative errno. The caller waits for it (wait_exit). */
int spawn_background(char *const argv[], const char *log_path);
/* Waits up to timeout_ms for `pid`; returns its exit status, 128+signal, or -1 on timeout. */
int wait_exit(int pid, int timeout_ms);
/* A test's teardown: kills *pid (when > 0) with SIGKILL, reaps it and sets *pid to 0, so a failed
 * assertion leaves no daemon behind. */
void kill_daemon(int *pid);
/* A child process of one thread that sleeps until killed (a partition's pids in a test); the caller
 * kills and reaps it. */
pid_t spawn_sleeper(void);
/* A sleeper kept on a list that kill_sleepers (a cmocka teardown, or called with NULL) kills and
 * reaps, also after a failed assertion (they would keep the test's output open, and ctest waiting). */
pid_t spawn_kept_sleeper(void);
int kill_sleepers(void **state);
/* Makes the new directory /tmp/mpamd-<name>-XXXXXX, its path in dir[len]; one cmocka assertion. */
void make_test_dir(char *dir, size_t len, const char *name);
/* Removes `dir` and everything below it (nothing when `dir` is empty); 0, or -1 when something
 * stayed. For teardowns, which run after a failed assertion too. */
int remove_tree(const char *dir);
/* Makes the directory `dir` read-only (EROFS, as a systemd unit's ProtectSystem=strict does) for this
 * process and the programs it starts from now on: a mount namespace of its own, in which `dir` is
 * bound onto itself read-only. 0, or a negative errno when that cannot be done (not root, no mount
 * namespaces): the caller skips. read_only_end puts it back (before the directory is removed). */
int read_only_begin(const char *dir);
void read_only_end(const char *dir);
/* The same namespace, with a tmpfs of `bytes` mounted on `dir`: a disk that fills. mount_end unmounts
 * either. */
int small_disk_begin(const char *dir, unsigned long bytes);
#define mount_end read_only_end
/* Polls until `path` contains `text` (or timeout_ms passes); true when it does. */
int wait_for_text(const char *path, const char *text, int timeout_ms);

/* Sorted list of the regular files in `dir` whose names end in `suffix`; malloc'ed full paths. */
char **list_files(const char *dir, const char *suffix, size_t *ret_count);
void free_file_list(char **files, size_t count);

/* Whole file as a NUL-terminated string, or NULL. */
char *read_text_file(const char *path);
/* The file `rel` below the directory `dir`, whole; fails the test when it cannot be read. */
char *read_file_below(const char *dir, const char *rel);
/* The directory `rel` below the existing directory `dir`, and those between (mkdir -p; any may exist
 * already); fails the test when it cannot be made. */
void make_dirs_below(const char *dir, const char *rel);
/* The file `rel` below the existing directory `dir` holding `text`, its directories made first;
 * fails the test when it cannot be written. */
void write_file_below(const char *dir, const char *rel, const char *text);

/* Case-insensitive substring test. */
int contains_nocase(const char *haystack, const char *needle);

/* A cmocka test run between its program's own `setup` and `teardown` (for the programs whose every test
 * wants the same fixture). */
#define fixture_test(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#endif
