#include "core/ctl/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/utf8.h"

/* What a command takes besides "cmd" and "version". */
enum ctl_args {
	ARGS_NONE,
	ARGS_NAME,	    /* "name" */
	ARGS_NAME_SETTINGS, /* "name" and "settings" */
};

/* A request whose shape has been checked: arguments point into the parsed request. */
struct ctl_request {
	const struct ctl_peer *peer;
	const char *cmd;
	const char *name;
	const char **settings;
	size_t count;
	bool persist;	  /* set: "persist": true */
	json_t *messages; /* a refusal's findings (reload: FILE:LINE: ...), to go with its error */
};

struct ctl_command {
	struct ctl_command_info info;
	enum ctl_args args;
	/* Returns the result (a new reference) or NULL with err set. */
	json_t *(*run)(const struct ctl_handler *h, struct ctl_request *req, struct err *err);
};

static json_t *not_supported(const struct ctl_request *req, struct err *err)
{
	err_set(err, -EOPNOTSUPP, "'%s' is not supported by this mpamd", req->cmd);
	return NULL;
}

/* The handler's object, or an error that names the command when it produced none. */
static json_t *from_handler(json_t *result, const struct ctl_request *req, struct err *err)
{
	if (!result && !err->text[0])
		err_set(err, -EIO, "'%s' failed", req->cmd);
	return result;
}

static json_t *run_status(const struct ctl_handler *h, struct ctl_request *req, struct err *err)
{
	return h->status ? from_handler(h->status(h->ctx), req, err) : not_supported(req, err);
}

static json_t *run_list(const struct ctl_handler *h, struct ctl_request *req, struct err *err)
{
	return h->list ? from_handler(h->list(h->ctx), req, err) : not_supported(req, err);
}

static json_t *run_metrics(const struct ctl_handler *h, struct ctl_request *req, struct err *err)
{
	return h->metrics ? from_handler(h->metrics(h->ctx), req, err) : not_supported(req, err);
}

static json_t *run_show(const struct ctl_handler *h, struct ctl_request *req, struct err *err)
{
	return h->show ? from_handler(h->show(h->ctx, req->name, err), req, err) : not_supported(req, err);
}

/* The reply to a mutation says what was applied, so a client can log what it changed. */
static json_t *run_set(const struct ctl_handler *h, struct ctl_request *req, struct err *err)
{
	ctl_set_fn *set = req->persist ? h->set_persist : h->set;

	if (!set && req->persist) {
		err_set(err, -EOPNOTSUPP, "'set' with \"persist\" is not supported by this mpamd");
		return NULL;
	}
	if (!set)
		return not_supported(req, err);
	return from_handler(set(h->ctx, req->peer, req->name, req->settings, req->count, err), req, err);
}

static json_t *run_reload(const struct ctl_handler *h, struct ctl_request *req, struct err *err)
{
	if (h->reload_report)
		return from_handler(h->reload_report(h->ctx, &req->messages, err), req, err);
	if (!h->reload)
		return not_supported(req, err);
	if (h->reload(h->ctx, err) < 0)
		return from_handler(NULL, req, err);
	return json_pack("{s:b}", "reloaded", 1);
}

static const struct ctl_command commands[] = {
	{ { "status", CTL_READ_ONLY, true }, ARGS_NONE, run_status },
	{ { "list", CTL_READ_ONLY, true }, ARGS_NONE, run_list },
	{ { "show", CTL_READ_ONLY, false }, ARGS_NAME, run_show },
	{ { "metrics", CTL_READ_ONLY, true }, ARGS_NONE, run_metrics },
	{ { "set", CTL_MUTATING, false }, ARGS_NAME_SETTINGS, run_set },
	{ { "reload", CTL_MUTATING, false }, ARGS_NONE, run_reload },
};

static const struct ctl_command *command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].info.name, name))
			return &commands[i];
	return NULL;
}

const struct ctl_command_info *ctl_command_find(const char *name)
{
	const struct ctl_command *c = command_find(name);

	return c ? &c->info : NULL;
}

/* "key=value" with a non-empty key; the value's meaning is the config loader's business. */
static bool setting_is_well_formed(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq && eq != s;
}

