/* mpamctl's failure reports; see cli_error.h. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli_error.h"

/* jansson refuses a string that is not UTF-8 (a name as typed): the bytes it refuses become '?'. */
static json_t *json_text(char *text)
{
	json_t *message = json_string(text);

	if (!message) {
		for (char *c = text; *c; c++)
			*c = (unsigned char)*c >= 0x80 ? '?' : *c;
		message = json_string(text);
	}
	return message;
}

void cli_print_messages(const json_t *messages)
{
	for (size_t i = 0; i < json_array_size(messages); i++) {
		const char *text = json_string_value(json_array_get(messages, i));
		if (text)
			fprintf(stderr, "%s\n", text);
	}
}

static int report(bool json, const char *cmd, int code, json_t *messages, const char *fmt, va_list ap)
{
	char text[1024];

	vsnprintf(text, sizeof(text), fmt, ap);
	cli_print_messages(messages);
	fprintf(stderr, "mpamctl%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", text);
	if (json) {
		json_t *obj = json_pack("{s:b,s:o,s:i}", "ok", 0, "error", json_text(text), "exit", code);
		if (obj && json_is_array(messages))
			json_object_set(obj, "messages", messages);
		if (obj) {
			json_dumpf(obj, stdout, JSON_INDENT(2));
			putchar('\n');
			fflush(stdout);
		}
		json_decref(obj);
	}
	return code;
}

int cli_error(bool json, const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = report(json, cmd, code, NULL, fmt, ap);
	va_end(ap);
	return r;
}

int cli_error_messages(bool json, const char *cmd, int code, json_t *messages, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = report(json, cmd, code, messages, fmt, ap);
	va_end(ap);
	return r;
}
