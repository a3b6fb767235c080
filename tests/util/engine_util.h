/* What the tests that run the engine in their own process share: a configuration file loaded with
 * the default schema, a partition found by name, a formatted file written, the first thing a tick
 * hook found wrong kept for the test to fail with once the engine has stopped, and the simulated
 * host of an engine on backend = sim. */
#ifndef MPAMD_TESTS_UTIL_ENGINE_UTIL_H
#define MPAMD_TESTS_UTIL_ENGINE_UTIL_H

#include <stddef.h>

struct config;
struct engine;
struct engine_options;
struct engine_registry;
struct err;
struct partition_status;
struct sim_host;

/* The file's configuration, its diagnostics printed on stderr; NULL when it has errors. */
struct config *load_config_file(const char *path);
/* A configuration from text under the schema `registry` implies (its backends, monitors and
 * extensions), its diagnostics printed on stderr; NULL when it has errors. */
struct config *load_config_for(const struct engine_registry *registry, const char *text);
/* The configuration text under the default schema, its diagnostics printed on stderr; fails the test
 * when it has errors (one cmocka assertion). */
struct config *config_from_text(const char *text);

/* A new engine on `config` (which it takes) with `opts`; fails the test when `config` is NULL (it did
 * not load) or the engine cannot be made, with why. */
struct engine *engine_new_or_fail(struct config *config, const struct engine_options *opts);

/* Runs the engine to its end: fails the test unless the run succeeds after `ticks` ticks and logs no
 * error on the way (no MSC error, no refused access, no failed read). Three cmocka assertions. */
void engine_run_clean(struct engine *e, unsigned long ticks);

/* The status of the partition called `name` (and its slot, when ret_slot is not NULL), or NULL. */
const struct partition_status *engine_find(const struct engine *e, const char *name, size_t *ret_slot);

/* The row `mpamctl list` gives partition `name` (a new reference), or NULL. */
struct json_t *engine_list_row(struct engine *e, const char *name);

/* Writes the formatted text to `path`, replacing it: 0 or -errno. */
int write_text_file(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same in a test, which fails when the file cannot be written (one cmocka assertion). */
#define write_file(...) assert_int_equal(write_text_file(__VA_ARGS__), 0)

/* Keeps the formatted text in buf[len] unless buf holds a failure already. */
void note_first(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fails the test, the message led by `name`, when the engine did not run to its end (`r` < 0, why in
 * `err`) or a tick hook kept a failure in `failure` (by note_first). */
void expect_engine_ran(const char *name, int r, const struct err *err, const char *failure);

/* The default registry with the simulator's control alone, which lends its simulated host to
 * *ret_host when the engine opens it (and keeps it there until the engine is freed). */
const struct engine_registry *sim_spy_registry(struct sim_host **ret_host);

#endif
