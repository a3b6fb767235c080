# classes = shared on the kernel's resctrl: more partitions (each with a task) than CLOSIDs all
# open, each a MON group of its own in a class group that the partitions of equal mb_max share; a
# partition moved to another class by `mpamctl set` and by a reload is renamed into the new class's
# mon_groups (its RMID and task go with it: no new group, no new baseline); classes = auto chooses
# shared when the partitions outnumber the CLOSIDs and own when they do not; past the RMIDs the
# partitions left fail saying so. (Sourced by the guest's lane.sh.)
remount_resctrl
closids=$(cat $R/info/L3/num_closids)
[ ! -e $R/info/MB/num_closids ] || [ "$(cat $R/info/MB/num_closids)" -ge "$closids" ] ||
	closids=$(cat $R/info/MB/num_closids)
total=$((closids + 3))
values=4 # distinct mb_max values: 20, 40, 60, 80

cl_mb() { echo $((20 + 20 * ($1 % values))); } # partition i's mb_max
cl_config() {                                  # FILE MODE COUNT
	printf '[global]\nbackend = resctrl\nmonitor = resctrl\ninterval_ms = 100\nresctrl_root = %s\nsocket = %s\nclasses = %s\n' \
		$R $SOCK $2 >$1
	i=1
	while [ $i -le $3 ]; do
		eval pid=\${CL_PID$i:-}
		printf '[partition "p%02d"]\nmb_max = %s\n' $i "$(cl_mb $i)" >>$1
		[ -z "$pid" ] || printf 'pids = %s\n' $pid >>$1
		i=$((i + 1))
	done
}
# The class group that holds partition NAME's MON group ("mpamd-c3"), or "" when it has none.
cl_parent() {
	for d in $R/mpamd-*/mon_groups/mpamd-$1; do
		[ -d "$d" ] && basename "$(dirname "$(dirname "$d")")"
	done
}
cl_open() { state_count_is open $1 && state_count_is failed 0; }

i=1
while [ $i -le $total ]; do
	sleep 100000 &
	eval CL_PID$i=$!
	i=$((i + 1))
done
cl_config $W/cl.ini shared $total
mpamd -c $W/cl.ini -f >$W/cl.log 2>&1 &
MP=$!
expect_true "classes: $total partitions on $closids CLOSIDs, all open" states wait_for 60 cl_open $total

# Each partition a MON group of its own holding its task; the class groups: one per mb_max.
own=0 pairs=
i=1
while [ $i -le $total ]; do
	name=$(printf 'p%02d' $i)
	parent=$(cl_parent $name)
	eval pid=\$CL_PID$i
	[ -n "$parent" ] && grep -qx $pid $R/$parent/mon_groups/mpamd-$name/tasks && own=$((own + 1))
	pairs="$pairs$(cl_mb $i) $parent
"
	i=$((i + 1))
done
expect "classes: each partition in a MON group of its own, with its task" $total $own
expect "classes: MON groups under the class groups" $total "$(ls -d $R/mpamd-*/mon_groups/mpamd-* | wc -l)"
groups=$(ls -d $R/mpamd-* | wc -l)
expect_true "classes: at most $((closids - 1)) CTRL_MON groups" "echo $groups groups" [ $groups -le $((closids - 1)) ]
expect "classes: one class group per mb_max" "$values $values $values" \
	"$groups $(echo "$pairs" | sed '/^$/d' | sort -u | wc -l) $(echo "$pairs" | sed '/^$/d' | cut -d' ' -f2 | sort -u | wc -l)"
if [ $PROFILE = intel ]; then
	c2=$(cl_parent p02)
	expect "classes: the class group holds its members' mb_max" "MB:0=$(cl_mb 2);1=$(cl_mb 2)" "$(schemata_line $R/$c2 MB)"
fi

