#!/bin/sh
# plugin.sh - policies from shared objects, `replay --policy plugin:PATH.so[:ARGS]`
# (docs/policies.md, "Writing a policy outside the tree"): contrib/policies/mthp-like.so
# gives the built-in mthp's results on every trace fixture, every metric, per process and
# in total, both allocation models; its runs are stored, compared and reported under the
# plugin's own name; and every broken plugin (tests/cli/plugins/) is refused with one line
# and its exit status, the database unchanged.
. "$(dirname "$0")/../test-lib.sh"

plan 30
PL=$BUILD/policies
BAD=$BUILD/testprogs/plugins
check "the example plugins are built (make)" test -f "$PL/mthp-like.so" -a -f "$PL/dense-first.so"
check "the test plugins are built (make)" test -f "$BAD/misbehave.so" -a -f "$BAD/abi-wrong.so"

# --- mthp-like against mthp on every fixture: the stored rows of the two runs are equal ---
ingest_fixtures
while read -r n; do
	db="$T/fx-$n.db"
	for frag in none buddyinfo; do
		for sizes in 16K,32K,64K 8K,1M 8K,16K,32K,64K,128K,256K,512K,1M; do
			if ! "$FT" replay "$db" -q --check-oracle --frag $frag -P "mthp:$sizes" \
				-P "plugin:$PL/mthp-like.so:$sizes" > /dev/null 2> "$T/err"; then
				diag "$n frag=$frag $sizes: $(cat "$T/err")"
				bad=$((bad + 1))
				continue
			fi
			# every replay_metric row (per process and the total) of the one run
			# and not the other, both ways: none
			diff=$("$FT" query "$db" --format csv sql "
				WITH a AS (SELECT run_id FROM replay_run WHERE policy = 'mthp:$sizes' AND frag = '$frag' ORDER BY run_id DESC LIMIT 1),
				     b AS (SELECT run_id FROM replay_run WHERE policy = 'plugin:mthp-like:$sizes' AND frag = '$frag' ORDER BY run_id DESC LIMIT 1),
				     ra AS (SELECT proc_id, name, value FROM replay_metric WHERE run_id = (SELECT run_id FROM a)),
				     rb AS (SELECT proc_id, name, value FROM replay_metric WHERE run_id = (SELECT run_id FROM b))
				SELECT (SELECT count(*) FROM (SELECT * FROM ra EXCEPT SELECT * FROM rb)) +
				       (SELECT count(*) FROM (SELECT * FROM rb EXCEPT SELECT * FROM ra)) +
				       ((SELECT count(*) FROM ra) = 0)" | tail -1)
			if [ "$diff" != 0 ]; then
				diag "$n frag=$frag $sizes: $diff metric rows differ"
				bad=$((bad + 1))
			fi
		done
	done
done < "$T/fixtures"
check "mthp-like.so equals mthp on every metric row of every fixture ($fixtures fixtures, 3 size lists, 2 frag models, engine and oracle agreeing)" \
	test "$bad" = 0 -a "$fixtures" -gt 0

# --- stored, compared and reported under the plugin's own name ---
SYNTH=$BUILD/testprogs/synth-db
"$SYNTH" "$T/k.db" kbuild-like 1 100000 > /dev/null
"$FT" replay "$T/k.db" -q -P mthp:16K,32K,64K -P "plugin:$PL/mthp-like.so:64K,32K,16K" \
	-P "plugin:$PL/dense-first.so" -P mthp:16K -P "plugin:$BAD/mthp.so:16K" --format json > "$T/j"
ok $? "replay of three plugins beside two built-ins in one pass exits 0"
python3 - "$T/j" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"]
assert [x["policy"] for x in r] == ["order0", "mthp:16K,32K,64K", "plugin:mthp-like:16K,32K,64K",
                                    "plugin:dense-first:faults=16", "mthp:16K", "plugin:mthp:16K"], r
assert r[1]["metrics"] == r[2]["metrics"]
assert all(x["run_id"] for x in r)
PY
ok $? "runs named plugin:NAME:ARGS (canonical args), equal to the built-in's"
"$FT" compare "$T/k.db" --format json > "$T/c"
python3 - "$T/c" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [o["policy"] for o in d]
assert names == ["order0", "mthp:16K,32K,64K", "plugin:mthp-like:16K,32K,64K",
                 "plugin:dense-first:faults=16", "mthp:16K", "plugin:mthp:16K"], names
a, b = d[1], d[2]
for k in a:
    if k not in ("policy", "run_id", "elapsed_ns", "created_at"):
        assert a[k] == b[k], k
# the plugin named mthp is its own run, not the built-in's
assert d[4]["faults"] != d[5]["faults"] or d[4]["run_id"] != d[5]["run_id"]
PY
ok $? "compare shows each plugin run beside the built-ins, a plugin named mthp apart from mthp"
"$FT" compare "$T/k.db" --baseline plugin:mthp-like:16K,32K,64K --format json |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert d[0]['policy']=='plugin:mthp-like:16K,32K,64K' and d[0]['baseline']"
ok $? "compare --baseline plugin:mthp-like:16K,32K,64K: the run name as a baseline"
"$FT" compare "$T/k.db" --baseline plugin:mthp:16K --format json |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert d[0]['policy']=='plugin:mthp:16K'"
ok $? "compare --baseline plugin:mthp:16K picks the plugin's run, not mthp:16K's"
"$FT" report "$T/k.db" -o "$T/r.html" > /dev/null
check "report names the plugin runs" sh -c "grep -qF 'plugin:mthp-like:16K,32K,64K' '$T/r.html' && grep -qF 'plugin:dense-first:faults=16' '$T/r.html'"
"$FT" replay "$T/k.db" -q -P plugin:mthp-like:16K,32K,64K > /dev/null 2> "$T/err"
rc=$?
check "a run name is not a plugin to replay: exit 1, one line" sh -c "test $rc = 1 && test \$(wc -l < '$T/err') = 1 && grep -qxF 'foliotrace: policy plugin:mthp-like:16K,32K,64K names stored runs: replay loads plugin:PATH.so[:ARGS]' '$T/err'"

# --- broken plugins: one line, the status, nothing stored ---
cp "$T/k.db" "$T/keep.db"
sum0=$(cksum < "$T/k.db")
printf 'not an ELF file, but long enough for dlopen to read its header: %064d\n' 0 > "$T/text.so"
# bad SPEC STATUS MESSAGE: replay -P SPEC exits STATUS with stderr exactly MESSAGE
bad() {
	"$FT" replay "$T/k.db" -q -P mthp:16K -P "$1" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc != "$2" ] || [ "$(wc -l < "$T/err")" != 1 ] || [ "$(cat "$T/err")" != "$3" ]; then
		diag "exit $rc, stderr: $(cat "$T/err")"
		return 1
	fi
	[ "$(cksum < "$T/k.db")" = "$sum0" ] || { diag "database changed"; return 1; }
}
check "missing .so: exit 2" bad "plugin:$T/none.so" 2 \
	"foliotrace: bad policy 'plugin:$T/none.so': cannot load plugin '$T/none.so': $T/none.so: cannot open shared object file: No such file or directory"