static bool member_is_allowed(const char *key, enum ctl_args args)
{
	if (!strcmp(key, "cmd") || !strcmp(key, "version"))
		return true;
	if (!strcmp(key, "name"))
		return args != ARGS_NONE;
	return (!strcmp(key, "settings") || !strcmp(key, "persist")) && args == ARGS_NAME_SETTINGS;
}

static int request_check_members(json_t *obj, const struct ctl_command *c, struct err *err)
{
	const char *key;
	json_t *value;

	json_object_foreach(obj, key, value) {
		if (!member_is_allowed(key, c->args))
			return err_set(err, -EINVAL, "'%s' does not take \"%s\"", c->info.name, key);
	}
	return 0;
}

static int request_get_name(json_t *obj, const struct ctl_command *c, struct ctl_request *req, struct err *err)
{
	const char *name = json_string_value(json_object_get(obj, "name"));

	if (!name || !name[0])
		return err_set(err, -EINVAL, "'%s' needs a \"name\" string", c->info.name);
	req->name = name;
	return 0;
}

/* Fills req->settings (malloc'ed array of pointers into `obj`), in the order given. */
static int request_get_settings(json_t *obj, const struct ctl_command *c, struct ctl_request *req, struct err *err)
{
	json_t *array = json_object_get(obj, "settings");
	size_t count = json_array_size(array);

	if (!json_is_array(array) || count == 0)
		return err_set(err, -EINVAL, "'%s' needs a \"settings\" array of \"key=value\" strings", c->info.name);
	req->settings = calloc(count, sizeof(*req->settings));
	if (!req->settings)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < count; i++) {
		const char *s = json_string_value(json_array_get(array, i));
		if (!s || !setting_is_well_formed(s))
			return err_set(err, -EINVAL, "'%s' setting %zu is not a \"key=value\" string", c->info.name,
				       i + 1);
		req->settings[i] = s;
	}
	req->count = count;
	return 0;
}

/* "persist": true or false; absent is false (a request of an older mpamctl). */
static int request_get_persist(json_t *obj, const struct ctl_command *c, struct ctl_request *req, struct err *err)
{
	json_t *persist = json_object_get(obj, "persist");

	if (persist && !json_is_boolean(persist))
		return err_set(err, -EINVAL, "'%s' \"persist\" must be true or false", c->info.name);
	req->persist = json_is_true(persist);
	return 0;
}

static int request_check_version(json_t *obj, struct err *err)
{
	json_t *v = json_object_get(obj, "version");

	if (!v)
		return 0;
	if (!json_is_integer(v))
		return err_set(err, -EPROTO, "\"version\" must be a number");
	if (json_integer_value(v) != CTL_PROTOCOL_VERSION)
		return err_set(err, -EPROTO, "protocol version %lld is not supported: this mpamd speaks version %d",
			       (long long)json_integer_value(v), CTL_PROTOCOL_VERSION);
	return 0;
}

/* The command and its arguments; `obj` must outlive req. */
static int request_parse(json_t *obj, const struct ctl_command **ret_cmd, struct ctl_request *req, struct err *err)
{
	const char *cmd = json_string_value(json_object_get(obj, "cmd"));
	int r;

	if (!json_is_object(obj))
		return err_set(err, -EINVAL, "request must be a JSON object");
	if (!cmd)
		return err_set(err, -EINVAL, "request needs a \"cmd\" string");
	r = request_check_version(obj, err);
	if (r < 0)
		return r;
	const struct ctl_command *c = command_find(cmd);
	if (!c)
		return err_set(err, -ENOENT, "unknown command '%.100s'", cmd);
	req->cmd = c->info.name;
	*ret_cmd = c;
	return 0;
}

static int request_parse_args(json_t *obj, const struct ctl_command *c, struct ctl_request *req, struct err *err)
{
	int r = request_check_members(obj, c, err);

	if (r >= 0 && c->args != ARGS_NONE)
		r = request_get_name(obj, c, req, err);
	if (r >= 0 && c->args == ARGS_NAME_SETTINGS)
		r = request_get_settings(obj, c, req, err);
	if (r >= 0 && c->args == ARGS_NAME_SETTINGS)
		r = request_get_persist(obj, c, req, err);
	return r;
}

