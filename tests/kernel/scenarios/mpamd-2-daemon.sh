# mpamd on the kernel's resctrl: partitions with limits, cache masks, pids and cpus; a socket set;
# a reload (SIGHUP); SIGTERM without and with --reset-on-exit. Each check reads the kernel's files
# and compares them with what mpamd says it did (mpamctl show, and the writes mpamctl
# check-config --host plans, which come from the code mpamd writes with).
#
# AMD: mpamd writes MB as 2048 x percent / 100 today, where AMD's MB is absolute (1/8 GB/s); that
# is to change, so the checks hold the kernel's file to what mpamd planned and shows, not to a
# number.
start_tasks

WEB_MB=40 BATCH_MB=60,1=20
daemon_config $W/d.ini web batch idle
plan $W/d.ini $W/plan.json
expect "check-config --host: exit status" 0 $?
expect "check-config --host: can hold" true "$(jq -r .host.can_hold $W/plan.json)"
expect "check-config --host: verdicts" "ok ok ok" "$(jq -r '[.host.partitions[].verdict] | join(" ")' $W/plan.json)"
expect "check-config --host: wrote nothing" "" "$(ls -d $R/mpamd-* $R/lane-plan-* 2>/dev/null)"

mpamd -c $W/d.ini -f >$W/d.log 2>&1 &
MP=$!
expect_true "daemon: 3 partitions open" states wait_for 30 state_count_is open 3
for p in web batch idle; do
	check_group $p $W/plan.json
done
expect "web: tasks" "$S1" "$(cat $R/mpamd-web/tasks)"
expect "web: /proc/PID/cpu_resctrl_groups" 'res:mpamd-web\nmon:' "$(text /proc/$S1/cpu_resctrl_groups)"
expect "batch: tasks" "$(printf '%s\n' $S2 $S3 | sort)" "$(sort $R/mpamd-batch/tasks)"
expect "batch: /proc/PID/cpu_resctrl_groups" 'res:mpamd-batch\nmon:' "$(text /proc/$S3/cpu_resctrl_groups)"
expect "idle: cpus_list" 1 "$(cat $R/mpamd-idle/cpus_list)"
expect "default group: cpus_list" 0 "$(cat $R/cpus_list)"
expect "last_cmd_status after mpamd's writes" ok "$(cat $R/info/last_cmd_status)"

# A socket set, applied at once; then one between Intel's 10% steps (35): the plan, what mpamd shows
# and what the kernel holds must agree on where it went.
set_and_check() { # VALUE: web mb_max=VALUE
	WEB_MB=$1
	daemon_config $W/set.ini web
	plan $W/set.ini $W/set-plan.json
	want=$(planned_mb $W/set-plan.json web)
	ctl set web mb_max=$1 >$W/set.json
	expect "set web mb_max=$1: applied" true "$(jq -r .applied $W/set.json)"
	wait_for 5 schemata_is mpamd-web MB "$want"
	expect "set web mb_max=$1: kernel MB as planned" "$want" "$(schemata_line $R/mpamd-web MB)"
	ctl show web >$W/show.json
	flatten $W/show.json
	expect "set web mb_max=$1: in force as shown" "$(jq -r .in_force.mb_max $W/set.json)" \
		"$(field $W/show.json.flat domains.0.mb_max)"
	[ $PROFILE != intel ] || expect "set web mb_max=$1: kernel MB as shown" "$(shown_mb $W/show.json.flat)" \
		"$(schemata_line $R/mpamd-web MB)"
}
set_and_check 30
set_and_check 35
ctl set web l3_cbm=$SET_CBM >$W/set.json
wait_for 5 schemata_is mpamd-web L3 "$(line_with L3 "$(hex $SET_CBM)")"
expect "set web l3_cbm: kernel L3" "$(line_with L3 "$(hex $SET_CBM)")" "$(schemata_line $R/mpamd-web L3)"
expect "set web l3_cbm: shown" "$SET_CBM" "$(ctl show web | jq -r .l3_cbm)"
WEB_MB=40

# Reload: batch changed, idle removed, new added, web's entry unchanged (so its set stays).
web_before=$(text $R/mpamd-web/schemata)
BATCH_MB=50
daemon_config $W/d.ini web batch new
plan $W/d.ini $W/reload-plan.json
kill -HUP $MP
reloaded() { [ -d $R/mpamd-new ] && [ ! -d $R/mpamd-idle ] && [ "$(ctl show new | jq -r .state)" = open ]; }
expect_true "reload: new open, idle gone" states wait_for 20 reloaded
check_group new $W/reload-plan.json
check_group batch $W/reload-plan.json
expect "reload: idle's CPU back in the default group" 0-1 "$(cat $R/cpus_list)"
expect "reload: web untouched (its set stays)" "$web_before" "$(text $R/mpamd-web/schemata)"

# SIGTERM without --reset-on-exit: groups, limits and tasks stay.
before=$(for g in web batch new; do text $R/mpamd-$g/schemata; cat $R/mpamd-$g/tasks; done)
stop_mpamd $MP
expect "SIGTERM: exit status" 0 $?
expect "SIGTERM: groups, limits and tasks stay" "$before" \
	"$(for g in web batch new; do text $R/mpamd-$g/schemata; cat $R/mpamd-$g/tasks; done)"

# Again with --reset-on-exit: every group it manages goes back to no limit.
mpamd -c $W/d.ini -f --reset-on-exit >$W/d2.log 2>&1 &
MP=$!
expect_true "restart: the 3 groups adopted or made" states wait_for 30 state_count_is open 3
stop_mpamd $MP
expect "SIGTERM --reset-on-exit: exit status" 0 $?
for g in web batch new; do
	expect "SIGTERM --reset-on-exit: $g unlimited" "$ROOT_SCHEMATA" "$(text $R/mpamd-$g/schemata)"
done
expect "SIGTERM --reset-on-exit: tasks stay" "$S1" "$(cat $R/mpamd-web/tasks)"
stop_tasks
