#include "cli/check_outputs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/report/output_path.h"

const char *const unit_writable_dirs[] = {
	"/var/lib/mpamd", /* StateDirectory=mpamd */
	"/run/mpamd",	  /* RuntimeDirectory=mpamd */
	"/var/lib/prometheus/node-exporter",
	"/var/lib/node_exporter/textfile_collector",
	NULL,
};

static bool is_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return !strncmp(path, dir, len) && path[len] == '/';
}

/* -1 when `path` is under none of the unit's directories, else which one. */
static int unit_dir_of(const char *path)
{
	for (int i = 0; unit_writable_dirs[i]; i++)
		if (is_under(path, unit_writable_dirs[i]))
			return i;
	return -1;
}

static void check_one(const char *key, const char *path, struct diag_list *diags)
{
	struct err err = { "" };
	int dir = unit_dir_of(path);
	int r = output_path_check(path, &err);

	/* A directory the unit makes as it starts need not be there yet. */
	if (r < 0 && !(r == -ENOENT && dir >= 0 && dir < UNIT_MADE_DIRS))
		diag_add(diags, DIAG_WARNING, 0, "%s = %s: mpamd cannot write it on this host: %s", key, path,
			 err.text);
	if (dir >= 0)
		return;
	char dirs[256] = "";
	for (size_t i = 0, used = 0; unit_writable_dirs[i] && used < sizeof(dirs); i++)
		used += (size_t)snprintf(dirs + used, sizeof(dirs) - used, "%s%s", i ? ", " : "",
					 unit_writable_dirs[i]);
	diag_add(diags, DIAG_WARNING, 0,
		 "%s = %s: outside the directories the shipped systemd unit lets mpamd write (%s): under it, add "
		 "ReadWritePaths= for its directory (systemctl edit mpamd)",
		 key, path, dirs);
}

void check_outputs(const struct config *config, struct diag_list *diags)
{
	if (config->global.record)
		check_one("record", config->global.record, diags);
	if (config->global.metrics_textfile)
		check_one("metrics_textfile", config->global.metrics_textfile, diags);
}
