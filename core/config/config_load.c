/* inih glue: feeds lines to inih, tracks line numbers, opens sections and dispatches keys.
 *
 * Debian's libinih is built without INI_HANDLER_LINENO and without INI_CALL_HANDLER_ON_NEW_SECTION,
 * and it reports only its first syntax error. So the line reader below does the line-level work
 * inih cannot report on: it counts lines, opens each [section] when its header is read (so a section
 * without keys still exists), and reports every malformed line. inih still splits keys from values,
 * strips comments and whitespace, and calls handle_key for each pair.
 *
 * The sections are the base ones ([global], [msc "NAME"], [partition "NAME"], [vm-template "NAME"])
 * and one per extension of the schema that has a section. A template holds [partition] keys (except
 * those config_template_refuses names) besides its own match. Each section read gets an object of
 * its own; at the end the kept ones are moved into the model. A duplicate is parsed into a scratch
 * object (so its keys are still checked) and then dropped. */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/file_read.h"
#include "core/base/name_index.h"
#include "core/base/suggest.h"
#include "core/config/config_internal.h"

enum kind_role {
	ROLE_GLOBAL,
	ROLE_MSC,
	ROLE_PARTITION,
	ROLE_TEMPLATE,
	ROLE_EXT,
};

/* A kind of section the loader knows. */
struct section_kind {
	const struct config_section_def *def;
	enum kind_role role;
	size_t ext; /* ROLE_EXT: index into config->exts */
};

/* One section as it appeared in the file. */
struct section {
	size_t kind;
	void *object;
	struct config_origin origin;
	bool discarded;
};

#define MAX_KINDS (4 + CONFIG_MAX_EXTS)

struct loader {
	FILE *in;
	const struct config_schema *schema;
	struct diag_list *diags;
	unsigned line;
	/* The line being read: its first CONFIG_MAX_LINE characters, its newline and a NUL. The rest of a
	 * longer line is read and dropped, never held, so no input can make a line take more memory. */
	char line_buf[CONFIG_MAX_LINE + 3];
	size_t file_bytes; /* read from the current file: it may hold CONFIG_MAX_FILE_BYTES */
	bool too_big;
	bool read_error;
	bool out_of_memory;

	struct section_kind kinds[MAX_KINDS];
	size_t kind_count;
	struct section *sections;
	size_t section_count, section_cap;
	struct name_index kept;	 /* "KIND\tNAME" of every kept section -> its index, to find twins */
	struct section *current; /* NULL before any section or after an invalid header */
	bool in_include;	 /* reading an included file: [partition] and [vm-template] sections only */
	bool current_invalid;	 /* keys under an invalid header are skipped silently */
	unsigned main_lines;	 /* the main file's lines: a section past them is an included file's */
	/* Reading a persist_dir file (config_persist.h): `current` is the main file's section of that
	 * partition, whose keys it replaces; `persist_seen` the lines of the keys this section set. */
	const char *persist_file;
	unsigned *persist_seen;
	unsigned file_first; /* the line (counted over every file) that is the current file's line 1 */

	struct config *config; /* the model being built: extensions and defaults from the start */
};

static const char *kind_name(const struct loader *ld, size_t kind)
{
	return ld->kinds[kind].def->kind;
}

/* A template's key space is the partition keys', then its own (match). */
static size_t key_count_of(const struct loader *ld, size_t kind)
{
	if (ld->kinds[kind].role == ROLE_PARTITION)
		return config_partition_key_count(ld->config);
	if (ld->kinds[kind].role == ROLE_TEMPLATE)
		return config_partition_key_count(ld->config) + ld->kinds[kind].def->key_count;
	return ld->kinds[kind].def->key_count;
}

static bool holds_partition_keys(const struct loader *ld, size_t kind)
{
	return ld->kinds[kind].role == ROLE_PARTITION || ld->kinds[kind].role == ROLE_TEMPLATE;
}

/* The partition whose keys a section holds: the partition itself, or a template's. */
static struct partition_config *partition_of(const struct loader *ld, const struct section *s)
{
	if (ld->kinds[s->kind].role == ROLE_TEMPLATE)
		return &((struct vm_template *)s->object)->partition;
	return s->object;
}

/* The base defaults, and the schema's first backend as the backend key's. */
static void global_defaults(const struct loader *ld, struct global_config *g)
{
	global_config_defaults(g);
	if (ld->schema && ld->schema->backends && ld->schema->backends[0])
		snprintf(g->backend, sizeof(g->backend), "%s", ld->schema->backends[0]);
}

