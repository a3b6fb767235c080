/* See transcript_compare.h. */
#include "transcript_compare.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORD 256

static const char *const ops[] = { "read", "sorted", "ls", "write", "status", "mkdir", "rmdir", "*" };

void known_list_fini(struct known_list *k)
{
	for (size_t i = 0; i < k->count; i++) {
		free(k->items[i].scope);
		free(k->items[i].op);
		free(k->items[i].path);
		free(k->items[i].reason);
	}
	free(k->items);
	*k = (struct known_list){ 0 };
}

static bool next_word(const char **s, char *buf, size_t len)
{
	size_t n = 0;

	while (isspace((unsigned char)**s))
		(*s)++;
	while (**s && !isspace((unsigned char)**s) && n + 1 < len)
		buf[n++] = *(*s)++;
	buf[n] = '\0';
	return n > 0 && !(**s && !isspace((unsigned char)**s));
}

static bool known_op(const char *op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

static int add_entry(struct known_list *k, const char *scope, const char *op, const char *path, const char *reason,
		     unsigned line)
{
	struct known_difference *items = realloc(k->items, (k->count + 1) * sizeof(*items));

	if (!items)
		return -ENOMEM;
	k->items = items;
	struct known_difference *d = &items[k->count];
	*d = (struct known_difference){ strdup(scope), strdup(op), strdup(path), strdup(reason), line, 0 };
	k->count++;
	return d->scope && d->op && d->path && d->reason ? 0 : -ENOMEM;
}

/* One entry line into k: 0, 1 for a blank or comment line, -EINVAL, -ENOMEM. */
static int parse_entry(const char *line, unsigned lineno, struct known_list *k)
{
	char scope[MAX_WORD], op[MAX_WORD], path[MAX_WORD];
	const char *s = line;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0' || *s == '#')
		return 1;
	if (!next_word(&s, scope, sizeof(scope)) || !next_word(&s, op, sizeof(op)) ||
	    !next_word(&s, path, sizeof(path)) || !known_op(op))
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return -EINVAL; /* every entry says why */
	return add_entry(k, scope, op, path, s, lineno);
}

int known_list_read(FILE *in, const char *name, struct known_list *ret, FILE *errors)
{
	struct known_list k = { 0 };
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t n;
	int r = 0;

	while (r >= 0 && (n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		r = parse_entry(line, lineno, &k);
		if (r == -EINVAL)
			fprintf(errors,
				"%s:%u: expected SCOPE OP PATH REASON (OP one of read sorted ls write status mkdir "
				"rmdir *)\n",
				name, lineno);
	}
	free(line);
	if (r < 0) {
		known_list_fini(&k);
		return r;
	}
	*ret = k;
	return 0;
}

/* The OP of a key "STEP OP PATH[ ARG]", and what follows it ("PATH[ ARG]"). */
static const char *split_key(const char *key, char *op)
{
	char step[MAX_WORD];
	const char *s = key;

	next_word(&s, step, MAX_WORD);
	next_word(&s, op, MAX_WORD);
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static struct known_difference *excuse(struct known_list *known, const char *scope, const char *key)
{
	char op[MAX_WORD];
	const char *path = split_key(key, op);

	for (size_t i = 0; i < known->count; i++) {
		struct known_difference *d = &known->items[i];
		if (fnmatch(d->scope, scope, 0) == 0 && (strcmp(d->op, "*") == 0 || strcmp(d->op, op) == 0) &&
		    fnmatch(d->path, path, 0) == 0)
			return d;
	}
	return NULL;
}

static void judge(const char *key, const char *kernel, const char *emu, struct known_list *known, const char *scope,
		  FILE *out, struct compare_counts *c)
{
	if (kernel && emu && strcmp(kernel, emu) == 0) {
		c->same++;
		return;
	}
	struct known_difference *d = excuse(known, scope, key);
	if (d) {
		d->seen++;
		c->known++;
		return;
	}
	c->unexpected++;
	fprintf(out, "DIFF %s\n  kernel:   %s\n  emulator: %s\n", key, kernel ? kernel : "(absent)",
		emu ? emu : "(absent)");
}

void transcript_compare(const struct transcript *kernel, const struct transcript *emu, struct known_list *known,
			const char *scope, FILE *out, struct compare_counts *ret)
{
	struct compare_counts c = { 0 };

	for (size_t i = 0; i < known->count; i++)
		known->items[i].seen = 0;
	for (size_t i = 0; i < kernel->count; i++) {
		const struct transcript_line *k = &kernel->lines[i], *e = transcript_find(emu, k->key);
		judge(k->key, k->value, e ? e->value : NULL, known, scope, out, &c);
	}
	for (size_t i = 0; i < emu->count; i++)
		if (!transcript_find(kernel, emu->lines[i].key))
			judge(emu->lines[i].key, NULL, emu->lines[i].value, known, scope, out, &c);
	for (size_t i = 0; i < known->count; i++) {
		const struct known_difference *d = &known->items[i];
		if (d->seen)
			fprintf(out, "known (%u) %s %s: %s\n", d->seen, d->op, d->path, d->reason);
		else if (fnmatch(d->scope, scope, 0) == 0 && ++c.stale)
			fprintf(out, "note: known difference at line %u (%s %s) did not occur for %s\n", d->line, d->op,
				d->path, scope);
	}
	*ret = c;
}
