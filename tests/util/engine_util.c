/* See engine_util.h. */
#include "tests/util/engine_util.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/sim_ops.h"
#include "core/base/error.h"
#include "core/base/log.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "core/engine/registry.h"

/* Loads with the diagnostics printed; 0 or the loader's error. */
static int load_printed(const char *name, const char *path, const char *text, const struct config_schema *schema,
			struct config **ret)
{
	struct diag_list diags;
	int r;

	diag_list_init(&diags, name);
	if (path)
		r = config_load_path(path, schema, NULL, ret, &diags);
	else
		r = config_load_string(text, schema, NULL, ret, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	return r;
}

struct config *load_config_file(const char *path)
{
	struct config *config = NULL;

	return load_printed(path, path, NULL, engine_default_schema(), &config) == 0 ? config : NULL;
}

struct config *config_from_text(const char *text)
{
	struct config *config = NULL;

	assert_int_equal(load_printed("test.ini", NULL, text, engine_default_schema(), &config), 0);
	return config;
}

struct config *load_config_for(const struct engine_registry *registry, const char *text)
{
	struct engine_schema schema;
	struct config *config = NULL;

	engine_schema_init(registry, &schema);
	return load_printed("test.ini", NULL, text, &schema.schema, &config) == 0 ? config : NULL;
}

const struct partition_status *engine_find(const struct engine *e, const char *name, size_t *ret_slot)
{
	for (size_t i = 0; i < engine_partition_count(e); i++) {
		const struct partition_status *st = engine_partition(e, i);
		if (st->name && !strcmp(st->name, name)) {
			if (ret_slot)
				*ret_slot = i;
			return st;
		}
	}
	return NULL;
}

json_t *engine_list_row(struct engine *e, const char *name)
{
	json_t *list = engine_snapshot_list(e), *found = NULL, *row;
	size_t i;

	json_array_foreach(json_object_get(list, "partitions"), i, row)
		if (!strcmp(json_string_value(json_object_get(row, "name")), name))
			found = json_incref(row);
	json_decref(list);
	return found;
}

struct engine *engine_new_or_fail(struct config *config, const struct engine_options *opts)
{
	struct engine *engine = NULL;
	struct err err = { "" };

	assert_non_null(config);
	if (engine_new(config, opts, &engine, &err) < 0)
		fail_msg("engine: %s", err.text);
	return engine;
}

void engine_run_clean(struct engine *e, unsigned long ticks)
{
	struct err err = { "" };
	unsigned long errors_before = log_count(LOG_LEVEL_ERROR);
	int r = engine_run(e, &err);

	if (r < 0)
		print_error("engine_run: %s\n", err.text);
	assert_int_equal(r, 0);
	assert_int_equal(engine_ticks_done(e), ticks);
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors_before);
}

int write_text_file(const char *path, const char *fmt, ...)
{
	FILE *out = fopen(path, "w");
	va_list ap;

	if (!out)
		return -errno;
	va_start(ap, fmt);
	int r = vfprintf(out, fmt, ap) < 0 ? -EIO : 0;
	va_end(ap);
	if (fclose(out) != 0 && r == 0)
		r = -errno;
	return r;
}

void note_first(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void expect_engine_ran(const char *name, int r, const struct err *err, const char *failure)
{
	if (r < 0)
		fail_msg("%s: the engine stopped: %s", name, err->text);
	if (failure[0])
		fail_msg("%s: %s", name, failure);
}

/* ---- the simulator's control, with a hook to find its host ---- */

static struct sim_host **spy_host;
static struct control_ops spy_ops;
static const struct control_ops *spy_controls[1];
static struct engine_registry spy_registry;

static void spy_share(struct control *c, struct control_shared *ret)
{
	control_sim_ops.share(c, ret);
	*spy_host = ret->sim;
}

const struct engine_registry *sim_spy_registry(struct sim_host **ret_host)
{
	spy_host = ret_host;
	spy_ops = control_sim_ops;
	spy_ops.share = spy_share;
	spy_controls[0] = &spy_ops;
	spy_registry = engine_registry_default;
	spy_registry.controls = spy_controls;
	spy_registry.control_count = 1;
	return &spy_registry;
}
