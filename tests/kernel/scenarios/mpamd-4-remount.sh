# resctrl unmounted under a running mpamd and mounted again. mpamd keeps its root, its groups and
# their counter files open, so the kernel refuses a plain umount (EBUSY); an operator's umount -l
# then detaches the tree, and the kernel mounts resctrl again only once nothing holds the old one.
# mpamd must see at a tick that its root went, let go of every file of it, and open its partitions
# on the new mount by itself. (Sourced by the guest's lane.sh.)
remount_resctrl
start_tasks
WEB_MB=40 BATCH_MB=60,1=20
daemon_config $W/r.ini web batch
plan $W/r.ini $W/r-plan.json
mpamd -c $W/r.ini -f >$W/r.log 2>&1 &
MP=$!
expect_true "remount: 2 partitions open" states wait_for 30 state_count_is open 2
if ! umount $R 2>$W/umount.err; then
	echo "note: umount while mpamd runs: $(cat $W/umount.err); unmounting lazily" >&2
	umount -l $R
fi
if expect_true "remount: resctrl mounted again while mpamd runs" \
	'echo "mount -t resctrl: $(mount -t resctrl resctrl $R 2>&1) for 15 s: mpamd still holds the unmounted tree"' \
	wait_for 15 mount_resctrl; then
	expect_true "remount: both partitions open again by themselves" \
		states \
		wait_for 90 sh -c "[ -d $R/mpamd-web ] && [ -d $R/mpamd-batch ]"
	wait_for 30 state_count_is open 2
else
	# What an operator does then: stop mpamd, mount, start it again.
	stop_mpamd $MP
	mount_resctrl
	mpamd -c $W/r.ini -f >$W/r2.log 2>&1 &
	MP=$!
	wait_for 30 state_count_is open 2
fi
for p in web batch; do
	check_group $p $W/r-plan.json
done
expect "remount: web's task placed again" "$S1" "$(cat $R/mpamd-web/tasks)"
stop_mpamd $MP
expect "remount: exit status" 0 $?
stop_tasks
