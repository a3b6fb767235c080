/* inih glue: feeds lines to inih, tracks line numbers, opens sections and dispatches keys.
 *
 * Debian's libinih is built without INI_HANDLER_LINENO and without INI_CALL_HANDLER_ON_NEW_SECTION,
 * and it reports only its first syntax error. So the line reader below does the line-level work
 * inih cannot report on: it counts lines, opens each [section] when its header is read (so a section
 * without keys still exists), and reports every malformed line. inih still splits keys from values,
 * strips comments and whitespace, and calls config_handle_key for each pair. */
#include "core/config_internal.h"
#include "core/suggest.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

struct config_loader {
	FILE *in;
	struct diag_list *diags;
	unsigned line;
	char *line_buf; /* getline buffer */
	size_t line_cap;
	bool read_error;
	bool out_of_memory;

	struct config_section *sections;
	size_t section_count;
	struct config_section *current; /* NULL before any section or after an invalid header */
	bool current_invalid;		/* keys under an invalid header are skipped silently */

	struct config *config;
};

static struct config_section *loader_add_section(struct config_loader *ld, enum section_kind kind, unsigned line)
{
	static const size_t object_size[SECTION_KIND_COUNT] = {
		[SECTION_GLOBAL] = sizeof(struct global_config),
		[SECTION_SIM] = sizeof(struct sim_config),
		[SECTION_MSC] = sizeof(struct msc_config),
		[SECTION_PARTITION] = sizeof(struct partition_config),
	};
	struct config_section *grown = realloc(ld->sections, (ld->section_count + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	ld->sections = grown;
	struct config_section *s = &ld->sections[ld->section_count];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = line;
	s->object = calloc(1, object_size[kind]);
	if (!s->object)
		return NULL;
	ld->section_count++;
	if (kind == SECTION_GLOBAL)
		global_config_defaults(s->object);
	else if (kind == SECTION_SIM)
		sim_config_defaults(s->object);
	else if (kind == SECTION_PARTITION)
		partition_config_defaults(s->object);
	return s;
}

static const char *section_name(const struct config_section *s)
{
	if (s->kind == SECTION_MSC)
		return ((const struct msc_config *)s->object)->name;
	if (s->kind == SECTION_PARTITION)
		return ((const struct partition_config *)s->object)->name;
	return NULL;
}

/* The earlier section of the same kind and name, if any. */
static const struct config_section *find_twin(const struct config_loader *ld, enum section_kind kind, const char *name)
{
	for (size_t i = 0; i < ld->section_count; i++) {
		const struct config_section *s = &ld->sections[i];
		if (s->kind != kind || s->discarded)
			continue;
		const char *other = section_name(s);
		if (!name || (other && !strcmp(other, name)))
			return s;
	}
	return NULL;
}

static void report_unknown_kind(struct config_loader *ld, const char *kind)
{
	const char *kinds[SECTION_KIND_COUNT];

	for (int i = 0; i < SECTION_KIND_COUNT; i++)
		kinds[i] = config_sections[i].kind;
	const char *near = suggest_nearest(kind, kinds, SECTION_KIND_COUNT);
	diag_add(ld->diags, DIAG_ERROR, ld->line,
		 "unknown section [%s]%s%s%s; sections are [global], [sim], [msc \"NAME\"] and [partition \"NAME\"]",
		 kind, near ? " (did you mean [" : "", near ? near : "", near ? "]?)" : "");
}

/* Splits `header` (the text between the brackets) into a kind and an optional "NAME". */
static bool split_header(struct config_loader *ld, char *header, char **ret_kind, char **ret_name)
{
	char *kind = header + strspn(header, " \t");
	char *rest = kind + strcspn(kind, " \t\"");
	char *name = NULL;

	if (*rest) {
		char *after_kind = rest;
		rest += strspn(rest, " \t");
		*after_kind = '\0';
		if (*rest) {
			size_t len = strlen(rest);
			while (len > 0 && (rest[len - 1] == ' ' || rest[len - 1] == '\t'))
				rest[--len] = '\0';
			if (len < 2 || rest[0] != '"' || rest[len - 1] != '"' || memchr(rest + 1, '"', len - 2)) {
				diag_add(ld->diags, DIAG_ERROR, ld->line,
					 "malformed section header: write the name in double quotes, as in [%s "
					 "\"NAME\"]",
					 kind);
				return false;
			}
			rest[len - 1] = '\0';
			name = rest + 1;
		}
	}
	*ret_kind = kind;
	*ret_name = name;
	return true;
}

static int find_section_kind(const char *kind)
{
	for (int i = 0; i < SECTION_KIND_COUNT; i++)
		if (!strcmp(config_sections[i].kind, kind))
			return i;
	return -1;
}

static bool header_name_ok(struct config_loader *ld, const struct config_section_def *def, const char *name)
{
	struct parse_err err;

	if (def->named && !name) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "section [%s] needs a name: [%s \"NAME\"]", def->kind,
			 def->kind);
		return false;
	}
	if (!def->named && name) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "section [%s] takes no name", def->kind);
		return false;
	}
	if (name && !name_is_valid(name, &err)) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "invalid %s name \"%s\": %s", def->kind, name, err.text);
		return false;
	}
	return true;
}