static int privilege_check(const struct ctl_command *c, const struct ctl_peer *peer, struct err *err)
{
	if (c->info.privilege == CTL_READ_ONLY || peer->may_mutate)
		return 0;
	if (peer->group)
		return err_set(err, -EPERM, "'%s' is not allowed: peer uid %u is neither root nor in group %s",
			       c->info.name, (unsigned)peer->uid, peer->group);
	return err_set(err, -EPERM, "'%s' is not allowed: peer uid %u is not root (no group may change mpamd)",
		       c->info.name, (unsigned)peer->uid);
}

/* Everything after JSON parsing: the result, or NULL with err (and *ret_messages, a refusal's
 * findings, when the command gave any). */
static json_t *request_run(const struct ctl_handler *h, const struct ctl_peer *peer, json_t *obj, json_t **ret_messages,
			   struct err *err)
{
	const struct ctl_command *c = NULL;
	struct ctl_request req = { .peer = peer };
	json_t *result = NULL;

	if (request_parse(obj, &c, &req, err) >= 0 && privilege_check(c, peer, err) >= 0 &&
	    request_parse_args(obj, c, &req, err) >= 0)
		result = c->run(h, &req, err);
	free(req.settings);
	if (result)
		json_decref(req.messages);
	else
		*ret_messages = req.messages;
	return result;
}

static json_t *reply_new(bool ok)
{
	return json_pack("{s:i, s:b}", "version", CTL_PROTOCOL_VERSION, "ok", ok);
}

json_t *ctl_reply_ok(json_t *result)
{
	json_t *reply = reply_new(true);

	if (!reply || json_object_set_new(reply, "result", result ? result : json_null()) < 0) {
		json_decref(reply);
		return NULL;
	}
	return reply;
}

json_t *ctl_reply_error(const char *fmt, ...)
{
	char text[ERR_TEXT_MAX];
	json_t *reply = reply_new(false);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* Messages echo what the peer sent and are cut at ERR_TEXT_MAX, perhaps inside a character:
	 * jansson refuses a string that is not UTF-8, and the peer would get no reply at all. */
	utf8_scrub(text);
	if (!reply || json_object_set_new(reply, "error", json_string(text)) < 0) {
		json_decref(reply);
		return NULL;
	}
	return reply;
}

/* The request's JSON, or NULL with jerr. */
static json_t *request_load(const char *line, size_t len, json_error_t *jerr)
{
	/* The line ending is framing, not JSON; tolerate CRLF from hand-typed sessions. */
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	return json_loadb(line, len, JSON_REJECT_DUPLICATES, jerr);
}

const struct ctl_command_info *ctl_request_shared(const char *line, size_t len)
{
	const struct ctl_command *c = NULL;
	struct ctl_request req = { 0 };
	struct err err = { { 0 } };
	json_error_t jerr;
	json_t *obj = len <= CTL_MAX_REQUEST ? request_load(line, len, &jerr) : NULL;
	bool shared = obj && request_parse(obj, &c, &req, &err) >= 0 && c->info.shared &&
		      request_check_members(obj, c, &err) >= 0;

	json_decref(obj);
	return shared ? &c->info : NULL;
}

int ctl_request_handle(const struct ctl_handler *handler, const struct ctl_peer *peer, const char *line, size_t len,
		       json_t **ret_reply)
{
	struct err err = { { 0 } };
	json_error_t jerr;
	json_t *reply;

	if (len > CTL_MAX_REQUEST) {
		reply = ctl_reply_error("request larger than %d bytes", CTL_MAX_REQUEST);
	} else {
		json_t *obj = request_load(line, len, &jerr);
		if (!obj) {
			reply = ctl_reply_error("request is not valid JSON: %s at line %d column %d", jerr.text,
						jerr.line, jerr.column);
		} else {
			json_t *messages = NULL;
			json_t *result = request_run(handler, peer, obj, &messages, &err);
			reply = result ? ctl_reply_ok(result) : ctl_reply_error("%s", err.text);
			if (reply && messages)
				json_object_set(reply, "messages", messages);
			json_decref(messages);
			json_decref(obj);
		}
	}
	if (!reply)
		return -ENOMEM;
	*ret_reply = reply;
	return 0;
}

