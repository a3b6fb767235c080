#include "tests/util/ctl_fake.h"

#include <stdio.h>

json_t *ctl_fake_set_result(const char *name, const char *const *settings, size_t count)
{
	json_t *asked = json_array();

	for (size_t i = 0; i < count; i++)
		json_array_append_new(asked, json_string(settings[i]));
	return json_pack("{s:s,s:o}", "name", name, "settings", asked);
}

void ctl_fake_note_set(struct ctl_fake_set *seen, const struct ctl_peer *peer, const char *name,
		       const char *const *settings, size_t count)
{
	snprintf(seen->name, sizeof(seen->name), "%s", name);
	seen->count = count;
	for (size_t i = 0; i < count && i < CTL_FAKE_MAX_SETTINGS; i++)
		snprintf(seen->settings[i], sizeof(seen->settings[i]), "%s", settings[i]);
	seen->uid = peer->uid;
}