static size_t object_size(const struct loader *ld, size_t kind)
{
	switch (ld->kinds[kind].role) {
	case ROLE_GLOBAL:
		return sizeof(struct global_config);
	case ROLE_MSC:
		return sizeof(struct msc_config);
	case ROLE_PARTITION:
		return sizeof(struct partition_config);
	case ROLE_TEMPLATE:
		return sizeof(struct vm_template);
	case ROLE_EXT:
		break;
	}
	return ld->config->exts[ld->kinds[kind].ext].def->size;
}

static int object_init(struct loader *ld, size_t kind, void *object)
{
	switch (ld->kinds[kind].role) {
	case ROLE_GLOBAL:
		global_defaults(ld, object);
		return 0;
	case ROLE_MSC:
		return 0;
	case ROLE_PARTITION: /* its extensions' data is made when a key of theirs is set (find_key) */
		partition_config_defaults(object);
		return 0;
	case ROLE_TEMPLATE:
		partition_config_defaults(&((struct vm_template *)object)->partition);
		return 0;
	case ROLE_EXT:
		break;
	}
	const struct config_ext *ext = ld->config->exts[ld->kinds[kind].ext].def;
	if (ext->init)
		ext->init(object);
	return 0;
}

static void object_free(struct loader *ld, struct section *s)
{
	if (!s->object)
		return;
	switch (ld->kinds[s->kind].role) {
	case ROLE_GLOBAL:
		global_config_fini_owned(s->object);
		break;
	case ROLE_PARTITION:
		((struct partition_config *)s->object)->origin.key_lines = NULL; /* freed below */
		partition_config_fini(ld->config, s->object);
		break;
	case ROLE_TEMPLATE:
		((struct vm_template *)s->object)->partition.origin.key_lines = NULL;
		vm_template_fini(ld->config, s->object);
		break;
	case ROLE_EXT: {
		const struct config_ext *ext = ld->config->exts[ld->kinds[s->kind].ext].def;
		if (ext->fini)
			ext->fini(s->object);
		break;
	}
	case ROLE_MSC:
		break;
	}
	free(s->object);
	s->object = NULL;
}

static struct section *add_section(struct loader *ld, size_t kind)
{
	if (ld->section_count == ld->section_cap) {
		size_t cap = ld->section_cap ? ld->section_cap * 2 : 16;
		struct section *grown = realloc(ld->sections, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		ld->sections = grown;
		ld->section_cap = cap;
	}
	struct section *s = &ld->sections[ld->section_count];
	*s = (struct section){ .kind = kind, .origin = { .line = ld->line } };
	s->object = calloc(1, object_size(ld, kind));
	s->origin.key_lines = calloc(key_count_of(ld, kind) + 1, sizeof(unsigned));
	ld->section_count++;
	if (!s->object || !s->origin.key_lines || object_init(ld, kind, s->object) < 0) {
		object_free(ld, s);
		free(s->origin.key_lines);
		ld->section_count--;
		return NULL;
	}
	return s;
}

static char *section_name_field(const struct loader *ld, const struct section *s)
{
	if (ld->kinds[s->kind].role == ROLE_MSC)
		return ((struct msc_config *)s->object)->name;
	if (ld->kinds[s->kind].role == ROLE_PARTITION)
		return ((struct partition_config *)s->object)->name;
	if (ld->kinds[s->kind].role == ROLE_TEMPLATE)
		return ((struct vm_template *)s->object)->name;
	return NULL;
}

/* The key of a kept section in ld->kept: its kind, and its name when the kind has names. */
static void twin_key(size_t kind, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%zu\t%s", kind, name ? name : "");
}

/* The earlier kept section of the same kind and name, if any. */
static const struct section *find_twin(const struct loader *ld, size_t kind, const char *name)
{
	char key[NAME_MAX_LEN + 32];
	size_t index;

	twin_key(kind, name, key, sizeof(key));
	return name_index_find(&ld->kept, key, &index) == 0 ? &ld->sections[index] : NULL;
}

static bool remember_kept(struct loader *ld, size_t kind, const char *name, size_t index)
{
	char key[NAME_MAX_LEN + 32];

	twin_key(kind, name, key, sizeof(key));
	return name_index_add(&ld->kept, key, index) != -ENOMEM;
}

static void report_unknown_kind(struct loader *ld, const char *kind)
{
	const char *kinds[MAX_KINDS];
	char list[256] = "";
	size_t used = 0;

	for (size_t i = 0; i < ld->kind_count; i++) {
		const struct config_section_def *def = ld->kinds[i].def;
		kinds[i] = def->kind;
		used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0, "%s[%s%s]",
					 i == 0 ? "" : (i + 1 == ld->kind_count ? " and " : ", "), def->kind,
					 def->named ? " \"NAME\"" : "");
	}
	const char *near = suggest_nearest(kind, kinds, ld->kind_count);
	diag_add(ld->diags, DIAG_ERROR, ld->line, "unknown section [%s]%s%s%s; sections are %s", kind,
		 near ? " (did you mean [" : "", near ? near : "", near ? "]?)" : "", list);
}