static int encode_append(const char *chunk, size_t size, void *data)
{
	struct json_text *out = data;

	json_text_raw(out, chunk, size);
	return out->failed ? -1 : 0;
}

int ctl_reply_encode_to(const json_t *reply, struct json_text *out)
{
	/* Compact output escapes control characters, so the encoded reply holds no newline but the last.
	 * One pass into a growing buffer: json_dumpb would need a second, whole pass to size it, and
	 * encoding is most of what a large reply costs. */
	if (json_dump_callback(reply, encode_append, out, JSON_COMPACT) < 0)
		return -ENOMEM;
	json_text_raw(out, "\n", 1);
	return out->failed ? -ENOMEM : 0;
}

int ctl_reply_encode(const json_t *reply, char **ret_line, size_t *ret_len)
{
	struct json_text out = { 0 };

	if (ctl_reply_encode_to(reply, &out) < 0) {
		json_text_fini(&out);
		return -ENOMEM;
	}
	*ret_line = out.data;
	*ret_len = out.len;
	return 0;
}

/* The handler's own writer of a shared command's result, or NULL. */
static ctl_text_fn *text_writer(const struct ctl_handler *h, const struct ctl_command_info *cmd)
{
	if (!cmd)
		return NULL;
	if (!strcmp(cmd->name, "list"))
		return h->list_text;
	if (!strcmp(cmd->name, "metrics"))
		return h->metrics_text;
	return NULL;
}

/* How a successful reply line starts, as reply_new and ctl_reply_ok make it. */
#define OK_PREFIX_(version) "{\"version\":" #version ",\"ok\":true,"
#define OK_PREFIX(version)  OK_PREFIX_(version)

bool ctl_reply_line_ok(const char *line, size_t len)
{
	static const char prefix[] = OK_PREFIX(CTL_PROTOCOL_VERSION);

	return len >= sizeof(prefix) - 1 && !memcmp(line, prefix, sizeof(prefix) - 1);
}

/* {"version":1,"ok":true,"result":RESULT}, RESULT from the handler's writer; its failure is answered
 * as from_handler answers a NULL result. */
static int answer_from_text(const struct ctl_handler *h, const struct ctl_command_info *cmd, ctl_text_fn *write,
			    struct json_text *out)
{
	size_t mark = out->len;

	json_text_lit(out, OK_PREFIX(CTL_PROTOCOL_VERSION) "\"result\":");
	if (write(h->ctx, out)) {
		json_text_raw(out, "}\n", 2);
		return out->failed ? -ENOMEM : 0;
	}
	if (out->failed)
		return -ENOMEM;
	json_text_rewind(out, mark);
	json_t *reply = ctl_reply_error("'%s' failed", cmd->name);
	int r = reply ? ctl_reply_encode_to(reply, out) : -ENOMEM;
	json_decref(reply);
	return r;
}

int ctl_request_answer(const struct ctl_handler *handler, const struct ctl_peer *peer,
		       const struct ctl_command_info *shared, const char *line, size_t len, struct json_text *out)
{
	ctl_text_fn *write = text_writer(handler, shared);
	json_t *reply;

	if (write)
		return answer_from_text(handler, shared, write, out);
	int r = ctl_request_handle(handler, peer, line, len, &reply);
	if (r < 0)
		return r;
	r = ctl_reply_encode_to(reply, out);
	json_decref(reply);
	return r;
}