check "not a shared object: exit 2" bad "plugin:$T/text.so" 2 \
	"foliotrace: bad policy 'plugin:$T/text.so': cannot load plugin '$T/text.so': $T/text.so: invalid ELF header"
check "wrong ABI version: exit 2" bad "plugin:$BAD/abi-wrong.so" 2 \
	"foliotrace: bad policy 'plugin:$BAD/abi-wrong.so': plugin '$BAD/abi-wrong.so' has ABI version 2, this foliotrace loads version 1: rebuild it against include/foliotrace/policy.h"
check "no ft_policy symbol: exit 2" bad "plugin:$BAD/no-symbol.so" 2 \
	"foliotrace: bad policy 'plugin:$BAD/no-symbol.so': plugin '$BAD/no-symbol.so' has no symbol 'ft_policy' (include/foliotrace/policy.h)"
check "no get_order hook: exit 2" bad "plugin:$BAD/no-hook.so" 2 \
	"foliotrace: bad policy 'plugin:$BAD/no-hook.so': plugin '$BAD/no-hook.so' (no-hook) has no get_order hook"
check "bad args (the plugin's own reason): exit 2" bad "plugin:$PL/mthp-like.so:48K" 2 \
	"foliotrace: bad policy 'plugin:$PL/mthp-like.so:48K': plugin mthp-like: bad size '48K' (8K..1M, a power of two)"
