/* What the control-protocol tests' fake handlers answer a set with, as the engine does in part. */
#ifndef MPAMD_TESTS_UTIL_CTL_FAKE_H
#define MPAMD_TESTS_UTIL_CTL_FAKE_H

#include <jansson.h>
#include <stddef.h>

/* {"name": NAME, "settings": [...]}: the settings echoed (the fake does not model the rest). */
json_t *ctl_fake_set_result(const char *name, const char *const *settings, size_t count);

#endif