/* Splits `header` (the text between the brackets) into a kind and an optional "NAME". */
static bool split_header(struct loader *ld, char *header, char **ret_kind, char **ret_name)
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

static long find_kind(const struct loader *ld, const char *kind)
{
	for (size_t i = 0; i < ld->kind_count; i++)
		if (!strcmp(kind_name(ld, i), kind))
			return (long)i;
	return -1;
}

static bool header_name_ok(struct loader *ld, const struct config_section_def *def, const char *name)
{
	struct err err;

	if (def->named && !name) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "section [%s] needs a name: [%s \"NAME\"]", def->kind,
			 def->kind);
		return false;
	}
	if (!def->named && name) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "section [%s] takes no name", def->kind);
		return false;
	}
	if (name && name_check(name, &err) < 0) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "invalid %s name \"%s\": %s", def->kind, name, err.text);
		return false;
	}
	return true;
}

static void report_twin(struct loader *ld, const struct config_section_def *def, const char *name, unsigned twin_line)
{
	char place[PATH_MAX + 16];

	diag_place(ld->diags, twin_line, place, sizeof(place));
	if (name)
		diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate %s \"%s\" (first defined at %s)", def->kind, name,
			 place);
	else
		diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate section [%s] (first at %s)", def->kind, place);
}

/* A section of a persist_dir file: [partition "NAME"] of the main file, whose keys it replaces. One
 * the main file does not have is ignored with a warning: a partition taken out of the file must not
 * keep mpamd from starting because a change of it was persisted once. */
static void open_persisted(struct loader *ld, size_t kind, const char *name)
{
	const struct section *twin = NULL;

	if (ld->kinds[kind].role != ROLE_PARTITION) {
		diag_add(ld->diags, DIAG_ERROR, ld->line,
			 "[%s] in a persist_dir file: it holds [partition \"NAME\"] sections only",
			 kind_name(ld, kind));
		return;
	}
	if (!header_name_ok(ld, ld->kinds[kind].def, name))
		return;
	twin = find_twin(ld, kind, name);
	if (!twin || twin->origin.line > ld->main_lines) {
		diag_add(ld->diags, DIAG_WARNING, ld->line,
			 "partition \"%s\" is not one of the main file's: its persisted keys here are ignored", name);
		return;
	}
	size_t keys = key_count_of(ld, kind) + 1;
	free(ld->persist_seen);
	if (!(ld->persist_seen = calloc(keys, sizeof(unsigned)))) {
		ld->out_of_memory = true;
		return;
	}
	ld->current = &ld->sections[twin - ld->sections];
	ld->current_invalid = false;
}

