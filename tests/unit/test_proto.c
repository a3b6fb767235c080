/* The control protocol without sockets: request lines in, reply objects out, against a fake daemon. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/ctl/proto.h"
#include "tests/util/ctl_fake.h"
#include "tests/util/test_main.h"

struct fake {
	unsigned status, list, show, metrics, set, reload; /* calls */
	int set_result;					   /* what set and reload return */
	struct ctl_fake_set last;			   /* what the last set asked for; name: also the last show's */
};

static json_t *fake_status(void *ctx)
{
	struct fake *f = ctx;

	f->status++;
	return json_pack("{s:s, s:i}", "backend", "sim", "ticks", 42);
}

static json_t *fake_list(void *ctx)
{
	struct fake *f = ctx;

	f->list++;
	return json_pack("{s:[{s:s}]}", "partitions", "name", "web");
}

static json_t *fake_show(void *ctx, const char *name, struct err *err)
{
	struct fake *f = ctx;

	f->show++;
	snprintf(f->last.name, sizeof(f->last.name), "%s", name);
	if (strcmp(name, "web")) {
		err_set(err, -ENOENT, "no partition named '%s'", name);
		return NULL;
	}
	return json_pack("{s:s, s:i}", "name", "web", "mb_max", 100);
}

/* Returns NULL without saying why, as a buggy handler might. */
static json_t *fake_metrics_broken(void *ctx)
{
	struct fake *f = ctx;

	f->metrics++;
	return NULL;
}

static json_t *fake_set(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
			size_t count, struct err *err)
{
	struct fake *f = ctx;

	f->set++;
	ctl_fake_note_set(&f->last, peer, name, settings, count);
	if (f->set_result < 0) {
		err_set(err, f->set_result, "mb_max: 150 is out of range 1..100");
		return NULL;
	}
	return ctl_fake_set_result(name, settings, count);
}

static int fake_reload(void *ctx, struct err *err)
{
	struct fake *f = ctx;

	f->reload++;
	return f->set_result < 0 ? err_set(err, f->set_result, "etc/mpamd.ini:3: unknown key 'frob'") : 0;
}

static struct fake fake;
static const struct ctl_handler handler = CTL_FAKE_HANDLER(&fake, fake_metrics_broken, NULL);
static const struct ctl_peer root = { .uid = 0, .gid = 0, .pid = 1, .may_mutate = true, .group = "mpamd" };
static const struct ctl_peer user = { .uid = 1000, .gid = 1000, .pid = 2, .may_mutate = false, .group = "mpamd" };

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	return 0;
}

/* Sends `line` as `peer` and checks what every reply must hold. */
static json_t *ask(const struct ctl_peer *peer, const char *line)
{
	json_t *reply = NULL;

	assert_int_equal(ctl_request_handle(&handler, peer, line, strlen(line), &reply), 0);
	assert_non_null(reply);
	assert_int_equal(json_integer_value(json_object_get(reply, "version")), CTL_PROTOCOL_VERSION);
	assert_true(json_is_boolean(json_object_get(reply, "ok")));
	return reply;
}

static void assert_error(const struct ctl_peer *peer, const char *line, const char *expected)
{
	json_t *reply = ask(peer, line);
	const char *text = json_string_value(json_object_get(reply, "error"));

	assert_true(json_is_false(json_object_get(reply, "ok")));
	assert_null(json_object_get(reply, "result"));
	assert_non_null(text);
	if (!strstr(text, expected))
		fail_msg("request %s: error '%s' lacks '%s'", line, text, expected);
	json_decref(reply);
}

static json_t *assert_ok(const struct ctl_peer *peer, const char *line)
{
	json_t *reply = ask(peer, line);

	if (!json_is_true(json_object_get(reply, "ok")))
		fail_msg("request %s: %s", line, json_string_value(json_object_get(reply, "error")));
	json_t *result = json_incref(json_object_get(reply, "result"));
	assert_non_null(result);
	json_decref(reply);
	return result;
}

static void test_command_table(void **state)
{
	static const struct {
		const char *name;
		enum ctl_privilege privilege;
	} expected[] = {
		{ "status", CTL_READ_ONLY },  { "list", CTL_READ_ONLY }, { "show", CTL_READ_ONLY },
		{ "metrics", CTL_READ_ONLY }, { "set", CTL_MUTATING },	 { "reload", CTL_MUTATING },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct ctl_command_info *c = ctl_command_find(expected[i].name);
		assert_non_null(c);
		assert_string_equal(c->name, expected[i].name);
		assert_int_equal(c->privilege, expected[i].privilege);
	}
	assert_null(ctl_command_find("frob"));
	assert_null(ctl_command_find(""));
}

