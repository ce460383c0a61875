# lib.sh - helpers for the guest tests (sourced after ../test-lib.sh). They boot real
# guests through guest-kernel/run.sh and read the trace with babeltrace2 itself, so a
# collector bug cannot hide a kernel bug.
RUN="$TOP/guest-kernel/run.sh"
ARCH=${FT_TEST_ARCH:-x86_64}

# guest OUTDIR POLICY CMD...: record CMD under POLICY; the run's exit status is returned
guest() {
	_out=$1 _pol=$2
	shift 2
	sh "$RUN" --arch "$ARCH" --policy "$_pol" --out "$_out" -- "$@" 2>"$_out.stderr"
	_rc=$?
	[ $_rc = 0 ] || { diag "run.sh exit $_rc:"; sed 's/^/#   /' "$_out.stderr" | tail -5; }
	return $_rc
}

# events OUTDIR: the trace as one line per event, "name k=v k=v ...", enums as their label
events() {
	[ -f "$1/events.txt" ] || babeltrace2 "$1/trace" 2>/dev/null |
		sed -e 's/( "\([a-z_]*\)" : container = [0-9]* )/\1/g' |
		awk '{
			name = $0; sub(/^[^]]*\] \([^)]*\) [^ ]* /, "", name); sub(/:.*/, "", name)
			body = $0; sub(/^[^{]*\{[^}]*\}, \{ /, "", body); sub(/ \}$/, "", body)
			gsub(/ = /, "=", body); gsub(/, /, " ", body)
			print name, body
		}' > "$1/events.txt"
	cat "$1/events.txt"
}

# result OUTDIR KEY: a field of the workload's RESULT line
result() {
	sed -n "s/^RESULT .* $2=\([^ ]*\).*/\1/p" "$1/workload.out" | head -n 1
}

# field LINE KEY
field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# faults_in OUTDIR PID ADDR SIZE [EVENT]: EVENT (default anon_fault) events of PID whose
# address lies in [ADDR, ADDR+SIZE)
faults_in() {
	events "$1" | awk -v pid="$2" -v lo="$3" -v size="$4" -v ev="${5:-anon_fault}" '
		function hex(s,  i, n) {	# mawk has no strtonum; addresses < 2^53 are exact
			n = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n
		}
		$1 == ev {
			delete f
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			a = hex(f["address"]); l = hex(lo)
			if (f["pid"] == pid && a >= l && a < l + size) print
		}'
}

# vmstat_delta OUTDIR COUNTER: the counter's change across the workload (header files)
vmstat_delta() {
	_a=$(awk -v k="$2" '$1 == k { print $2 }' "$1/header/vmstat.after")
	_b=$(awk -v k="$2" '$1 == k { print $2 }' "$1/header/vmstat.before")
	echo $(( ${_a:-0} - ${_b:-0} ))
}