static void open_section(struct loader *ld, char *header)
{
	char *kind_text, *name;

	ld->current = NULL;
	ld->current_invalid = true;
	if (!split_header(ld, header, &kind_text, &name))
		return;
	long kind = find_kind(ld, kind_text);
	if (kind < 0) {
		report_unknown_kind(ld, kind_text);
		return;
	}
	const struct config_section_def *def = ld->kinds[kind].def;
	if (ld->persist_file) {
		open_persisted(ld, (size_t)kind, name);
		return;
	}
	if (ld->in_include && !holds_partition_keys(ld, (size_t)kind)) {
		diag_add(ld->diags, DIAG_ERROR, ld->line,
			 "[%s] in an included file: included files hold [partition \"NAME\"] and [vm-template "
			 "\"NAME\"] sections only",
			 kind_text);
		return;
	}
	if (!header_name_ok(ld, def, name))
		return;
	const struct section *twin = find_twin(ld, (size_t)kind, name);
	unsigned twin_line = twin ? twin->origin.line : 0; /* add_section may move the sections */
	struct section *s = add_section(ld, (size_t)kind);
	if (!s) {
		ld->out_of_memory = true;
		return;
	}
	if (name)
		snprintf(section_name_field(ld, s), NAME_MAX_LEN + 1, "%s", name);
	if (name && ld->kinds[kind].role == ROLE_TEMPLATE) /* the goal rules' messages name it */
		snprintf(partition_of(ld, s)->name, NAME_MAX_LEN + 1, "%s", name);
	if (ld->kinds[kind].role == ROLE_PARTITION)
		((struct partition_config *)s->object)->included = ld->in_include;
	if (twin_line) {
		s->discarded = true;
		report_twin(ld, def, name, twin_line);
	} else if (!remember_kept(ld, (size_t)kind, name, (size_t)(s - ld->sections))) {
		ld->out_of_memory = true;
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

static bool reject_header(struct loader *ld, const char *message)
{
	diag_add(ld->diags, DIAG_ERROR, ld->line, "%s", message);
	ld->current = NULL;
	ld->current_invalid = true;
	return false;
}

/* Handles one physical line before inih sees it. Returns false when inih should not see it. */
static bool scan_line(struct loader *ld, char *text)
{
	if (*text == '\0' || *text == ';' || *text == '#' || *text == '\n' || *text == '\r')
		return true;
	if (*text == '[') {
		char *close = strchr(text, ']');
		if (!close)
			return reject_header(ld, "section header without closing ']'");
		char *after = close + 1 + strspn(close + 1, " \t\r\n");
		if (*after && *after != ';' && *after != '#')
			return reject_header(ld, "unexpected text after section header");
		*close = '\0';
		open_section(ld, text + 1);
		*close = ']';
		return true;
	}
	if (!has_key_separator(text)) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "expected 'key = value' or '[section]'");
		return false;
	}
	return true;
}

/* One physical line: its first characters in ld->line_buf, its whole length (newline included) in
 * *ret_len, whether it holds a NUL in *ret_nul. False at the end of the input, after a read error, and
 * once the file holds more than CONFIG_MAX_FILE_BYTES (/dev/zero never ends). */
static bool line_get(struct loader *ld, size_t *ret_len, bool *ret_nul)
{
	size_t kept = 0, len = 0;
	int c;

	*ret_nul = false;
	while ((c = getc(ld->in)) != EOF) {
		if (++ld->file_bytes > CONFIG_MAX_FILE_BYTES) {
			ld->too_big = true;
			return false;
		}
		*ret_nul |= c == '\0';
		if (kept < sizeof(ld->line_buf) - 1)
			ld->line_buf[kept++] = (char)c;
		len++;
		if (c == '\n')
			break;
	}
	ld->line_buf[kept] = '\0';
	ld->read_error |= c == EOF && ferror(ld->in);
	*ret_len = len;
	return len > 0 && !ld->read_error;
}

/* inih's reader callback: one physical line per call, left-trimmed (so an indented line is never
 * taken as a continuation of the previous value), checked by scan_line. */
static char *read_line(char *buf, int size, void *stream)
{
	struct loader *ld = stream;
	size_t len;
	bool nul;

	if (!line_get(ld, &len, &nul))
		return NULL;
	ld->line++;
	char *text = ld->line_buf;
	if (ld->line == 1 && len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	if (nul) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "line contains a NUL byte");
		text = "";
	} else if (len > CONFIG_MAX_LINE + 1 || (len == CONFIG_MAX_LINE + 1 && text[len - 1] != '\n')) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "line longer than %d characters", CONFIG_MAX_LINE);
		text = "";
	} else {
		text += strspn(text, " \t");
		if (!scan_line(ld, text))
			text = "";
	}
	snprintf(buf, (size_t)size, "%s", *text ? text : "\n");
	return buf;
}

/* The key `name` of a section kind: its index in the kind's key space and the object it parses into
 * (a partition's extension data for extension keys). */
