# Source lists, one place to add a file.
set(MPAMCORE_SOURCES
  core/config_check.c
  core/config_json.c
  core/config_keys.c
  core/config_write.c
  core/config_load.c
  core/diag.c
  core/model.c
  core/parse.c
  core/suggest.c
)

set(MPAMD_SOURCES
  cli/mpamd.c
)

set(MPAMCTL_SOURCES
  cli/mpamctl.c
  cli/cmd_check_config.c
)