static void loader_open_section(struct config_loader *ld, char *header)
{
	char *kind_text, *name;

	ld->current = NULL;
	ld->current_invalid = true;
	if (!split_header(ld, header, &kind_text, &name))
		return;
	int kind = find_section_kind(kind_text);
	if (kind < 0) {
		report_unknown_kind(ld, kind_text);
		return;
	}
	const struct config_section_def *def = &config_sections[kind];
	if (!header_name_ok(ld, def, name))
		return;

	const struct config_section *twin = find_twin(ld, (enum section_kind)kind, name);
	unsigned twin_line = twin ? twin->line : 0; /* loader_add_section may move the sections */
	struct config_section *s = loader_add_section(ld, (enum section_kind)kind, ld->line);
	if (!s) {
		ld->out_of_memory = true;
		return;
	}
	if (name)
		snprintf(s->kind == SECTION_MSC ? ((struct msc_config *)s->object)->name
						: ((struct partition_config *)s->object)->name,
			 NAME_MAX_LEN + 1, "%s", name);
	if (twin_line) {
		s->discarded = true;
		if (name)
			diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate %s \"%s\" (first defined at line %u)",
				 def->kind, name, twin_line);
		else
			diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate section [%s] (first at line %u)",
				 def->kind, twin_line);
	}
	ld->current = s;
	ld->current_invalid = false;
}

/* As inih splits keys: at the first '=' or ':' before an inline comment (';' after a blank). */
static bool has_key_separator(const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '=' || *p == ':')
			return true;
		if (*p == ';' && p > text && (p[-1] == ' ' || p[-1] == '\t'))
			return false;
	}
	return false;
}

/* Handles one physical line before inih sees it. Returns false when inih should not see it. */
static bool loader_scan_line(struct config_loader *ld, char *text)
{
	if (*text == '\0' || *text == ';' || *text == '#' || *text == '\n' || *text == '\r')
		return true;
	if (*text == '[') {
		char *close = strchr(text, ']');
		if (!close) {
			diag_add(ld->diags, DIAG_ERROR, ld->line, "section header without closing ']'");
			ld->current = NULL;
			ld->current_invalid = true;
			return false;
		}
		char *after = close + 1 + strspn(close + 1, " \t\r\n");
		if (*after && *after != ';' && *after != '#') {
			diag_add(ld->diags, DIAG_ERROR, ld->line, "unexpected text after section header");
			ld->current = NULL;
			ld->current_invalid = true;
			return false;
		}
		*close = '\0';
		loader_open_section(ld, text + 1);
		*close = ']';
		return true;
	}
	if (!has_key_separator(text)) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "expected 'key = value' or '[section]'");
		return false;
	}
	return true;
}

/* inih's reader callback: one physical line per call, left-trimmed (so an indented line is never
 * taken as a continuation of the previous value), checked by loader_scan_line. */
static char *loader_read_line(char *buf, int size, void *stream)
{
	struct config_loader *ld = stream;

	ssize_t len = getline(&ld->line_buf, &ld->line_cap, ld->in);
	if (len < 0) {
		ld->read_error = ferror(ld->in) != 0;
		ld->out_of_memory = !ld->read_error && !feof(ld->in);
		return NULL;
	}
	ld->line++;
	char *text = ld->line_buf;
	if (ld->line == 1 && len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	if (strlen(text) != (size_t)len) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "line contains a NUL byte");
		text = "";
	} else if (len > CONFIG_MAX_LINE + 1 || (len == CONFIG_MAX_LINE + 1 && text[len - 1] != '\n')) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "line longer than %d characters", CONFIG_MAX_LINE);
		text = "";
	} else {
		text += strspn(text, " \t");
		if (!loader_scan_line(ld, text))
			text = "";
	}
	snprintf(buf, (size_t)size, "%s", *text ? text : "\n");
	return buf;
}

static void report_unknown_key(struct config_loader *ld, const struct config_section_def *def, const char *key)
{
	const char *names[SECTION_MAX_KEYS];

	for (size_t i = 0; i < def->key_count; i++)
		names[i] = def->keys[i].name;
	const char *near = suggest_nearest(key, names, def->key_count);
	for (int k = 0; !near && k < SECTION_KIND_COUNT; k++) {
		if (config_key_index((enum section_kind)k, key) >= 0) {
			diag_add(ld->diags, DIAG_ERROR, ld->line, "key '%s' belongs in a [%s] section, not [%s]", key,
				 config_sections[k].kind, def->kind);
			return;
		}
	}
	diag_add(ld->diags, DIAG_ERROR, ld->line, "unknown key '%s' in [%s]%s%s%s", key, def->kind,
		 near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

static int config_handle_key(void *user, const char *section, const char *key, const char *value)
{
	struct config_loader *ld = user;

	(void)section; /* the reader already opened it */
	if (*key == '\0') {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "missing key name before '='");
		return 1;
	}
	if (!ld->current) {
		if (!ld->current_invalid)
			diag_add(ld->diags, DIAG_ERROR, ld->line,
				 "key '%s' is outside any section; put it under [global] or a [partition \"NAME\"]",
				 key);
		return 1;
	}
	struct config_section *s = ld->current;
	const struct config_section_def *def = &config_sections[s->kind];
	int index = config_key_index(s->kind, key);
	if (index < 0) {
		report_unknown_key(ld, def, key);
		return 1;
	}
	if (s->key_line[index]) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate key '%s' (first set at line %u)", key,
			 s->key_line[index]);
		return 1;
	}
	s->key_line[index] = ld->line;
	if (*value == '\0') {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s: empty value", key);
		return 1;
	}
	struct parse_err err = { "" };
	if (def->keys[index].parse(s->object, value, &err) < 0)
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s = %s: %s", key, value, err.text);
	return 1;
}

