# Assignable counters (AMD ABMC, mbm_event mode) on the kernel's resctrl, fewer than the groups: a
# partition with a guarantee keeps its counter, assigned in its group's mbm_L3_assignments at every
# look, while the counters left go round the others (each assigned and unassigned in turn). (Sourced
# by the guest's lane.sh. Intel's RDT has no counter assignment: every group has its RMID's counter,
# and there is nothing to check.)
remount_resctrl
if grep -q '\[mbm_event\]' $R/info/L3_MON/mbm_assign_mode 2>/dev/null; then
	ct_n=8
	printf '[global]\nbackend = resctrl\nmonitor = resctrl\ninterval_ms = 100\nresctrl_root = %s\nsocket = %s\n' \
		$R $SOCK >$W/ct.ini
	printf '[partition "g01"]\nclass = latency-critical\nguarantee_mbps = 1000\n' >>$W/ct.ini
	i=2
	while [ $i -le $ct_n ]; do
		printf '[partition "g%02d"]\nmb_max = 50\n' $i >>$W/ct.ini
		i=$((i + 1))
	done
	mpamd -c $W/ct.ini -f >$W/ct.log 2>&1 &
	MP=$!
	ct_assigned() { grep '^mbm_total_bytes:' $R/mpamd-$1/mbm_L3_assignments | grep -qv '=_'; }
	expect_true "counters: $ct_n partitions on $(sed "s/^[0-9]*=\([0-9]*\).*/\1/" $R/info/L3_MON/num_mbm_cntrs) counters a domain, all open" states \
		wait_for 30 state_count_is open $ct_n
	sleep 1 # g01's turn has come (every partition waits at most one round for its first counter)
	kept=0 other_on=0 other_off=0 looks=0
	while [ $looks -lt 20 ]; do
		ct_assigned g01 && kept=$((kept + 1))
		if ct_assigned g05; then
			other_on=$((other_on + 1))
		else
			other_off=$((other_off + 1))
		fi
		looks=$((looks + 1))
		sleep 0.15
	done
	expect "counters: g01 (guarantee) assigned at every look" "20" "$kept"
	expect "counters: g05 assigned at some looks, not at others" "true true" \
		"$([ $other_on -gt 0 ] && echo true || echo false) $([ $other_off -gt 0 ] && echo true || echo false)"
	expect "counters: no warning that g01's counter goes round" 0 "$(grep -c 'goes round' $W/ct.log)"
	stop_mpamd $MP
fi