static void test_read_only_commands_reach_the_handler(void **state)
{
	(void)state;
	json_t *r = assert_ok(&user, "{\"cmd\": \"status\"}\n");
	assert_string_equal(json_string_value(json_object_get(r, "backend")), "sim");
	json_decref(r);
	r = assert_ok(&user, "{\"cmd\": \"list\"}");
	assert_int_equal(json_array_size(json_object_get(r, "partitions")), 1);
	json_decref(r);
	r = assert_ok(&user, "{\"cmd\": \"show\", \"name\": \"web\", \"version\": 1}\r\n");
	assert_int_equal(json_integer_value(json_object_get(r, "mb_max")), 100);
	json_decref(r);
	assert_int_equal(fake.status, 1);
	assert_int_equal(fake.list, 1);
	assert_int_equal(fake.show, 1);
	assert_string_equal(fake.last.name, "web");
}

static void test_unknown_command_and_bad_json(void **state)
{
	(void)state;
	assert_error(&root, "{\"cmd\": \"frob\"}\n", "unknown command 'frob'");
	assert_error(&root, "{\"cmd\": stat", "request is not valid JSON: ");
	assert_error(&root, "{\"cmd\" 1}", "request is not valid JSON: ':' expected near '1' at line 1 column 8");
	assert_error(&root, "{\"cmd\":, }", "unexpected token near ',' at line 1 column 8");
	assert_error(&root, "", "request is not valid JSON");
	assert_error(&root, "\n", "request is not valid JSON");
	assert_error(&root, "{\"cmd\": \"status\"} {}", "request is not valid JSON");
	assert_error(&root, "[\"status\"]", "request must be a JSON object");
	assert_error(&root, "{\"command\": \"status\"}", "request needs a \"cmd\" string");
	assert_error(&root, "{\"cmd\": 3}", "request needs a \"cmd\" string");
	assert_error(&root, "{\"cmd\": \"status\", \"cmd\": \"list\"}", "duplicate");
	assert_int_equal(fake.status + fake.list, 0);
}

static void test_protocol_version_in_request(void **state)
{
	(void)state;
	assert_error(&root, "{\"cmd\": \"status\", \"version\": 2}",
		     "protocol version 2 is not supported: this mpamd speaks version 1");
	assert_error(&root, "{\"cmd\": \"status\", \"version\": \"1\"}", "\"version\" must be a number");
	json_decref(assert_ok(&root, "{\"cmd\": \"status\", \"version\": 1}"));
}

/* A request of exactly CTL_MAX_REQUEST bytes, newline included, padded with JSON whitespace. */
static char *request_of_size(size_t size)
{
	const char *body = "{\"cmd\": \"status\"}";
	char *line = malloc(size + 1);

	assert_non_null(line);
	memset(line, ' ', size);
	memcpy(line, body, strlen(body));
	line[size - 1] = '\n';
	line[size] = '\0';
	return line;
}

static void test_request_size_limit(void **state)
{
	char *line = request_of_size(CTL_MAX_REQUEST);

	(void)state;
	json_decref(assert_ok(&root, line));
	free(line);
	line = request_of_size(CTL_MAX_REQUEST + 1);
	assert_error(&root, line, "request larger than 65536 bytes");
	free(line);
	assert_int_equal(fake.status, 1);
}

static void test_show_arguments(void **state)
{
	(void)state;
	assert_error(&user, "{\"cmd\": \"show\"}", "'show' needs a \"name\" string");
	assert_error(&user, "{\"cmd\": \"show\", \"name\": 5}", "'show' needs a \"name\" string");
	assert_error(&user, "{\"cmd\": \"show\", \"name\": \"\"}", "'show' needs a \"name\" string");
	assert_error(&user, "{\"cmd\": \"show\", \"name\": \"web\", \"nmae\": 1}", "'show' does not take \"nmae\"");
	assert_error(&user, "{\"cmd\": \"status\", \"name\": \"web\"}", "'status' does not take \"name\"");
	assert_error(&user, "{\"cmd\": \"show\", \"name\": \"web\", \"settings\": []}",
		     "'show' does not take \"settings\"");
	assert_int_equal(fake.show, 0);
	/* The handler's own refusal travels back word for word. */
	assert_error(&user, "{\"cmd\": \"show\", \"name\": \"db\"}", "no partition named 'db'");
	assert_int_equal(fake.show, 1);
}

