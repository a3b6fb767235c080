# The kernel lane inside the guest for one CPU profile ($1: intel or amd): the resctrl transcript
# for the differential test (to fd 3), then mpamd's scenarios on the kernel's resctrl (checks to
# stdout). "END" at the end tells the host the run was complete.
PROFILE=$1
. /lane/lib.sh
grep -q mpamd_lane_trace=1 /proc/cmdline && set -x # the trace goes to the console

echo "BEGIN $PROFILE $(uname -r)"
case $PROFILE in
intel)
	VENDOR=GenuineIntel
	WEB_CBM=0x7f0 SET_CBM=0x3f0 # 11-bit masks
	;;
amd)
	VENDOR=AuthenticAMD
	WEB_CBM=0xff00 SET_CBM=0x3f00 # 16-bit masks
	;;
*)
	fail lane "unknown CPU profile '$PROFILE'"
	echo END
	exit 0
	;;
esac
BATCH_CBM=0xf
expect "cpu vendor" $VENDOR "$(sed -n 's/^vendor_id[^:]*: *//p' /proc/cpuinfo | head -n 1)"
if ! mount_resctrl; then
	fail "mount resctrl" "mount -t resctrl failed: the CPU shows no RDT (flags: $(grep -o -w -E 'rdt_a|cqm[a-z_]*|cat_l3|mba' /proc/cpuinfo | sort -u | tr '\n' ' '))"
	echo END
	exit 0
fi
pass "mount resctrl"
ROOT_SCHEMATA=$(text $R/schemata) # the unlimited values, for --reset-on-exit

echo "lane: resctrl-ops.scn at $(cut -d' ' -f1 /proc/uptime) s" >&2
resctrl_transcript run $R /lane/scenarios/resctrl-ops.scn "$PROFILE" >&3 ||
	fail "resctrl transcript" "resctrl_transcript could not run the scenario (see the console)"
remount_resctrl

for scenario in /lane/scenarios/mpamd-*.sh; do
	echo "lane: $scenario at $(cut -d' ' -f1 /proc/uptime) s" >&2
	. "$scenario"
done
echo "lane: done at $(cut -d' ' -f1 /proc/uptime) s" >&2
for log in $W/*.log; do # the ends on the console, for a failure's story (a serial port is slow)
	echo "== $log"
	tail -n 15 "$log"
done >&2
echo END