static const struct config_key *find_key(struct loader *ld, struct section *s, const char *name, int *ret_index,
					 void **ret_object)
{
	const struct config_section_def *def = ld->kinds[s->kind].def;
	/* A partition's keys are its section's; a template's own keys come after the partition keys. */
	int own = ld->kinds[s->kind].role == ROLE_PARTITION ? -1 : config_section_key_index(def, name);

	*ret_object = s->object;
	if (own >= 0 || !holds_partition_keys(ld, s->kind)) {
		*ret_index = own >= 0 && holds_partition_keys(ld, s->kind)
				     ? (int)config_partition_key_count(ld->config) + own
				     : own;
		return own < 0 ? NULL : &def->keys[own];
	}
	int ext;
	*ret_index = config_partition_key_find(ld->config, name, &ext);
	if (*ret_index < 0)
		return NULL;
	/* An extension's data is made when the partition sets the first of its keys (NULL: out of memory). */
	*ret_object = ext >= 0 ? config_partition_ext_own(ld->config, partition_of(ld, s), ld->config->exts[ext].def)
			       : (void *)partition_of(ld, s);
	return config_partition_key(ld->config, (size_t)*ret_index, NULL);
}

static bool kind_has_key(struct loader *ld, size_t kind, const char *key)
{
	int ext;

	if (holds_partition_keys(ld, kind) && config_partition_key_find(ld->config, key, &ext) >= 0)
		return !(ld->kinds[kind].role == ROLE_TEMPLATE && config_template_refuses(key));
	return config_section_key_index(ld->kinds[kind].def, key) >= 0;
}

/* Name `i` of a kind's key space (a template's: the partition keys, then its own). */
static const char *key_name_of(struct loader *ld, size_t kind, size_t i)
{
	size_t partition_keys = holds_partition_keys(ld, kind) ? config_partition_key_count(ld->config) : 0;

	if (i < partition_keys)
		return config_partition_key(ld->config, i, NULL)->name;
	return ld->kinds[kind].def->keys[i - partition_keys].name;
}

static void report_unknown_key(struct loader *ld, size_t kind, const char *key)
{
	const char *names[64];
	size_t count = key_count_of(ld, kind);

	count = count < 64 ? count : 64;
	for (size_t i = 0; i < count; i++)
		names[i] = key_name_of(ld, kind, i);
	/* A key of another section is that key in the wrong place, whatever it is spelt like here. */
	for (size_t k = 0; k < ld->kind_count; k++) {
		if (k != kind && kind_has_key(ld, k, key)) {
			diag_add(ld->diags, DIAG_ERROR, ld->line, "key '%s' belongs in a [%s] section, not [%s]", key,
				 kind_name(ld, k), kind_name(ld, kind));
			return;
		}
	}
	const char *near = suggest_nearest(key, names, count);
	diag_add(ld->diags, DIAG_ERROR, ld->line, "unknown key '%s' in [%s]%s%s%s", key, kind_name(ld, kind),
		 near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

static void note_persisted(struct loader *ld, const struct section *s, const struct config_key *k)
{
	struct config *c = ld->config;
	struct config_persisted *grown = realloc(c->persisted, (c->persisted_count + 1) * sizeof(*grown));
	char *file = strdup(ld->persist_file);

	if (!grown || !file) {
		free(file);
		if (grown)
			c->persisted = grown;
		ld->out_of_memory = true;
		return;
	}
	c->persisted = grown;
	struct config_persisted *p = &grown[c->persisted_count++];
	*p = (struct config_persisted){ .file = file, .line = ld->line - ld->file_first + 1, .key = k->name };
	snprintf(p->partition, sizeof(p->partition), "%s", section_name_field(ld, s));
}

/* A persisted key replaces the main file's value (a later file's replaces an earlier one's): only a
 * key mpamctl set may change, each once a section. */
static void replace_persisted(struct loader *ld, struct section *s, const struct config_key *k, int index, void *object,
			      const char *value)
{
	struct err err = { "" };

	if (!(k->flags & CONFIG_KEY_RUNTIME)) {
		diag_add(ld->diags, DIAG_ERROR, ld->line,
			 "%s cannot be persisted: a persist_dir file holds only the keys mpamctl set changes", k->name);
		return;
	}
	if (ld->persist_seen[index]) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate key '%s' (first set at line %u)", k->name,
			 ld->persist_seen[index] - ld->file_first + 1);
		return;
	}
	ld->persist_seen[index] = ld->line;
	if (*value == '\0') {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s: empty value", k->name);
		return;
	}
	if (config_key_parse(k, object, value, &err) < 0) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s = %s: %s", k->name, value, err.text);
		return;
	}
	s->origin.key_lines[index] = ld->line; /* the goal rules' messages point here */
	note_persisted(ld, s, k);
}

