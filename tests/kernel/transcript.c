/* See transcript.h. */
#include "transcript.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void transcript_init(struct transcript *t)
{
	*t = (struct transcript){ 0 };
}

void transcript_fini(struct transcript *t)
{
	for (size_t i = 0; i < t->count; i++) {
		free(t->lines[i].key);
		free(t->lines[i].value);
	}
	free(t->lines);
	transcript_init(t);
}

int transcript_add(struct transcript *t, const char *key, const char *value)
{
	if (t->count == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct transcript_line *lines = realloc(t->lines, cap * sizeof(*lines));
		if (!lines)
			return -ENOMEM;
		t->lines = lines;
		t->cap = cap;
	}
	char *k = strdup(key), *v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	t->lines[t->count++] = (struct transcript_line){ k, v };
	return 0;
}

const struct transcript_line *transcript_find(const struct transcript *t, const char *key)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->lines[i].key, key) == 0)
			return &t->lines[i];
	return NULL;
}

int transcript_read(FILE *in, struct transcript *t)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;

	while (r == 0 && (n = getline(&line, &cap, in)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		r = transcript_add(t, line, tab + 1);
	}
	if (r == 0 && ferror(in))
		r = -EIO;
	free(line);
	return r;
}

void transcript_write(const struct transcript *t, FILE *out)
{
	for (size_t i = 0; i < t->count; i++)
		fprintf(out, "%s\t%s\n", t->lines[i].key, t->lines[i].value);
}

char *transcript_escape(const char *text, size_t len)
{
	char *out = malloc(4 * len + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n' || c == '\t' || c == '\\') {
			*o++ = '\\';
			*o++ = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		} else if (c < 0x20 || c > 0x7e) {
			o += sprintf(o, "\\x%02x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}