# cl_moved NAME TO_NAME PID: NAME's MON group now beside TO_NAME's, renamed there (no new group):
# its task in it and in its new class's tasks, the old one gone, valid samples.
cl_moved() {
	to=$(cl_parent $2)
	expect_true "classes: $1 moved to $2's class" "echo $1 in \$(cl_parent $1), $2 in $to" \
		wait_for 20 test -d $R/$to/mon_groups/mpamd-$1
	expect "classes: $1's old group gone" "$to" "$(cl_parent $1)"
	expect "classes: $1's task in its MON group and its new class" "$3 $3" \
		"$(grep -x $3 $R/$to/mon_groups/mpamd-$1/tasks) $(grep -x $3 $R/$to/tasks)"
	expect "classes: $1 renamed, its RMID kept (no new group)" "1 0" \
		"$(grep -c "partition $1: class: moved from class" $W/cl.log) $(grep -c "partition $1: class: .*in a new group" $W/cl.log)"
	sleep 0.5
	ctl show $1 >$W/show.json
	flatten $W/show.json
	expect "classes: $1's sample valid after its move" "true null" \
		"$(field $W/show.json.flat valid) $(field $W/show.json.flat reason)"
}
ctl set p01 mb_max=$(cl_mb 2) >$W/set.json
expect "classes: set p01 mb_max=$(cl_mb 2) applied" true "$(jq -r .applied $W/set.json)"
cl_moved p01 p02 $CL_PID1
sed -i "/^\[partition \"p03\"\]/,+1s/^mb_max = .*/mb_max = $(cl_mb 4)/" $W/cl.ini
kill -HUP $MP
cl_moved p03 p04 $CL_PID3
stop_mpamd $MP
expect "classes: exit status" 0 $?

# classes = auto: shared with more partitions than CLOSIDs, own with fewer.
cl_config $W/cl.ini auto $total
mpamd -c $W/cl.ini -f >$W/cl.log 2>&1 &
MP=$!
expect_true "classes auto: $total partitions shared, all open" states wait_for 60 cl_open $total
expect "classes auto: shared" 1 "$(grep -c 'classes = auto: .* share' $W/cl.log)"
expect_true "classes auto: p04 and p08 (equal mb_max) share a class" 'echo "$(cl_parent p04) and $(cl_parent p08)"' \
	sh -c "[ -n '$(cl_parent p04)' ] && [ '$(cl_parent p04)' = '$(cl_parent p08)' ]"
stop_mpamd $MP
cl_config $W/cl.ini auto 3
mpamd -c $W/cl.ini -f >$W/cl.log 2>&1 &
MP=$!
expect_true "classes auto: 3 partitions, all open" states wait_for 60 cl_open 3
expect "classes auto: each a class of its own" 1 "$(grep -c 'classes = auto: .* of its own' $W/cl.log)"
expect "classes auto: p01's own group holds its task" $CL_PID1 "$(grep -x $CL_PID1 $R/mpamd-p01/tasks)"
stop_mpamd $MP

# Out of RMIDs: two partitions more than the kernel has RMIDs (those past the tasks without one). The
# default group and the class groups hold one each, the MON groups the rest; the partitions left say
# they have no RMID, and mpamd tries no mkdir the kernel would refuse (last_cmd_status stays "ok").
remount_resctrl
sleep 2 # the RMIDs of the groups the unmount removed leave limbo at the kernel's next check (1 s)
rmids=$(cat $R/info/L3_MON/num_rmids)
measured=$((rmids - 1 - values))
cl_config $W/cl.ini shared $((rmids + 2))
mpamd -c $W/cl.ini -f >$W/cl.log 2>&1 &
MP=$!
out_of_rmids() { state_count_is open $measured && state_count_is failed $((rmids + 2 - measured)); }
expect_true "classes: $((rmids + 2)) partitions on $rmids RMIDs: $measured open, the rest failed" states \
	wait_for 90 out_of_rmids
expect "classes: the failed ones say they have no RMID" true \
	"$(ctl list | jq '[.partitions[] | select(.state == "failed") | .error | test("no RMID left")] | all')"
expect "classes: no mkdir refused for want of an RMID" 'ok' "$(cat $R/info/last_cmd_status)"
stop_mpamd $MP
i=1
while [ $i -le $total ]; do
	eval kill \$CL_PID$i
	i=$((i + 1))
done