static int handle_key(void *user, const char *section, const char *key, const char *value)
{
	struct loader *ld = user;

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
	struct section *s = ld->current;
	int index;
	void *object;
	const struct config_key *k = find_key(ld, s, key, &index, &object);
	if (!k) {
		report_unknown_key(ld, s->kind, key);
		return 1;
	}
	if (!object) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s: out of memory", key);
		return 1;
	}
	if (ld->persist_file) {
		replace_persisted(ld, s, k, index, object, value);
		return 1;
	}
	const char *refusal = ld->kinds[s->kind].role == ROLE_TEMPLATE ? config_template_refuses(key) : NULL;
	if (refusal) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s cannot be set in a [vm-template]: %s", key, refusal);
		return 1;
	}
	if (s->origin.key_lines[index]) {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "duplicate key '%s' (first set at line %u)", key,
			 s->origin.key_lines[index]);
		return 1;
	}
	s->origin.key_lines[index] = ld->line;
	if (*value == '\0') {
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s: empty value", key);
		return 1;
	}
	struct err err = { "" };
	if (config_key_parse(k, object, value, &err) < 0)
		diag_add(ld->diags, DIAG_ERROR, ld->line, "%s = %s: %s", key, value, err.text);
	return 1;
}

/* The model before any line is read: base defaults, and every extension's data at its defaults. */
static int loader_init(struct loader *ld)
{
	struct config *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	ld->config = c;
	global_defaults(ld, &c->global);
	ld->kinds[0] = (struct section_kind){ &config_global_section, ROLE_GLOBAL, 0 };
	ld->kinds[1] = (struct section_kind){ &config_msc_section, ROLE_MSC, 0 };
	ld->kinds[2] = (struct section_kind){ &config_partition_section, ROLE_PARTITION, 0 };
	ld->kinds[3] = (struct section_kind){ &config_template_section, ROLE_TEMPLATE, 0 };
	ld->kind_count = 4;
	for (size_t e = 0; ld->schema && e < ld->schema->ext_count && e < CONFIG_MAX_EXTS; e++) {
		const struct config_ext *ext = ld->schema->exts[e];
		struct config_ext_data *x = &c->exts[c->ext_count++];
		x->def = ext;
		x->data = calloc(1, ext->size ? ext->size : 1);
		x->origin.key_lines = calloc(2, sizeof(unsigned)); /* no key set (config_origin) */
		if (!x->data || !x->origin.key_lines)
			return -ENOMEM;
		if (ext->init)
			ext->init(x->data);
		if (ext->section)
			ld->kinds[ld->kind_count++] = (struct section_kind){ ext->section, ROLE_EXT, e };
	}
	return 0;
}

/* Moves one kept section's object into its place in the model. */
static void move_into_model(struct loader *ld, struct section *s)
{
	struct config *c = ld->config;

	switch (ld->kinds[s->kind].role) {
	case ROLE_GLOBAL:
		c->global = *(struct global_config *)s->object;
		c->global.origin = s->origin;
		break;
	case ROLE_MSC:
		c->mscs[c->msc_count] = *(struct msc_config *)s->object;
		c->mscs[c->msc_count++].origin = s->origin;
		break;
	case ROLE_PARTITION:
		c->partitions[c->partition_count] = *(struct partition_config *)s->object;
		c->partitions[c->partition_count++].origin = s->origin;
		break;
	case ROLE_TEMPLATE:
		c->templates[c->template_count] = *(struct vm_template *)s->object;
		c->templates[c->template_count++].partition.origin = s->origin;
		break;
	case ROLE_EXT: {
		struct config_ext_data *x = &c->exts[ld->kinds[s->kind].ext];
		if (x->def->fini)
			x->def->fini(x->data);
		free(x->data);
		free(x->origin.key_lines);
		x->data = s->object;
		x->origin = s->origin;
		s->object = NULL;
		return;
	}
	}
	free(s->object);
	s->object = NULL;
}