static void test_set_passes_settings_in_order(void **state)
{
	(void)state;
	json_t *r = assert_ok(&root, "{\"cmd\": \"set\", \"name\": \"web\", "
				     "\"settings\": [\"mb_max=50\", \"mb_min=10\", \"class=best-effort\", \"x=a=b\"]}");
	assert_int_equal(fake.set, 1);
	assert_string_equal(fake.last.name, "web");
	assert_int_equal(fake.last.count, 4);
	assert_string_equal(fake.last.settings[0], "mb_max=50");
	assert_string_equal(fake.last.settings[1], "mb_min=10");
	assert_string_equal(fake.last.settings[2], "class=best-effort");
	assert_string_equal(fake.last.settings[3], "x=a=b");
	/* The reply echoes what was applied. */
	assert_string_equal(json_string_value(json_object_get(r, "name")), "web");
	assert_int_equal(json_array_size(json_object_get(r, "settings")), 4);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "settings"), 2)), "class=best-effort");
	json_decref(r);
}

static void test_set_arguments(void **state)
{
	(void)state;
	assert_error(&root, "{\"cmd\": \"set\", \"settings\": [\"mb_max=5\"]}", "'set' needs a \"name\" string");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\"}",
		     "'set' needs a \"settings\" array of \"key=value\" strings");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": []}",
		     "'set' needs a \"settings\" array");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": \"mb_max=5\"}",
		     "'set' needs a \"settings\" array");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"mb_max=5\", 7]}",
		     "'set' setting 2 is not a \"key=value\" string");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"mb_max\"]}",
		     "'set' setting 1 is not a \"key=value\" string");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"=5\"]}",
		     "'set' setting 1 is not a \"key=value\" string");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"a=1\"], \"force\": true}",
		     "'set' does not take \"force\"");
	assert_error(&root, "{\"cmd\": \"reload\", \"settings\": [\"a=1\"]}", "'reload' does not take \"settings\"");
	assert_int_equal(fake.set + fake.reload, 0);
	fake.set_result = -EINVAL;
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"mb_max=150\"]}",
		     "mb_max: 150 is out of range 1..100");
	assert_error(&root, "{\"cmd\": \"reload\"}", "etc/mpamd.ini:3: unknown key 'frob'");
	assert_int_equal(fake.set, 1);
	assert_int_equal(fake.reload, 1);
}

static json_t *fake_set_persist(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
				size_t count, struct err *err)
{
	struct fake *f = ctx;

	f->reload += 100; /* told apart from a plain set, which counts in f->set */
	return fake_set(ctx, peer, name, settings, count, err);
}

/* "persist": a boolean of set only, absent as false (an older client); a handler that cannot persist
 * says so; mpamctl's request reaches the handler that persists. */
static void test_set_persist(void **state)
{
	struct ctl_handler persisting = handler;
	const char *settings[] = { "mb_max=50" };
	struct err err = { { 0 } };
	json_t *reply = NULL;
	char *line;

	(void)state;
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"a=1\"], \"persist\": \"yes\"}",
		     "'set' \"persist\" must be true or false");
	assert_error(&root, "{\"cmd\": \"show\", \"name\": \"web\", \"persist\": true}",
		     "'show' does not take \"persist\"");
	assert_error(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"a=1\"], \"persist\": true}",
		     "'set' with \"persist\" is not supported by this mpamd");
	assert_int_equal(fake.set, 0);
	json_decref(
		assert_ok(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"a=1\"], \"persist\": false}"));
	assert_int_equal(fake.set, 1);
	assert_int_equal(fake.reload, 0);

	assert_int_equal(ctl_request_build_set("web", settings, 1, true, &line, &err), 0);
	assert_string_equal(line, "{\"version\":1,\"cmd\":\"set\",\"name\":\"web\","
				  "\"settings\":[\"mb_max=50\"],\"persist\":true}\n");
	persisting.set_persist = fake_set_persist;
	assert_int_equal(ctl_request_handle(&persisting, &root, line, strlen(line), &reply), 0);
	assert_true(json_is_true(json_object_get(reply, "ok")));
	assert_int_equal(fake.reload, 100);
	json_decref(reply);
	free(line);
	assert_int_equal(ctl_request_build_set("web", settings, 1, false, &line, &err), 0);
	assert_null(strstr(line, "persist"));
	free(line);
}

