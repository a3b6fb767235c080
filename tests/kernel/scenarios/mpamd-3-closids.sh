# More partitions than CLOSIDs on the kernel's resctrl: mpamd opens what the kernel has room for,
# lists the rest as failed with the kernel's refusal, and opens one by itself when a reload frees a
# CLOSID. (Sourced by the guest's lane.sh.)
remount_resctrl
closids=$(cat $R/info/L3/num_closids)
fits=$((closids - 1)) # the default group holds one
total=$((closids + 1))
printf '[global]\nbackend = resctrl\nmonitor = resctrl\ninterval_ms = 100\nresctrl_root = %s\nsocket = %s\n' \
	$R $SOCK >$W/c.ini
i=1
while [ $i -le $total ]; do
	printf '[partition "p%02d"]\nmb_max = 50\n' $i >>$W/c.ini
	i=$((i + 1))
done
mpamd -c $W/c.ini -f >$W/c.log 2>&1 &
MP=$!
exhausted() { state_count_is open $fits && state_count_is failed $((total - fits)); }
expect_true "closids: $fits open, $((total - fits)) failed" states \
	wait_for 30 exhausted
expect "closids: the kernel's groups are the open ones" \
	"$(ctl list | jq -r '.partitions[] | select(.state == "open") | "mpamd-\(.name)"' | sort)" \
	"$(cd $R && ls -d mpamd-* | sort)"
expect_true "closids: the failed ones say the kernel is out of CLOSIDs" \
	states \
	sh -c "mpamctl --socket $SOCK --json list | jq -e '[.partitions[] | select(.state == \"failed\") | .error | test(\"CLOSID|No space\")] | all' >/dev/null"

# A reload without p01 frees its CLOSID: one failed partition opens at its next retry.
sed -i '/^\[partition "p01"\]/,+1d' $W/c.ini
kill -HUP $MP
one_left() { state_count_is open $fits && state_count_is failed $((total - fits - 1)); }
expect_true "closids: a freed CLOSID is taken by a failed partition" states \
	wait_for 90 one_left
stop_mpamd $MP
expect "closids: exit status" 0 $?