static int build_model(struct loader *ld)
{
	struct config *c = ld->config;
	size_t mscs = 0, partitions = 0, templates = 0;

	for (size_t i = 0; i < ld->section_count; i++) {
		if (ld->sections[i].discarded)
			continue;
		mscs += ld->kinds[ld->sections[i].kind].role == ROLE_MSC;
		partitions += ld->kinds[ld->sections[i].kind].role == ROLE_PARTITION;
		templates += ld->kinds[ld->sections[i].kind].role == ROLE_TEMPLATE;
	}
	c->mscs = calloc(mscs ? mscs : 1, sizeof(*c->mscs));
	c->partitions = calloc(partitions ? partitions : 1, sizeof(*c->partitions));
	c->templates = calloc(templates ? templates : 1, sizeof(*c->templates));
	if (!c->mscs || !c->partitions || !c->templates)
		return -ENOMEM;
	for (size_t i = 0; i < ld->section_count; i++) {
		struct section *s = &ld->sections[i];
		if (s->discarded)
			continue;
		/* The lines of the keys it sets only (a line for every key was the reader's table). */
		unsigned *lines = config_origin_compact(s->origin.key_lines, key_count_of(ld, s->kind));
		if (!lines)
			return -ENOMEM;
		free(s->origin.key_lines);
		s->origin.key_lines = lines;
		move_into_model(ld, s);
	}
	return 0;
}

static void loader_fini(struct loader *ld)
{
	for (size_t i = 0; i < ld->section_count; i++) {
		struct section *s = &ld->sections[i];
		if (!s->object)
			continue;
		object_free(ld, s);
		free(s->origin.key_lines);
	}
	free(ld->sections);
	name_index_fini(&ld->kept);
}

/* The kept [global] section of the main file, once it is read (NULL: none yet). */
static const struct section *kept_global(const struct loader *ld)
{
	for (size_t k = 0; k < ld->kind_count; k++)
		if (ld->kinds[k].role == ROLE_GLOBAL)
			return find_twin(ld, k, NULL);
	return NULL;
}

/* The regular file at `path`, read whole (file_read.h), as a stream; *ret_text holds it and is
 * freed after the stream is closed. 0, or a negative errno and why (without the path). */
