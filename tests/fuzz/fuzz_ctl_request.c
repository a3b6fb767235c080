/* libFuzzer target: any bytes as a control-socket request line, from a root peer and from another
 * user, always give a reply that is one line of valid JSON (also when the request echoes invalid
 * UTF-8), never a crash, a leak or undefined behaviour; a non-root peer never reaches set or reload.
 *   ./fuzz_ctl_request -max_len=4096 corpus/ ../tests/fuzz/corpus/ctl_request/ */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctl/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned mutations;

static json_t *fake_status(void *ctx)
{
	(void)ctx;
	return json_pack("{s:s}", "backend", "fuzz");
}

static json_t *fake_show(void *ctx, const char *name, struct err *err)
{
	(void)ctx;
	if (strcmp(name, "web")) {
		err_set(err, -ENOENT, "no partition named '%s'", name);
		return NULL;
	}
	return json_pack("{s:s}", "name", name);
}

static json_t *fake_set(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
			size_t count, struct err *err)
{
	(void)ctx;
	(void)settings;
	(void)count;
	(void)err;
	mutations++;
	if (!peer->may_mutate)
		__builtin_trap(); /* the protocol refuses before the handler sees it */
	return json_pack("{s:s}", "name", name);
}

static int fake_reload(void *ctx, struct err *err)
{
	(void)ctx;
	(void)err;
	mutations++;
	return 0;
}

static const struct ctl_handler handler = {
	.status = fake_status,
	.list = fake_status,
	.show = fake_show,
	.metrics = fake_status,
	.set = fake_set,
	.reload = fake_reload,
};

static void answer(const struct ctl_peer *peer, const uint8_t *data, size_t size)
{
	json_t *reply = NULL;
	char *line = NULL;
	size_t len = 0;

	if (ctl_request_handle(&handler, peer, (const char *)data, size, &reply) < 0)
		return; /* out of memory: the only failure allowed */
	if (!reply || ctl_reply_encode(reply, &line, &len) < 0)
		__builtin_trap();
	if (len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1))
		__builtin_trap(); /* exactly one line */
	json_t *back = json_loadb(line, len, 0, NULL);
	if (!back)
		__builtin_trap(); /* valid JSON, UTF-8 included */
	json_decref(back);
	json_decref(reply);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ctl_peer root = { .uid = 0, .may_mutate = true, .group = "mpamd" };
	static const struct ctl_peer user = { .uid = 1000, .gid = 1000, .may_mutate = false, .group = "mpamd" };

	if (size > CTL_MAX_REQUEST)
		return 0;
	answer(&root, data, size);
	unsigned before = mutations;
	answer(&user, data, size);
	if (mutations != before)
		__builtin_trap();
	return 0;
}