static void free_section_object(struct config_section *s)
{
	if (s->kind == SECTION_GLOBAL) {
		struct global_config *g = s->object;
		free(g->resctrl_root);
		free(g->socket);
		free(g->record);
	} else if (s->kind == SECTION_PARTITION) {
		partition_config_fini(s->object);
	}
	free(s->object);
}

/* Moves the kept sections' objects into the model; sections keep pointers for config_check. */
static int loader_build_model(struct config_loader *ld)
{
	struct config *c = calloc(1, sizeof(*c));
	size_t mscs = 0, partitions = 0;

	if (!c)
		return -ENOMEM;
	global_config_defaults(&c->global);
	sim_config_defaults(&c->sim);
	for (size_t i = 0; i < ld->section_count; i++) {
		mscs += ld->sections[i].kind == SECTION_MSC && !ld->sections[i].discarded;
		partitions += ld->sections[i].kind == SECTION_PARTITION && !ld->sections[i].discarded;
	}
	c->mscs = calloc(mscs ? mscs : 1, sizeof(*c->mscs));
	c->partitions = calloc(partitions ? partitions : 1, sizeof(*c->partitions));
	if (!c->mscs || !c->partitions) {
		config_free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ld->section_count; i++) {
		struct config_section *s = &ld->sections[i];
		if (s->discarded)
			continue;
		void *slot;
		size_t size;
		switch (s->kind) {
		case SECTION_GLOBAL:
			slot = &c->global, size = sizeof(c->global);
			break;
		case SECTION_SIM:
			slot = &c->sim, size = sizeof(c->sim);
			break;
		case SECTION_MSC:
			slot = &c->mscs[c->msc_count++], size = sizeof(*c->mscs);
			((struct msc_config *)s->object)->line = s->line;
			break;
		default:
			slot = &c->partitions[c->partition_count++], size = sizeof(*c->partitions);
			((struct partition_config *)s->object)->line = s->line;
			break;
		}
		memcpy(slot, s->object, size);
		free(s->object);
		s->object = slot;
	}
	ld->config = c;
	return 0;
}

static void loader_fini(struct config_loader *ld)
{
	for (size_t i = 0; i < ld->section_count; i++)
		if (ld->sections[i].discarded || !ld->config)
			free_section_object(&ld->sections[i]);
	free(ld->sections);
	free(ld->line_buf);
}

int config_load(FILE *in, const struct config_overrides *overrides, struct config **ret_config, struct diag_list *diags)
{
	struct config_loader ld = { .in = in, .diags = diags };
	int r;

	r = ini_parse_stream(loader_read_line, &ld, config_handle_key, &ld);
	if (r == -2 || ld.out_of_memory) {
		loader_fini(&ld);
		return -ENOMEM;
	}
	if (ld.read_error) {
		diag_add(diags, DIAG_ERROR, 0, "read error after line %u", ld.line);
		loader_fini(&ld);
		return -EIO;
	}
	r = loader_build_model(&ld);
	if (r < 0) {
		loader_fini(&ld);
		return r;
	}
	config_check(ld.config, ld.sections, ld.section_count, overrides, diags);
	loader_fini(&ld);
	diag_sort(diags);
	if (diag_error_count(diags) > 0) {
		config_free(ld.config);
		return -EINVAL;
	}
	*ret_config = ld.config;
	return 0;
}

int config_load_string(const char *text, const struct config_overrides *overrides, struct config **ret_config,
		       struct diag_list *diags)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	if (!in)
		return -errno;
	int r = config_load(in, overrides, ret_config, diags);
	fclose(in);
	return r;
}

int config_load_path(const char *path, const struct config_overrides *overrides, struct config **ret_config,
		     struct diag_list *diags)
{
	FILE *in = fopen(path, "re");

	if (!in) {
		int saved = errno;
		diag_add(diags, DIAG_ERROR, 0, "cannot open: %s", strerror(saved));
		return -saved;
	}
	int r = config_load(in, overrides, ret_config, diags);
	fclose(in);
	return r;
}

const struct partition_config *config_find_partition(const struct config *config, const char *name)
{
	for (size_t i = 0; i < config->partition_count; i++)
		if (!strcmp(config->partitions[i].name, name))
			return &config->partitions[i];
	return NULL;
}