static int file_stream(const char *path, char **ret_text, FILE **ret_in, struct err *err)
{
	size_t len;
	int r = file_read_regular(path, CONFIG_MAX_FILE_BYTES, ret_text, &len, err);

	if (r < 0)
		return r;
	*ret_in = fmemopen(*ret_text, len, "r");
	if (!*ret_in) {
		free(*ret_text);
		return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* One included file, its lines numbered on from the main file's (see diag_list_include). */
static int read_included(struct loader *ld, const char *path, unsigned pattern_line)
{
	struct err err = { "" };
	char *text;
	FILE *in;
	int r = file_stream(path, &text, &in, &err);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		diag_add(ld->diags, DIAG_ERROR, pattern_line, "%s: %s: %s",
			 ld->persist_file ? "persist_dir" : "include", path, err.text);
		return 0;
	}
	diag_list_include(ld->diags, path, ld->line + 1);
	ld->file_first = ld->line + 1;
	ld->in = in;
	ld->file_bytes = 0;
	ld->current = NULL;
	ld->current_invalid = false;
	r = ini_parse_stream(read_line, ld, handle_key, ld);
	ld->in = NULL;
	fclose(in);
	free(text);
	return r == -2 || ld->out_of_memory ? -ENOMEM : 0;
}

/* [global] include = GLOB: every matching file, in sorted order (glob sorts), as if it followed
 * the main file, with [partition] sections only. A pattern with no wildcard must name a file; one
 * with wildcards may match nothing (an empty /etc/mpamd.d). */
static int read_includes(struct loader *ld)
{
	const struct section *global = kept_global(ld);
	const char *pattern = global ? ((const struct global_config *)global->object)->include : NULL;
	int key = config_section_key_index(&config_global_section, "include");
	unsigned line = pattern && key >= 0 && global->origin.key_lines ? global->origin.key_lines[key] : 0;
	glob_t g;
	int r = 0;

	if (!pattern)
		return 0;
	int gr = glob(pattern, GLOB_ERR, NULL, &g);
	if (gr == GLOB_NOMATCH && !strpbrk(pattern, "*?["))
		diag_add(ld->diags, DIAG_ERROR, line, "include = %s: no such file", pattern);
	else if (gr != 0 && gr != GLOB_NOMATCH)
		diag_add(ld->diags, DIAG_ERROR, line, "include = %s: cannot be searched (%s)", pattern,
			 gr == GLOB_NOSPACE ? "out of memory" : "read error");
	ld->in_include = true;
	for (size_t i = 0; gr == 0 && i < g.gl_pathc && r == 0; i++)
		r = read_included(ld, g.gl_pathv[i], line);
	ld->in_include = false;
	if (gr == 0)
		globfree(&g);
	return r;
}

static int compare_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* NAME.ini, as config_persist_file names them (a name may start with a dot); not the temporary files
 * a write leaves while it runs (.NAME.ini.tmp). */
static int is_persist_file(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return len > 4 && !strcmp(d->d_name + len - 4, ".ini");
}

/* [global] persist_dir: each DIR/NAME.ini in byte order, after the main file and the included ones,
 * replacing keys of the main file's partitions. A missing directory is none persisted yet. */
static int read_persisted(struct loader *ld)
{
	const struct section *global = kept_global(ld);
	const char *dir = global ? ((const struct global_config *)global->object)->persist_dir : NULL;
	int key = config_section_key_index(&config_global_section, "persist_dir");
	unsigned line = dir && key >= 0 && global->origin.key_lines ? global->origin.key_lines[key] : 0;
	struct dirent **names = NULL;
	char path[PATH_MAX];
	int r = 0;

	if (!dir)
		return 0;
	int n = scandir(dir, &names, is_persist_file, compare_names);
	if (n < 0 && errno != ENOENT)
		diag_add(ld->diags, DIAG_ERROR, line, "persist_dir = %s: cannot be read (%s)", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		ld->persist_file = path;
		if (r == 0)
			r = read_included(ld, path, line);
		free(names[i]);
	}
	ld->persist_file = NULL;
	free(names);
	free(ld->persist_seen);
	ld->persist_seen = NULL;
	return r;
}

static int load(struct loader *ld)
{
	int r = loader_init(ld);

	if (r < 0)
		return r;
	r = ini_parse_stream(read_line, ld, handle_key, ld);
	if (r == -2 || ld->out_of_memory)
		return -ENOMEM;
	if (ld->read_error) {
		diag_add(ld->diags, DIAG_ERROR, 0, "read error after line %u", ld->line);
		return -EIO;
	}
	if (ld->too_big) {
		diag_add(ld->diags, DIAG_ERROR, 0, "larger than %d bytes, the most a configuration file may hold",
			 CONFIG_MAX_FILE_BYTES);
		return -EFBIG;
	}
	ld->main_lines = ld->line;
	if ((r = read_includes(ld)) < 0 || (r = read_persisted(ld)) < 0)
		return r;
	return build_model(ld);
}

int config_load(FILE *in, const struct config_schema *schema, const struct config_overrides *overrides,
		struct config **ret_config, struct diag_list *diags)
{
	struct loader ld = { .in = in, .schema = schema, .diags = diags };
	int r = load(&ld);

	loader_fini(&ld);
	if (r < 0) {
		config_free(ld.config);
		return r;
	}
	if (overrides && overrides->backend) {
		snprintf(ld.config->global.backend, sizeof(ld.config->global.backend), "%s", overrides->backend);
		ld.config->global.backend_from_command_line = true;
	}
	config_check_base(ld.config, schema, diags);
	for (size_t e = 0; e < ld.config->ext_count; e++)
		if (ld.config->exts[e].def->check)
			ld.config->exts[e].def->check(ld.config, diags);
	diag_sort(diags);
	if (diags->out_of_memory || diag_error_count(diags) > 0) {
		config_free(ld.config);
		return diags->out_of_memory ? -ENOMEM : -EINVAL;
	}
	*ret_config = ld.config;
	return 0;
}

int config_load_string(const char *text, const struct config_schema *schema, const struct config_overrides *overrides,
		       struct config **ret_config, struct diag_list *diags)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	if (!in)
		return -errno;
	int r = config_load(in, schema, overrides, ret_config, diags);
	fclose(in);
	return r;
}

int config_load_path(const char *path, const struct config_schema *schema, const struct config_overrides *overrides,
		     struct config **ret_config, struct diag_list *diags)
{
	struct err err = { "" };
	char *text;
	FILE *in;
	int r = file_stream(path, &text, &in, &err);

	if (r < 0) {
		diag_add(diags, DIAG_ERROR, 0, "%s", err.text);
		return r;
	}
	r = config_load(in, schema, overrides, ret_config, diags);
	fclose(in);
	free(text);
	return r;
}
