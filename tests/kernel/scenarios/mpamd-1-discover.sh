# mpamctl discover on the kernel's resctrl: what mpamd probes must be what the kernel's info/ files
# say. (Sourced by the guest's lane.sh.)
mpamctl discover --resctrl-root $R --json >$W/discover.json 2>$W/discover.err
expect "discover: exit status" 0 $?
flatten $W/discover.json
d() { field $W/discover.json.flat "$1"; }
bool() { [ "$1" = 1 ] && echo true || echo false; }
domain_ids() { schemata_line $R "$1" | sed 's/^[A-Z0-9]*://; s/=[0-9a-f]*//g; s/;/ /g'; }

expect "discover: resctrl is a mount" true "$(d resctrl_mount)"
expect "discover: num_closids" "$(cat $R/info/L3/num_closids)" "$(d num_closids)"
expect "discover: L3 cbm_mask" "$(cat $R/info/L3/cbm_mask)" "$(d L3.cbm_mask)"
expect "discover: L3 min_cbm_bits" "$(cat $R/info/L3/min_cbm_bits)" "$(d L3.min_cbm_bits)"
expect "discover: L3 shareable_bits" "$(cat $R/info/L3/shareable_bits)" "$(d L3.shareable_bits)"
expect "discover: L3 sparse_masks" "$(bool "$(cat $R/info/L3/sparse_masks)")" "$(d L3.sparse_masks)"
expect "discover: L3 domains" "$(domain_ids L3 | wc -w)" "$(d L3.domains)"
expect "discover: MB num_closids" "$(cat $R/info/MB/num_closids)" "$(d MB.num_closids)"
expect "discover: MB bandwidth_gran" "$(cat $R/info/MB/bandwidth_gran)" "$(d MB.bandwidth_gran)"
expect "discover: MB min_bandwidth" "$(cat $R/info/MB/min_bandwidth)" "$(d MB.min_bandwidth)"
expect "discover: MB delay_linear" "$(bool "$(cat $R/info/MB/delay_linear)")" "$(d MB.delay_linear)"
expect "discover: MB thread_throttle_mode" "$(cat $R/info/MB/thread_throttle_mode 2>/dev/null)" \
	"$(d MB.thread_throttle_mode)"
expect "discover: MB maximum (the default group's value)" "$(schemata_line $R MB | sed 's/^MB:0=//; s/;.*//')" \
	"$(d MB.max_value)"
expect "discover: MB domains" "$(domain_ids MB | wc -w)" "$(d MB.domains)"
expect "discover: num_rmids" "$(cat $R/info/L3_MON/num_rmids)" "$(d monitoring.num_rmids)"
for event in llc_occupancy mbm_total_bytes mbm_local_bytes; do
	has=false
	grep -q -x $event $R/info/L3_MON/mon_features && has=true
	expect "discover: $event" $has "$(d monitoring.$event)"
done
expect "discover: monitoring domains" "$(ls $R/mon_data | sed 's/^mon_L3_0*\(.\)/\1/' | tr '\n' ' ')" \
	"$(sed -n 's/^monitoring\.domains\.[0-9]*=//p' $W/discover.json.flat | tr '\n' ' ')"
expect "discover: mbm_assign_mode" "$(sed -n 's/.*\[\(.*\)\].*/\1/p' $R/info/L3_MON/mbm_assign_mode)" \
	"$(d monitoring.mbm_assign_mode)"
if [ -e $R/info/L3_MON/num_mbm_cntrs ]; then
	expect "discover: num_mbm_cntrs" "$(cat $R/info/L3_MON/num_mbm_cntrs)" \
		"$(sed -n 's/^monitoring\.num_mbm_cntrs\.//p' $W/discover.json.flat | tr '\n' ';' | sed 's/;$//')"
fi
