/* The man pages render cleanly: groff with every warning on (-ww) says nothing about any of them,
 * mandoc's lint (where mandoc is installed) finds nothing at warning level, and no alternating-font
 * macro (.BR, .IR...) runs the prose after it into one word: those macros join their arguments
 * without spaces, so ".BR foo . A guarantee is" reads "foo.Aguaranteeis". mpamd(8) names every
 * column of the record file. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/report/record_columns.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static const char *const pages[] = { "docs/mpamd.8", "docs/mpamctl.8", "docs/mpamd.ini.5" };

#define MAX_ARGS 32

/* The arguments of a macro line after the macro's name, as roff splits them: at spaces, a quoted
 * argument whole ("" inside is a quote), a backslash escape kept with its character. `quoted[i]`
 * says which were quoted. Returns how many. */
static size_t macro_args(const char *line, char args[][256], bool *quoted)
{
	size_t n = 0;
	const char *p = line + strcspn(line, " ");

	while (*p && n < MAX_ARGS) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t len = 0;
		quoted[n] = *p == '"';
		p += quoted[n];
		while (*p && len + 2 < 256) {
			if (quoted[n] && *p == '"' && p[1] == '"') {
				args[n][len++] = '"';
				p += 2;
			} else if (quoted[n] ? *p == '"' : *p == ' ') {
				p += quoted[n];
				break;
			} else if (*p == '\\' && p[1]) {
				args[n][len++] = *p++;
				args[n][len++] = *p++;
			} else {
				args[n][len++] = *p++;
			}
		}
		args[n++][len] = '\0';
	}
	return n;
}

static bool is_lowercase_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s))
			return false;
	return true;
}

/* Whether an alternating-font macro line has two unquoted plain words in a row: prose that the
 * macro glues together, never markup (".IB FILE . YYYYMMDD T" glues on purpose, in capitals). */
static bool glues_prose(const char *line)
{
	static const char *const macros[] = { ".BR ", ".RB ", ".IR ", ".RI ", ".BI ", ".IB " };
	char args[MAX_ARGS][256];
	bool quoted[MAX_ARGS];
	bool alternating = false;

	for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
		alternating |= !strncmp(line, macros[i], 4);
	if (!alternating)
		return false;
	size_t n = macro_args(line, args, quoted);
	for (size_t i = 1; i < n; i++)
		if (!quoted[i - 1] && !quoted[i] && is_lowercase_word(args[i - 1]) && is_lowercase_word(args[i]))
			return true;
	return false;
}

static void test_glue_check_catches_prose(void **state)
{
	(void)state;
	/* the line mpamd.ini(5) had */
	assert_true(glues_prose(".BR \"mpamctl check-config \\-\\-host\" . A guarantee is programmed as a hardware"));
	assert_true(glues_prose(".IR FILE and then some words"));
	/* markup that glues on purpose */
	assert_false(glues_prose(".BR mpamd (8),"));
	assert_false(glues_prose(".IB FILE . YYYYMMDD T HHMMSS Z"));
	assert_false(glues_prose(".RB ( ok \" or \" refused ),"));
	assert_false(glues_prose(".BI r HEX"));
	assert_false(glues_prose(".B not an alternating macro at all"));
}

static void test_no_prose_glued(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char path[256];
		snprintf(path, sizeof(path), "%s/%s", MPAMD_SOURCE_DIR, pages[i]);
		char *text = read_text_file(path);
		assert_non_null(text);
		unsigned line_no = 1;
		for (char *line = text; *line; line_no++) {
			char *end = strchr(line, '\n');
			if (end)
				*end = '\0';
			if (glues_prose(line))
				fail_msg("%s:%u: the macro glues the words after it together: %s", pages[i], line_no,
					 line);
			line = end ? end + 1 : line + strlen(line);
		}
		free(text);
	}
}

/* groff with all warnings, at the width man uses on an 80-column terminal: any word on stderr fails. */
static void test_groff_warns_about_nothing(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char path[256];
		struct run_result r;
		snprintf(path, sizeof(path), "%s/%s", MPAMD_SOURCE_DIR, pages[i]);
		char *argv[] = { "/usr/bin/groff", "-man", "-Tutf8", "-ww", "-z", "-rLL=78n", path, NULL };
		assert_int_equal(run_command(argv, &r), 0);
		if (r.exit_code != 0 || r.err[0])
			fail_msg("groff on %s: exit %d\n%s", pages[i], r.exit_code, r.err);
		run_result_fini(&r);
	}
}

static void test_mandoc_lint(void **state)
{
	(void)state;
	if (access("/usr/bin/mandoc", X_OK) != 0)
		skip(); /* scripts/install-deps installs it */
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char path[256];
		struct run_result r;
		snprintf(path, sizeof(path), "%s/%s", MPAMD_SOURCE_DIR, pages[i]);
		char *argv[] = { "/usr/bin/mandoc", "-T", "lint", "-W", "warning", path, NULL };
		assert_int_equal(run_command(argv, &r), 0);
		if (r.exit_code != 0 || r.out[0] || r.err[0])
			fail_msg("mandoc -T lint on %s: exit %d\n%s%s", pages[i], r.exit_code, r.out, r.err);
		run_result_fini(&r);
	}
}

/* Whether the roff line `line` sets `word` in bold: an argument of .B, .BR or .RB, or one of the
 * comma-separated names of such an argument (the record's header line). */
static bool bolds(const char *line, const char *word)
{
	char args[MAX_ARGS][256];
	bool quoted[MAX_ARGS];
	char *rest;

	if (strncmp(line, ".B ", 3) && strncmp(line, ".BR ", 4) && strncmp(line, ".RB ", 4))
		return false;
	size_t n = macro_args(line, args, quoted);
	for (size_t i = 0; i < n; i++)
		for (char *name = strtok_r(args[i], ",", &rest); name; name = strtok_r(NULL, ",", &rest))
			if (!strcmp(name, word))
				return true;
	return false;
}

/* Whether a line of `section` (lines of roff) sets `word` in bold. */
static bool section_bolds(const char *section, const char *word)
{
	char line[1024];

	for (const char *p = section; *p;) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (bolds(line, word))
			return true;
		p += len + (p[len] == '\n');
	}
	return false;
}

/* Every column of the record file (core/report/record_columns.c) is named in mpamd(8)'s RECORD FILE. */
static void test_every_record_column_is_documented(void **state)
{
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/docs/mpamd.8", MPAMD_SOURCE_DIR);
	char *text = read_text_file(path);
	assert_non_null(text);
	char *section = strstr(text, "\n.SH RECORD FILE\n");
	assert_non_null(section);
	char *end = strstr(section + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (int c = 0; c < RECORD_COL_COUNT; c++)
		if (!section_bolds(section, record_columns[c].name))
			fail_msg("mpamd(8)'s RECORD FILE does not name the column %s", record_columns[c].name);
	free(text);
}

TEST_MAIN({
	cmocka_unit_test(test_glue_check_catches_prose),
	cmocka_unit_test(test_no_prose_glued),
	cmocka_unit_test(test_groff_warns_about_nothing),
	cmocka_unit_test(test_mandoc_lint),
	cmocka_unit_test(test_every_record_column_is_documented),
})