static void test_privilege(void **state)
{
	struct ctl_peer nameless = user;

	(void)state;
	assert_error(&user, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"mb_max=5\"]}",
		     "'set' is not allowed: peer uid 1000 is neither root nor in group mpamd");
	assert_error(&user, "{\"cmd\": \"reload\"}", "'reload' is not allowed: peer uid 1000");
	/* Refused before its arguments are even looked at. */
	assert_error(&user, "{\"cmd\": \"set\"}", "'set' is not allowed");
	nameless.group = NULL;
	assert_error(&nameless, "{\"cmd\": \"reload\"}", "peer uid 1000 is not root (no group may change mpamd)");
	assert_int_equal(fake.set + fake.reload, 0);

	struct ctl_peer member = user;
	member.may_mutate = true;
	json_t *r = assert_ok(&member, "{\"cmd\": \"reload\"}");
	assert_true(json_is_true(json_object_get(r, "reloaded")));
	json_decref(r);
	json_decref(assert_ok(&root, "{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"mb_max=5\"]}"));
	assert_int_equal(fake.set, 1);
	assert_int_equal(fake.reload, 1);
	/* Read-only commands do not care. */
	json_decref(assert_ok(&user, "{\"cmd\": \"status\"}"));
}

static void test_handler_gaps(void **state)
{
	struct ctl_handler partial = { .ctx = &fake, .status = fake_status };
	json_t *reply = NULL;

	(void)state;
	/* A handler that returns nothing and says nothing still gets an error naming the command. */
	assert_error(&root, "{\"cmd\": \"metrics\"}", "'metrics' failed");
	assert_int_equal(fake.metrics, 1);
	const char *line = "{\"cmd\": \"reload\"}";
	assert_int_equal(ctl_request_handle(&partial, &root, line, strlen(line), &reply), 0);
	assert_string_equal(json_string_value(json_object_get(reply, "error")),
			    "'reload' is not supported by this mpamd");
	json_decref(reply);
}

static void test_reply_encoding(void **state)
{
	json_t *reply = ctl_reply_error("two\nlines");
	char *line;
	size_t len;

	(void)state;
	assert_int_equal(ctl_reply_encode(reply, &line, &len), 0);
	assert_int_equal(line[len - 1], '\n');
	assert_null(memchr(line, '\n', len - 1));
	assert_memory_equal(line, "{\"version\":1,\"ok\":false,\"error\":\"two\\nlines\"}\n", len);
	free(line);
	json_decref(reply);

	reply = ctl_reply_ok(json_pack("{s:i}", "ticks", 3));
	assert_int_equal(ctl_reply_encode(reply, &line, &len), 0);
	assert_memory_equal(line, "{\"version\":1,\"ok\":true,\"result\":{\"ticks\":3}}\n", len);
	free(line);
	json_decref(reply);
}

/* A request of `count` copies of "é" (two bytes each) in `field`, after `lead` ASCII bytes, so that a
 * message cut at a byte limit falls inside a character. */
static char *request_with_utf8(const char *prefix, size_t lead, size_t count, const char *suffix)
{
	size_t len = strlen(prefix) + lead + 2 * count + strlen(suffix);
	char *line = malloc(len + 1), *p = line;

	assert_non_null(line);
	p += sprintf(p, "%s", prefix);
	memset(p, 'x', lead);
	p += lead;
	for (size_t i = 0; i < count; i++)
		p += sprintf(p, "\xc3\xa9");
	sprintf(p, "%s", suffix);
	return line;
}

/* Long non-ASCII names and commands are answered with an error, whatever byte the message is cut at;
 * a request that is not UTF-8 is answered too. */
