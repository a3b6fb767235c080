#include "tests/util/ctl_fake.h"

json_t *ctl_fake_set_result(const char *name, const char *const *settings, size_t count)
{
	json_t *asked = json_array();

	for (size_t i = 0; i < count; i++)
		json_array_append_new(asked, json_string(settings[i]));
	return json_pack("{s:s,s:o}", "name", name, "settings", asked);
}
