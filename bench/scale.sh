#!/bin/sh
# bench/scale.sh - ingest and replay at the scale of real recordings: one recorded trace of
# about 1e7 anonymous faults (pf-loop in the x86_64 guest) and a SYNTHETIC stream of 1e8
# faults (replay/synth.c's kbuild-like, stored by tests/cli/synth-db.c). Measures the
# recording time, ingest time and peak RSS (against the small pf-loop fixture: the same
# peak means memory independent of the trace's length), database bytes per fault, replay
# time and peak RSS per distinct page per policy: the peak RSS of 7 policies in one pass
# (order0 included) less that of order0 alone, over 6 times the distinct (process, page)
# pairs the replayed stream touches (bench/scale-pages.c), so what every replay has
# whatever its policies (the program, SQLite's page cache, the decoded batch) is left out.
#
#   sh bench/scale.sh [RECORDED_DB]
#
# RECORDED_DB: reuse a database `foliotrace record` wrote (its CTF trace in RECORDED_DB.ctf/)
# instead of recording (4 minutes under TCG on a loaded 2-CPU machine). Environment:
# FT_SCALE_LOOPS (pf-loop loops of 64M, default 611: 1.001e7 faults), FT_SCALE_SYNTH
# (synthetic faults, default 100000000; it is generated in memory: about 5 GB).
# Peak RSS comes from GNU time's %M (getrusage: the largest of the process and the children
# it waited for, so ingest's babeltrace2 child counts).
# Last line: scale_faults=N ingest_rss_mib=X replay_bytes_per_page=Y db_bytes_per_fault=Z
# (N: the recorded trace's faults; X: its ingest; Y: the larger of the two replays; Z: its
# database). Goals (issue 16): X <= 256, Y <= 16, Z <= 13.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
LOOPS=${FT_SCALE_LOOPS:-611}
NSYNTH=${FT_SCALE_SYNTH:-100000000}
FT=$TOP/build/foliotrace
SMALL=$TOP/tests/data/x86_64-pf-loop-order0
POL="-P mcpage:2 -P mcpage:4 -P mthp:16K,32K,64K -P faultaround:16 -P thp -P adaptive"
NPOL=7
make -s all build/testprogs/synth-db
[ -x /usr/bin/time ] || { echo "bench/scale.sh: GNU time (/usr/bin/time) is missing" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/scale.XXXXXX")
trap 'rm -rf "$W"' EXIT
${CC:-gcc} -O2 -std=gnu11 -D_GNU_SOURCE -I. -Ibuild/gen -o "$W/scale-pages" bench/scale-pages.c \
	build/libft.a -lsqlite3 -lm
echo "bench/scale.sh: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"(the machine is shared: times move with the load)"

# timed OUT CMD...: run CMD, "seconds kib" of it into OUT
timed() {
	out=$1
	shift
	/usr/bin/time -f '%e %M' -o "$out" "$@"
}
q() { "$FT" query "$1" --format csv sql "$2" | tail -n 1; }

# --- the recorded trace ---
if [ $# -ge 1 ]; then
	REC=$1
	echo "record: reusing $REC"
else
	REC=$W/rec.db
	timed "$W/t.rec" "$FT" record -o "$REC" -- pf-loop --size 64M --loops "$LOOPS" > /dev/null
	echo "record: pf-loop --size 64M --loops $LOOPS in the x86_64 guest (TCG):" \
		"$(cut -d' ' -f1 "$W/t.rec") s, record and ingest"
fi
CTF=$(ls -d "$REC.ctf"/*/ | head -n 1)
[ -d "$CTF" ] || { echo "bench/scale.sh: no CTF trace under $REC.ctf" >&2; exit 1; }

# --- ingest ---
timed "$W/t.is" "$FT" ingest -q -o "$W/small.db" "$SMALL"
timed "$W/t.ib" "$FT" ingest -q -o "$W/big.db" "$CTF"
faults=$(q "$W/big.db" "SELECT count FROM event_count WHERE name = 'anon_fault'")
events=$(q "$W/big.db" "SELECT events FROM trace")
sfaults=$(q "$W/small.db" "SELECT count FROM event_count WHERE name = 'anon_fault'")
bytes=$(stat -c %s "$W/big.db")
read -r is_s is_kb < "$W/t.is"
read -r ib_s ib_kb < "$W/t.ib"
ingest_mib=$(echo "scale=1; $ib_kb / 1024" | bc)
db_bpf=$(echo "scale=2; $bytes / $faults" | bc)
echo "ingest: fixture $(basename "$SMALL") ($sfaults faults): $is_s s, peak RSS" \
	"$(echo "scale=1; $is_kb / 1024" | bc) MiB"
echo "ingest: recorded trace ($faults faults, $events events): $ib_s s, peak RSS" \
	"$ingest_mib MiB; database $bytes bytes = $db_bpf bytes per fault"

# --- the synthetic stream ---
timed "$W/t.syn" "$TOP/build/testprogs/synth-db" "$W/synth.db" kbuild-like 1 "$NSYNTH" > /dev/null
echo "synthetic: kbuild-like, $NSYNTH faults stored by synth-db in $(cut -d' ' -f1 "$W/t.syn") s;" \
	"database $(stat -c %s "$W/synth.db") bytes"

# --- replay: one policy (order0), then 7 in one pass ---
worst=0
for db in big synth; do
	pages=$("$W/scale-pages" "$W/$db.db" | sed 's/distinct_pages=\([0-9]*\) .*/\1/')
	timed "$W/t.r1" "$FT" replay -n -q "$W/$db.db" -P order0 > /dev/null
	timed "$W/t.r7" "$FT" replay -n -q "$W/$db.db" $POL > /dev/null
	read -r r1_s r1_kb < "$W/t.r1"
	read -r r7_s r7_kb < "$W/t.r7"
	bpp=$(echo "scale=2; ($r7_kb - $r1_kb) * 1024 / ($pages * ($NPOL - 1))" | bc)
	echo "replay: $db: $pages distinct pages; order0 alone $r1_s s, peak RSS $r1_kb KiB;" \
		"$NPOL policies $r7_s s, peak RSS $r7_kb KiB: $bpp bytes per distinct page per" \
		"added policy"
	worst=$(echo "if ($bpp > $worst) $bpp else $worst" | bc)
done
echo "scale_faults=$faults ingest_rss_mib=$ingest_mib replay_bytes_per_page=$worst" \
	"db_bytes_per_fault=$db_bpf"