check "args a run name could not hold: exit 2" bad "plugin:$BAD/mthp.so:lib.so" 2 \
	"foliotrace: bad policy 'plugin:$BAD/mthp.so:lib.so': plugin mthp: its args 'lib.so' hold '.so' before ':' or their end, which a run name cannot"
check "a crash in init: exit 2" bad "plugin:$BAD/misbehave.so:init" 2 \
	"foliotrace: bad policy 'plugin:$BAD/misbehave.so:init': the plugin crashed in init (Segmentation fault)"
# mid-run: the 5000th fault asked is in a later batch than the first (4096 events each)
check "an order outside the allowed mask mid-run: exit 1" bad "plugin:$BAD/misbehave.so:order:5000" 1 \
	"foliotrace: policy plugin:misbehave:order:5000: get_order returned orders 0x200, outside the allowed 0x1fe"
check "a SIGSEGV mid-run: exit 1" bad "plugin:$BAD/misbehave.so:segv:5000" 1 \
	"foliotrace: policy plugin:misbehave:segv:5000: the plugin crashed in get_order (Segmentation fault)"
check "a SIGFPE: exit 1" bad "plugin:$BAD/misbehave.so:fpe:10" 1 \
	"foliotrace: policy plugin:misbehave:fpe:10: the plugin crashed in get_order (Floating point exception)"
check "an abort(): exit 1" bad "plugin:$BAD/misbehave.so:abort:10" 1 \
	"foliotrace: policy plugin:misbehave:abort:10: the plugin crashed in get_order (Aborted)"
n=$("$FT" query "$T/k.db" --format csv sql "SELECT count(*) FROM replay_run" | tail -1)
check "no run stored by any of them (6 runs, as before)" test "$n" = 6
check "the database is byte for byte what it was" cmp "$T/k.db" "$T/keep.db"
"$FT" replay "$T/k.db" -q --check-oracle -P "plugin:$BAD/misbehave.so:segv:5000" > /dev/null 2> "$T/err"
rc=$?
check "a crash under --check-oracle too: exit 1, one line" sh -c "test $rc = 1 && test \$(wc -l < '$T/err') = 1 && grep -qF 'the plugin crashed in get_order (Segmentation fault)' '$T/err'"
"$FT" replay "$T/k.db" -q -P "plugin:$PL/mthp-like.so:16K" > /dev/null 2>&1 &&
	"$FT" replay "$T/k.db" -q -P "plugin:$PL/mthp-like.so:16K" -P "plugin:$BAD/misbehave.so:segv:5000" > /dev/null 2>&1
check "with a crash beside a healthy plugin, neither is stored" test $? = 1 -a \
	"$("$FT" query "$T/k.db" --format csv sql "SELECT count(*) FROM replay_run" | tail -1)" = 8

# --- the simulation-only rule and the help ---
"$FT" guest knob "plugin:$PL/mthp-like.so:16K" > /dev/null 2> "$T/err"
check "guest knob of a plugin: exit 1, simulation only" sh -c "test $? = 1 && grep -q 'simulation-only' '$T/err'"
check "replay --list-policies names plugin:PATH.so[:ARGS]" sh -c "'$FT' replay --list-policies | grep -qxF 'plugin:PATH.so[:ARGS]'"
check "replay --help names it" sh -c "'$FT' replay --help | grep -qF 'plugin:PATH.so[:ARGS]'"
check "the man page names it" grep -q 'plugin:' "$TOP/docs/man/foliotrace-replay.1"
done_testing
