# Helpers for the guest's checks (busybox sh, sourced). Each check prints one line:
#   PASS NAME | FAIL NAME: WHY | SKIP NAME: WHY
# and scripts/test-kernel counts them.
R=/sys/fs/resctrl
W=/tmp/lane # configs, logs and the control socket
SOCK=$W/mpamd.sock
mkdir -p $W

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# expect_true NAME WHY COMMAND...: passes when COMMAND succeeds; else fails with the output of the
# shell code WHY, run then (so it tells the state after the wait, not before).
expect_true() {
	name=$1 why=$2
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "$(eval "$why" 2>&1 | tr '\n' ' ')"
		return 1
	fi
}

# A file's text on one line ("\n" between lines), or "(missing)".
text() {
	[ -e "$1" ] || { echo "(missing)"; return; }
	sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g' "$1"
}

# The RES line of a schemata file without the kernel's padding ("L3:0=7f0;1=7f0").
schemata_line() {
	sed -n "s/^ *$2:/$2:/p" "$1/schemata" 2>/dev/null
}

# schemata_is GROUP RES LINE: whether GROUP's RES line is LINE now.
schemata_is() { [ "$(schemata_line $R/$1 $2)" = "$3" ]; }

ctl() { mpamctl --socket "$SOCK" --json "$@"; }

# flatten JSON: JSON's scalars as "a.b.0.c=VALUE" lines in JSON.flat (one jq for many lookups: each
# program started costs a good part of a second under TCG).
flatten() {
	jq -r 'paths(type != "object" and type != "array") as $p | "\($p | map(tostring) | join("."))=\(getpath($p))"' \
		"$1" >"$1.flat"
}

# field FLAT KEY: KEY's value in a flattened file ("null" when absent, as jq says; "" when empty).
field() {
	if grep -q "^$2=" "$1"; then
		sed -n "s/^$2=//p" "$1"
	else
		echo null
	fi
}

# wait_for SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds; false after SECONDS
# (of the guest's clock: each mpamctl under TCG takes a good part of a second).
wait_for() {
	deadline=$(($(date +%s) + $1))
	shift
	until "$@" 2>/dev/null; do
		[ "$(date +%s)" -lt $deadline ] || return 1
		sleep 0.2
	done
}

# How many partitions mpamd lists in STATE.
count_state() {
	ctl list | jq --arg s "$1" '[.partitions[] | select(.state == $s)] | length'
}

# Each partition's name, state and error on one line (a failed wait's explanation).
states() { ctl list 2>&1 | jq -c '[.partitions[] | [.name, .state, .error]]' 2>&1; }

state_count_is() { [ "$(count_state "$1")" = "$2" ]; }

# A hex mask as the kernel prints it ("0x00f0" -> "f0").
hex() { printf '%x' "$(($1))"; }

# "RES:0=V;1=V": VALUE for every domain of resource RES.
line_with() {
	sed -n "s/^ *$1:/$1:/p" "$R/schemata" | sed "s/=[0-9a-f]*/=$2/g"
}

# plan CONFIG PLAN: what mpamctl check-config --host says CONFIG would write, into the file PLAN. It
# plans only what differs from the groups as they are: under another group_prefix every group is
# new, so the plan holds each partition's whole schemata.
plan() {
	sed 's/^\[global\]$/[global]\ngroup_prefix = lane-plan-/' "$1" >$W/plan.ini
	mpamctl check-config --host --json $W/plan.ini >"$2"
}

# The MB line PLAN has partition NAME write (what mpamd writes: the same code plans and writes).
planned_mb() {
	jq -r --arg n "$2" '.host.partitions[] | select(.name == $n) | .writes[] | select(.what == "schemata") | .value' \
		"$1" | sed -n 's/^MB:/MB:/p'
}

# The MB line built from a flattened `mpamctl --json show` (percent per domain: Intel's schemata units).
shown_mb() {
	sed -n 's/^domains\.[0-9]*\.domain=\(.*\)/\1/p' "$1" >$W/ids
	sed -n 's/^domains\.[0-9]*\.mb_max=\(.*\)/\1/p' "$1" >$W/maxes
	echo "MB:$(paste -d= $W/ids $W/maxes | tr '\n' ';' | sed 's/;$//')"
}

mount_resctrl() { mount -t resctrl resctrl $R; }

# Unmount (mpamd may still hold files: then lazily) and mount again: a fresh resctrl.
remount_resctrl() {
	umount $R 2>/dev/null || umount -l $R
	mount_resctrl
}

# stop_mpamd PID: SIGTERM and its exit status.
stop_mpamd() {
	kill -TERM "$1"
	wait "$1"
}

# start_tasks: three processes for the partitions' pids, S1 (web), S2 and S3 (batch); stop_tasks.
start_tasks() {
	sleep 100000 &
	S1=$!
	sleep 100000 &
	S2=$!
	sleep 100000 &
	S3=$!
}
stop_tasks() { kill $S1 $S2 $S3; }

# daemon_config FILE PARTITION...: a configuration with web, batch, idle and new as below.
# $WEB_MB and $BATCH_MB are their mb_max, $S1, $S2 and $S3 their tasks, $WEB_CBM and $BATCH_CBM
# their cache masks.
daemon_config() {
	out=$1
	shift
	printf '[global]\nbackend = resctrl\nmonitor = resctrl\ninterval_ms = 100\nresctrl_root = %s\nsocket = %s\n' \
		$R $SOCK >$out
	for p in "$@"; do
		case $p in
		web) printf '[partition "web"]\nclass = latency-critical\nmb_max = %s\nl3_cbm = %s\npids = %s\n' \
			"$WEB_MB" $WEB_CBM $S1 ;;
		batch) printf '[partition "batch"]\nclass = best-effort\nmb_max = %s\nl3_cbm = %s\npids = %s, %s\n' \
			"$BATCH_MB" $BATCH_CBM $S2 $S3 ;;
		idle) printf '[partition "idle"]\nmb_max = 70\ncpus = 1\n' ;;
		new) printf '[partition "new"]\nmb_max = 20\n' ;;
		esac >>$out
	done
}

# check_group NAME PLAN: partition NAME's group against mpamctl show and the MB line PLAN has for it.
check_group() {
	g=$R/mpamd-$1 f=$W/show.json.flat
	ctl show $1 >$W/show.json
	flatten $W/show.json
	expect "$1: group" "mpamd-$1" "$(field $f group)"
	expect "$1: open" open "$(field $f state)"
	expect_true "$1: group directory" 'echo "$g does not exist"' test -d $g
	cbm=$(field $f l3_cbm)
	[ "$cbm" = null ] || expect "$1: L3 as shown ($cbm)" "$(line_with L3 "$(hex $cbm)")" "$(schemata_line $g L3)"
	expect "$1: MB as planned" "$(planned_mb $2 $1)" "$(schemata_line $g MB)"
	[ $PROFILE != intel ] || expect "$1: MB as shown (percent)" "$(shown_mb $f)" "$(schemata_line $g MB)"
	expect "$1: task count as shown" "$(field $f group_tasks)" "$(wc -l <$g/tasks)"
	expect "$1: no MON groups of its own" "" "$(ls $g/mon_groups)"
	expect "$1: counters read 0 under TCG, mpamd shows 0 MB/s measured" "0 true" \
		"$(field $f mbps | sed 's/\.0$//') $(field $f valid)"
}
