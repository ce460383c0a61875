#!/bin/sh
# Guest test: --fragment (issue 15 item 1). Two guests record anon-touch 64M under mcpage:4
# with 512M of memory, one after `--fragment order:3,pct:80,seed:7`, one without. Checked
# from what the guest wrote, not from the fragmenter's own report: header/buddyinfo.fragmented
# (recomputed here with awk) and the trace read with babeltrace2. A third guest replays the
# fragmented recording with `guest replay --fragment`.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 17
SPEC=order:3,pct:80,seed:7

# meta DB KEY: a trace_meta value of the only trace
meta() {
	"$FT" query "$1" --format csv sql "SELECT value FROM trace_meta WHERE key = '$2'" |
		tail -n +2 | sed 's/^"//; s/"$//'
}
# sim_af DB: the mcpage:4 run's fallback_alloc_failed of replay --frag buddyinfo
sim_af() {
	"$FT" replay "$1" --policy mcpage:4 --frag buddyinfo --format json 2> "$T/replay.err" |
		sed 's/.*"policy":"mcpage:4"//' | sed -n 's/.*"fallback_alloc_failed":\([0-9]*\).*/\1/p'
}
# low_pct BUDDYINFO N: % of the free pages (all zones) in blocks of order <= N
low_pct() {
	echo "$1" | awk -v n="$2" '/zone/ {
		for (i = 5; i <= NF; i++) { p = $i * 2 ^ (i - 5); all += p; if (i - 5 <= n) low += p }
	} END { if (all) printf "%d\n", 100 * low / all; else print 0 }'
}
# trace_dir DB: the CTF trace directory record kept beside DB
trace_dir() { ls -d "$1.ctf"/*/ | head -n 1; }
# alloc_failed OUTDIR: the workload VMA's anon_fault events with fallback alloc_failed
alloc_failed() {
	pid=$(result "$1" pid) addr=$(result "$1" addr)
	faults_in "$1" "$pid" "$addr" 67108864 | grep -c 'fallback=alloc_failed'
}

# a bad spec is a usage error and nothing is created
"$FT" record --arch "$ARCH" --fragment order:12 -o "$T/bad.db" -- anon-touch 1M 2> "$T/err"
rc=$?
ok $([ $rc = 2 ] && grep -q "bad --fragment 'order:12'" "$T/err" && [ ! -e "$T/bad.db" ] &&
	[ ! -e "$T/bad.db.ctf" ]; echo $?) "record --fragment order:12: exit 2 ($rc), says why, creates nothing"

start=$(date +%s)
f=$T/frag.db
"$FT" record --arch "$ARCH" --mem 512M --policy mcpage:4 --fragment "$SPEC" -o "$f" \
	-- anon-touch 64M > "$T/frag.out" 2>&1
ok $? "fragmented: record exits 0 ($ARCH, 512M)" || tail -5 "$T/frag.out" | sed 's/^/#   /'
fd=$(trace_dir "$f")
ok $([ "$(meta "$f" fragment)" = "$SPEC" ]; echo $?) "fragmented: header/fragment is the request"
bi=$(meta "$f" buddyinfo.fragmented)
diag "buddyinfo.fragmented: $bi"
diag "buddyinfo.before: $(meta "$f" buddyinfo.before)"
diag "fragmenter: $(meta "$f" fragment_result)"
p=$(low_pct "$bi" 3)
ok $([ -n "$bi" ] && [ "$p" -ge 80 ]; echo $?) \
	"fragmented: $p% of the free pages are in blocks of order <= 3 (>= 80% requested)"
# and the fragmented memory is most of the guest's free memory, not a token amount
free=$(echo "$bi" | awk '/zone/ { for (i = 5; i <= NF; i++) s += $i * 2 ^ (i - 5) } END { print s + 0 }')
ok $([ "$free" -ge 32768 ]; echo $?) "fragmented: $free free pages (>= 128M of 512M)"
ok $(meta "$f" pagetypeinfo.fragmented | grep -q 'Free pages count per migrate type'; echo $?) \
	"fragmented: header/pagetypeinfo.fragmented is /proc/pagetypeinfo"
af=$(alloc_failed "$fd")
ok $([ "$af" -gt 0 ]; echo $?) "fragmented: mcpage:4 faults fall back with alloc_failed ($af)"
vf=$(vmstat_delta "$fd" anon_folio_fallback_alloc_failed)
ok $([ "$af" -gt 0 ] && [ "$vf" -ge "$af" ]; echo $?) \
	"fragmented: vmstat anon_folio_fallback_alloc_failed agrees ($vf >= $af)"
# the fragmenter is setup: the workload's processes are anon-touch's only
wc=$("$FT" query "$f" --format csv sql "SELECT group_concat(DISTINCT comm) FROM process WHERE workload = 1" | tail -n 1)
ok $([ "$wc" = anon-touch ]; echo $?) "fragmented: the workload is anon-touch alone, not ft-frag ($wc)"
sf=$(sim_af "$f")
ok $([ "${sf:-0}" -gt 0 ]; echo $?) \
	"fragmented: replay --frag buddyinfo (seeded from buddyinfo.fragmented) predicts alloc_failed fallbacks (${sf:-none}; guest $af)"
diag "fragmented guest: $(( $(date +%s) - start )) s"

# guest replay takes the same option: the replay guest is fragmented as well
"$FT" guest replay "$f" --policy mcpage:4 --mem 512M --fragment "$SPEC" > "$T/gr.out" 2>&1
ok $? "guest replay --fragment: exits 0" || tail -5 "$T/gr.out" | sed 's/^/#   /'
rd=$(ls -d "$f.ctf"/*replay*/ | head -n 1)
rv=$(vmstat_delta "$rd" anon_folio_fallback_alloc_failed)
rp=$(low_pct "$(cat "$rd/header/buddyinfo.fragmented")" 3)
ok $([ "$(cat "$rd/header/fragment")" = "$SPEC" ] && [ "$rp" -ge 80 ] && [ "${rv:-0}" -gt 0 ]; echo $?) \
	"guest replay --fragment: header/fragment is the request, $rp% at order <= 3, $rv alloc_failed fallbacks"

u=$T/plain.db
"$FT" record --arch "$ARCH" --mem 512M --policy mcpage:4 -o "$u" -- anon-touch 64M \
	> "$T/plain.out" 2>&1
ok $? "unfragmented: record exits 0" || tail -5 "$T/plain.out" | sed 's/^/#   /'
ud=$(trace_dir "$u")
ok $([ -z "$(meta "$u" buddyinfo.fragmented)" ] && [ -z "$(meta "$u" fragment)" ]; echo $?) \
	"unfragmented: no fragment keys in the header"
ua=$(alloc_failed "$ud")
ok $([ "$ua" = 0 ]; echo $?) "unfragmented: no alloc_failed fallback ($ua)"
uv=$(vmstat_delta "$ud" anon_folio_fallback_alloc_failed)
ok $([ "$uv" = 0 ]; echo $?) "unfragmented: vmstat anon_folio_fallback_alloc_failed 0 ($uv)"
us=$(sim_af "$u")
ok $([ "$us" = 0 ]; echo $?) "unfragmented: replay --frag buddyinfo predicts none (${us:-none})"
done_testing