static void test_non_ascii_requests_get_error_replies(void **state)
{
	(void)state;
	for (size_t lead = 0; lead < 2; lead++) {
		char *show = request_with_utf8("{\"cmd\": \"show\", \"name\": \"", lead, 5000, "\"}");
		assert_error(&user, show, "no partition named '");
		free(show);
		char *cmd = request_with_utf8("{\"cmd\": \"", lead, 5000, "\"}");
		assert_error(&user, cmd, "unknown command '");
		free(cmd);
		char *set = request_with_utf8("{\"cmd\": \"set\", \"name\": \"web\", \"settings\": [\"mb_max=", lead,
					      5000, "\"]}");
		fake.set_result = 0;
		json_decref(assert_ok(&root, set)); /* echoed back whole: it is valid UTF-8 */
		free(set);
	}
	assert_int_equal(fake.show, 2);
	assert_error(&user, "{\"cmd\": \"show\", \"name\": \"\xff\xfe\"}", "request is not valid JSON");
	assert_error(&user, "{\"cmd\": \"\xc3\"}", "request is not valid JSON");
	/* An error text that is not UTF-8 itself (a handler quoting bytes) still makes a reply. */
	json_t *reply = ctl_reply_error("bad byte \xff in %s", "caf\xc3");
	assert_non_null(reply);
	assert_string_equal(json_string_value(json_object_get(reply, "error")), "bad byte ? in caf?");
	json_decref(reply);
}

/* The one-pass encoder gives exactly what jansson's own compact dump gives, for a reply far larger
 * than its first buffer. */
static void test_reply_encoding_large(void **state)
{
	json_t *parts = json_array();
	char *line, *expected;
	size_t len;

	(void)state;
	for (int i = 0; i < 2000; i++)
		json_array_append_new(parts, json_pack("{s:s, s:f, s:i}", "name", "caf\xc3\xa9", "mbps", i * 1.25,
						       "mb_max", i % 100));
	json_t *reply = ctl_reply_ok(json_pack("{s:o}", "partitions", parts));
	assert_int_equal(ctl_reply_encode(reply, &line, &len), 0);
	expected = json_dumps(reply, JSON_COMPACT);
	assert_int_equal(len, strlen(expected) + 1);
	assert_memory_equal(line, expected, len - 1);
	assert_int_equal(line[len - 1], '\n');
	assert_int_equal(line[len], '\0');
	free(expected);
	free(line);
	json_decref(reply);
}

static void test_request_build(void **state)
{
	const char *settings[] = { "mb_max=50", "class=best-effort" };
	struct err err = { { 0 } };
	char *line;

	(void)state;
	assert_int_equal(ctl_request_build("status", NULL, NULL, 0, &line, &err), 0);
	assert_string_equal(line, "{\"version\":1,\"cmd\":\"status\"}\n");
	free(line);
	assert_int_equal(ctl_request_build("show", "web", NULL, 0, &line, &err), 0);
	assert_string_equal(line, "{\"version\":1,\"cmd\":\"show\",\"name\":\"web\"}\n");
	free(line);
	assert_int_equal(ctl_request_build("set", "web", settings, 2, &line, &err), 0);
	assert_string_equal(line, "{\"version\":1,\"cmd\":\"set\",\"name\":\"web\","
				  "\"settings\":[\"mb_max=50\",\"class=best-effort\"]}\n");
	/* What the client builds, the server takes, settings in order. */
	json_decref(assert_ok(&root, line));
	assert_int_equal(fake.last.count, 2);
	assert_string_equal(fake.last.settings[1], "class=best-effort");
	free(line);

	assert_int_equal(ctl_request_build("frob", NULL, NULL, 0, &line, &err), -EINVAL);
	assert_string_equal(err.text, "unknown command 'frob'");
	assert_int_equal(ctl_request_build("show", NULL, NULL, 0, &line, &err), -EINVAL);
	assert_string_equal(err.text, "'show' needs a partition name");
	assert_int_equal(ctl_request_build("status", "web", NULL, 0, &line, &err), -EINVAL);
	assert_string_equal(err.text, "'status' takes no partition name");
	assert_int_equal(ctl_request_build("set", "web", NULL, 0, &line, &err), -EINVAL);
	assert_string_equal(err.text, "'set' needs at least one key=value");
	assert_int_equal(ctl_request_build("show", "web", settings, 1, &line, &err), -EINVAL);
	assert_string_equal(err.text, "'show' takes no settings");
	const char *bad[] = { "mb_max=5", "mb_min" };
	assert_int_equal(ctl_request_build("set", "web", bad, 2, &line, &err), -EINVAL);
	assert_string_equal(err.text, "'mb_min' is not key=value");
	assert_int_equal(ctl_request_build("show", "", NULL, 0, &line, &err), -EINVAL);
}

