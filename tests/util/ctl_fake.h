/* What the control-protocol tests' fake daemons share: the handler over their fake_* functions, and
 * what they answer a set with, as the engine does in part. */
#ifndef MPAMD_TESTS_UTIL_CTL_FAKE_H
#define MPAMD_TESTS_UTIL_CTL_FAKE_H

#include <jansson.h>
#include <stddef.h>

#include "core/ctl/proto.h"

#define CTL_FAKE_MAX_SETTINGS 8

/* What the last set asked for, as a fake daemon saw it. */
struct ctl_fake_set {
	char name[64];
	char settings[CTL_FAKE_MAX_SETTINGS][64];
	size_t count;
	unsigned uid; /* the peer's */
};

void ctl_fake_note_set(struct ctl_fake_set *seen, const struct ctl_peer *peer, const char *name,
		       const char *const *settings, size_t count);

/* {"name": NAME, "settings": [...]}: the settings echoed (the fake does not model the rest). */
json_t *ctl_fake_set_result(const char *name, const char *const *settings, size_t count);

/* A ctl_handler whose context is `ctx` and whose calls are the including test's fake_status, fake_list,
 * fake_show, fake_set and fake_reload, with `metrics` and `generation` (either may be NULL). */
#define CTL_FAKE_HANDLER(ctx_, metrics_, generation_)                                                          \
	{                                                                                                      \
		.ctx = ctx_, .status = fake_status, .list = fake_list, .show = fake_show, .metrics = metrics_, \
		.set = fake_set, .reload = fake_reload, .generation = generation_                              \
	}

#endif