static int request_build_args(json_t *req, const struct ctl_command *c, const char *name, const char *const *settings,
			      size_t count, bool persist, struct err *err)
{
	if (persist && c->args != ARGS_NAME_SETTINGS)
		return err_set(err, -EINVAL, "'%s' cannot persist", c->info.name);
	if ((c->args == ARGS_NONE) != (name == NULL))
		return err_set(err, -EINVAL,
			       c->args == ARGS_NONE ? "'%s' takes no partition name" : "'%s' needs a partition name",
			       c->info.name);
	if ((c->args == ARGS_NAME_SETTINGS) != (count > 0))
		return err_set(err, -EINVAL, count ? "'%s' takes no settings" : "'%s' needs at least one key=value",
			       c->info.name);
	if (name && (!name[0] || json_object_set_new(req, "name", json_string(name)) < 0))
		return err_set(err, -EINVAL, "'%s' needs a non-empty partition name (valid UTF-8)", c->info.name);
	if (count == 0)
		return 0;
	json_t *array = json_array();
	if (json_object_set_new(req, "settings", array) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < count; i++) {
		if (!setting_is_well_formed(settings[i]))
			return err_set(err, -EINVAL, "'%s' is not key=value", settings[i]);
		if (json_array_append_new(array, json_string(settings[i])) < 0)
			return err_set(err, -EINVAL, "'%s' is not valid UTF-8", settings[i]);
	}
	if (persist && json_object_set_new(req, "persist", json_true()) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	return 0;
}

static int request_build(const char *cmd, const char *name, const char *const *settings, size_t count, bool persist,
			 char **ret_line, struct err *err)
{
	const struct ctl_command *c = command_find(cmd);
	size_t len = 0;
	int r;

	if (!c)
		return err_set(err, -EINVAL, "unknown command '%s'", cmd);
	json_t *req = json_pack("{s:i, s:s}", "version", CTL_PROTOCOL_VERSION, "cmd", cmd);
	if (!req)
		return err_set(err, -ENOMEM, "out of memory");
	r = request_build_args(req, c, name, settings, count, persist, err);
	if (r >= 0) {
		r = ctl_reply_encode(req, ret_line, &len);
		if (r < 0)
			err_set(err, r, "out of memory");
	}
	json_decref(req);
	if (r >= 0 && len > CTL_MAX_REQUEST) {
		free(*ret_line);
		return err_set(err, -E2BIG, "request larger than %d bytes", CTL_MAX_REQUEST);
	}
	return r;
}

int ctl_request_build(const char *cmd, const char *name, const char *const *settings, size_t count, char **ret_line,
		      struct err *err)
{
	return request_build(cmd, name, settings, count, false, ret_line, err);
}

int ctl_request_build_set(const char *name, const char *const *settings, size_t count, bool persist, char **ret_line,
			  struct err *err)
{
	return request_build("set", name, settings, count, persist, ret_line, err);
}

static int reply_check_version(json_t *reply, struct err *err)
{
	json_t *v = json_object_get(reply, "version");

	if (!json_is_integer(v))
		return err_set(err, -EPROTO, "reply has no protocol version");
	if (json_integer_value(v) != CTL_PROTOCOL_VERSION)
		return err_set(err, -EPROTO, "mpamd speaks protocol version %lld, this client speaks version %d",
			       (long long)json_integer_value(v), CTL_PROTOCOL_VERSION);
	return 0;
}

static int reply_check_object(json_t *reply, json_t **ret_result, struct err *err)
{
	json_t *ok = json_object_get(reply, "ok");
	int r = reply_check_version(reply, err);

	if (r < 0)
		return r;
	if (!json_is_boolean(ok))
		return err_set(err, -EPROTO, "reply has no \"ok\" member");
	if (json_is_false(ok)) {
		const char *text = json_string_value(json_object_get(reply, "error"));
		json_t *messages = json_object_get(reply, "messages");
		if (json_is_array(messages))
			*ret_result = json_incref(messages);
		return err_set(err, -EREMOTEIO, "%s", text ? text : "mpamd refused the request without a reason");
	}
	json_t *result = json_object_get(reply, "result");
	if (!result)
		return err_set(err, -EPROTO, "reply has no \"result\" member");
	*ret_result = json_incref(result);
	return 0;
}

int ctl_reply_check(const char *line, size_t len, json_t **ret_result, struct err *err)
{
	json_error_t jerr;
	json_t *reply;
	int r;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	reply = json_loadb(line, len, 0, &jerr);
	if (!reply)
		return err_set(err, -EPROTO, "reply is not valid JSON: %s at line %d column %d", jerr.text, jerr.line,
			       jerr.column);
	if (!json_is_object(reply))
		r = err_set(err, -EPROTO, "reply is not a JSON object");
	else
		r = reply_check_object(reply, ret_result, err);
	json_decref(reply);
	return r;
}
