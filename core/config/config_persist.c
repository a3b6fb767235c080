#include "core/config/config_persist.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/file_read.h"
#include "core/base/file_replace.h"
#include "core/config/config.h"

#define PERSIST_MODE 0644

/* The keys a file holds, in its order. */
struct entry {
	char *key, *value;
};

struct entries {
	struct entry *at;
	size_t count;
};

void config_persist_file(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s.ini", name);
}

int config_persist_read(const char *dir, const char *name, char **ret, struct err *err)
{
	char file[NAME_MAX_LEN + 8], path[PATH_MAX];
	struct err why = { "" };
	size_t len;

	config_persist_file(name, file, sizeof(file));
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	*ret = NULL;
	int r = file_read_regular(path, CONFIG_MAX_FILE_BYTES, ret, &len, &why);
	if (r == -ENOENT)
		return 0;
	return r < 0 ? err_set(err, r, "%s: %s", path, why.text) : 0;
}

static void entries_fini(struct entries *e)
{
	for (size_t i = 0; i < e->count; i++) {
		free(e->at[i].key);
		free(e->at[i].value);
	}
	free(e->at);
}

/* `key` = `value` (lengths given), replacing the same key's value. */
static int entries_put(struct entries *e, const char *key, size_t key_len, const char *value, size_t value_len)
{
	char *k = strndup(key, key_len), *v = strndup(value, value_len);
	size_t i = 0;

	while (k && i < e->count && strcmp(e->at[i].key, k))
		i++;
	struct entry *grown = k && v && i == e->count ? realloc(e->at, (e->count + 1) * sizeof(*grown)) : e->at;
	if (!k || !v || !grown) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	e->at = grown;
	if (i == e->count) {
		e->at[e->count++] = (struct entry){ k, v };
		return 0;
	}
	free(e->at[i].value);
	free(k);
	e->at[i].value = v;
	return 0;
}

static size_t trimmed_len(const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	return len;
}

/* One line of an existing file: a comment, a blank, its own section header or key = value. */
static int read_line(struct entries *e, const char *line, size_t len, const char *header, unsigned number,
		     struct err *err)
{
	size_t blanks = strspn(line, " \t");

	line += blanks;
	len = trimmed_len(line, len - blanks);
	if (len == 0 || line[0] == ';' || line[0] == '#')
		return 0;
	if (line[0] == '[')
		return len == strlen(header) && !strncmp(line, header, len)
			       ? 0
			       : err_set(err, -EINVAL, "line %u: %.*s: only %s belongs in this file", number,
					 (int)(len > 80 ? 80 : len), line, header);
	size_t key_len = strcspn(line, "=:");
	if (key_len >= len)
		return err_set(err, -EINVAL, "line %u: expected 'key = value'", number);
	const char *value = line + key_len + 1;
	size_t value_len = len - key_len - 1;
	const char *comment = strstr(value, " ;"); /* an inline comment, as inih reads it */
	if (comment && (size_t)(comment - value) < value_len)
		value_len = (size_t)(comment - value);
	value += strspn(value, " \t");
	value_len = trimmed_len(value, value_len - (size_t)(value - (line + key_len + 1)));
	return entries_put(e, line, trimmed_len(line, key_len), value, value_len) < 0
		       ? err_set(err, -ENOMEM, "out of memory")
		       : 0;
}

static int read_old(struct entries *e, const char *old, const char *header, struct err *err)
{
	unsigned number = 0;

	for (const char *p = old; p && *p;) {
		size_t len = strcspn(p, "\n");
		int r = read_line(e, p, len, header, ++number, err);
		if (r < 0)
			return r;
		p += len + (p[len] == '\n');
	}
	return 0;
}

/* A setting as a line of the file: one line the loader reads back as it was given. */
static int put_setting(struct entries *e, const char *setting, struct err *err)
{
	size_t key_len = strcspn(setting, "=");
	const char *value = setting + key_len + (setting[key_len] == '=');

	for (const char *c = setting; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return err_set(err, -EINVAL, "'%.40s': a control character cannot be persisted", setting);
	if (strstr(value, " ;") || strstr(value, "\t;"))
		return err_set(err, -EINVAL, "'%.40s': ' ;' would start a comment in the file", setting);
	if (strlen(setting) + 2 > CONFIG_MAX_LINE)
		return err_set(err, -EINVAL, "'%.40s...' is longer than a line of the file may be (%d characters)",
			       setting, CONFIG_MAX_LINE);
	return entries_put(e, setting, key_len, value, strlen(value)) < 0 ? err_set(err, -ENOMEM, "out of memory") : 0;
}

static char *entries_text(const struct entries *e, const char *name, const char *header)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		return NULL;
	fprintf(out,
		"; Written by mpamd for 'mpamctl set --persist %s' (mpamd.ini(5), persist_dir). These keys\n"
		"; replace the main configuration file's for partition %s, at every start and reload.\n"
		"; Remove this file (and reload) to go back to the main file's values.\n%s\n",
		name, name, header);
	for (size_t i = 0; i < e->count; i++)
		fprintf(out, "%s = %s\n", e->at[i].key, e->at[i].value);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int config_persist_text(const char *old, const char *name, const char *const *settings, size_t count, char **ret,
			struct err *err)
{
	char header[NAME_MAX_LEN + 16];
	struct entries e = { 0 };
	int r;

	snprintf(header, sizeof(header), "[partition \"%s\"]", name);
	r = read_old(&e, old, header, err);
	for (size_t i = 0; r == 0 && i < count; i++)
		r = put_setting(&e, settings[i], err);
	if (r == 0 && !(*ret = entries_text(&e, name, header)))
		r = err_set(err, -ENOMEM, "out of memory");
	entries_fini(&e);
	return r;
}

int config_persist_write(const char *dir, const char *name, const char *text, struct err *err)
{
	char file[NAME_MAX_LEN + 8];

	config_persist_file(name, file, sizeof(file));
	if (!text)
		return file_remove(dir, file, err);
	return file_replace(dir, file, text, strlen(text), PERSIST_MODE, err);
}