static void test_request_build_too_large(void **state)
{
	char *big = malloc(CTL_MAX_REQUEST);
	const char *settings[] = { big };
	struct err err = { { 0 } };
	char *line;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', CTL_MAX_REQUEST - 1);
	big[0] = 'k';
	big[1] = '=';
	big[CTL_MAX_REQUEST - 1] = '\0';
	assert_int_equal(ctl_request_build("set", "web", settings, 1, &line, &err), -E2BIG);
	assert_string_equal(err.text, "request larger than 65536 bytes");
	free(big);
}

static int check(const char *line, json_t **result, struct err *err)
{
	*result = NULL;
	return ctl_reply_check(line, strlen(line), result, err);
}

static void test_reply_check(void **state)
{
	struct err err = { { 0 } };
	json_t *result;

	(void)state;
	assert_int_equal(check("{\"version\":1,\"ok\":true,\"result\":{\"ticks\":3}}\n", &result, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(result, "ticks")), 3);
	json_decref(result);

	assert_int_equal(check("{\"version\":1,\"ok\":false,\"error\":\"no partition named 'db'\"}\n", &result, &err),
			 -EREMOTEIO);
	assert_string_equal(err.text, "no partition named 'db'");
	assert_null(result);

	assert_int_equal(check("{\"version\":2,\"ok\":true,\"result\":{}}\n", &result, &err), -EPROTO);
	assert_string_equal(err.text, "mpamd speaks protocol version 2, this client speaks version 1");
	/* A version mismatch wins over whatever else the reply says. */
	assert_int_equal(check("{\"version\":0,\"ok\":false,\"error\":\"x\"}\n", &result, &err), -EPROTO);
	assert_int_equal(check("{\"ok\":true,\"result\":{}}\n", &result, &err), -EPROTO);
	assert_string_equal(err.text, "reply has no protocol version");
	assert_int_equal(check("{\"version\":1,\"result\":{}}\n", &result, &err), -EPROTO);
	assert_string_equal(err.text, "reply has no \"ok\" member");
	assert_int_equal(check("{\"version\":1,\"ok\":true}\n", &result, &err), -EPROTO);
	assert_int_equal(check("HTTP/1.1 400 Bad Request\r\n", &result, &err), -EPROTO);
	assert_non_null(strstr(err.text, "reply is not valid JSON"));
	assert_int_equal(check("[1]\n", &result, &err), -EPROTO);
	assert_null(result);
}

/* Every reply the server can make round-trips through the client's check. */
static void test_server_replies_pass_client_check(void **state)
{
	const char *requests[] = { "{\"cmd\":\"status\"}", "{\"cmd\":\"frob\"}", "nonsense" };

	(void)state;
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		json_t *reply = ask(&root, requests[i]), *result = NULL;
		struct err err = { { 0 } };
		char *line;
		size_t len;
		assert_int_equal(ctl_reply_encode(reply, &line, &len), 0);
		int r = ctl_reply_check(line, len, &result, &err);
		assert_int_equal(r, i == 0 ? 0 : -EREMOTEIO);
		json_decref(result);
		free(line);
		json_decref(reply);
	}
}

TEST_MAIN({
	cmocka_unit_test_setup(test_command_table, setup),
	cmocka_unit_test_setup(test_read_only_commands_reach_the_handler, setup),
	cmocka_unit_test_setup(test_unknown_command_and_bad_json, setup),
	cmocka_unit_test_setup(test_protocol_version_in_request, setup),
	cmocka_unit_test_setup(test_request_size_limit, setup),
	cmocka_unit_test_setup(test_show_arguments, setup),
	cmocka_unit_test_setup(test_set_passes_settings_in_order, setup),
	cmocka_unit_test_setup(test_set_arguments, setup),
	cmocka_unit_test_setup(test_set_persist, setup),
	cmocka_unit_test_setup(test_privilege, setup),
	cmocka_unit_test_setup(test_handler_gaps, setup),
	cmocka_unit_test_setup(test_reply_encoding, setup),
	cmocka_unit_test_setup(test_reply_encoding_large, setup),
	cmocka_unit_test_setup(test_non_ascii_requests_get_error_replies, setup),
	cmocka_unit_test_setup(test_request_build, setup),
	cmocka_unit_test_setup(test_request_build_too_large, setup),
	cmocka_unit_test_setup(test_reply_check, setup),
	cmocka_unit_test_setup(test_server_replies_pass_client_check, setup),
})
