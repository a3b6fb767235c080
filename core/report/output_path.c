#include "core/report/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/file_create.h"

static void directory_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

const char *output_path_error(const char *path, int code, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (code != -EROFS) {
		snprintf(buf, len, "%s", file_open_error(code));
		return buf;
	}
	directory_of(path, dir, sizeof(dir));
	int n = snprintf(buf, len,
			 "%s is on a read-only file system; under systemd that is the unit's sandbox "
			 "(ProtectSystem=strict leaves writable only the paths the unit names): add "
			 "ReadWritePaths=%s to it (systemctl edit mpamd) and restart mpamd",
			 dir, dir);
	if (n < 0 || (size_t)n >= len) /* a path near PATH_MAX: the errno alone */
		snprintf(buf, len, "%s", strerror(-code));
	return buf;
}

/* err for `code` met at `at`, which is the directory of `path` or `path` itself. */
static int cannot_write(const char *path, const char *at, int code, struct err *err)
{
	char why[ERR_TEXT_MAX];

	if (code == -EACCES)
		return err_set(err, code, "uid %u may not write %s %s", (unsigned)geteuid(),
			       strcmp(at, path) ? "in" : "to", at);
	if (code == -EROFS)
		return err_set(err, code, "%s", output_path_error(path, code, why, sizeof(why)));
	return err_set(err, code, "%s: %s", at, strerror(-code));
}

int output_path_check(const char *path, struct err *err)
{
	char dir[PATH_MAX];
	struct stat st;

	directory_of(path, dir, sizeof(dir));
	if (stat(dir, &st) < 0)
		return errno == ENOENT ? err_set(err, -ENOENT, "directory %s does not exist", dir)
				       : cannot_write(path, dir, -errno, err);
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -ENOTDIR, "%s is not a directory", dir);
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
		return cannot_write(path, dir, -errno, err);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0)
		return cannot_write(path, path, -errno, err);
	return 0;
}
