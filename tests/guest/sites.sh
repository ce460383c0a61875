#!/bin/sh
# Guest test: `foliotrace record --sites` (issue 14, docs/sites.md). sites-demo maps
# anonymous memory from four known functions and prints, from its own arithmetic, the
# faults each one's memory takes ("EXPECT fn=NAME faults=N"); query sites must attribute
# exactly that many to each name: built with PT_GNU_EH_FRAME (testprogs/sites-demo-hdr),
# and as the bundled plain `gcc -static` build, which has none (the tracer builds its own
# table from .eh_frame), with the same counts. The dynamically linked build
# (testprogs/sites-demo-dyn) runs in a root filesystem (record's chroot), its sites found
# through the root's libc.so.6 malloc: on x86_64 the host's root; on arm64 the Debian root
# of `foliotrace guest rootfs --arch arm64` (built if missing), as a copy of hard links in
# $T holding the program, so the shared root stays as it is. A stripped copy: unwound (the
# unwind tables stay), no names, module + offset kept, nothing dropped.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan $([ "$ARCH" = x86_64 ] && echo 29 || echo 30)
STRIP=strip
[ "$ARCH" = arm64 ] && STRIP=aarch64-linux-gnu-strip
db=$T/sites.db
# q TRACE SQL: one value; site_call rows of other traces are left out by the view sc
q() {
	"$FT" query "$db" --format csv sql "WITH sc AS (SELECT * FROM site_call WHERE trace_id = $1)
		$2" | tail -n 1
}

cp "$TOP/build/testprogs/$ARCH/sites-demo-hdr" "$T/sites-demo-hdr" || diag "run make first"
"$FT" record --sites --arch "$ARCH" -o "$db" -- "$T/sites-demo-hdr" > "$T/out" 2> "$T/err"
ok $? "record --sites of sites-demo (with .eh_frame_hdr) exits 0"
# counts TRACE RUN_DIR_SUFFIX LABEL: per function, query sites' faults = the workload's own
counts() {
	_wout=$(ls -d "$db".ctf/*-"$2")/workload.out
	for fn in heap_user grow_buffer map_dense map_sparse; do
		want=$(sed -n "s/^EXPECT fn=$fn faults=//p" "$_wout")
		got=$("$FT" query "$db" --trace "$1" --format csv sites |
		      awk -F, -v fn="$fn" '$1 == fn { print $7 }')
		ok $([ -n "$want" ] && [ "$got" = "$want" ]; echo $?) \
			"$3$fn: $got faults attributed, the workload's own count is $want"
	done
}
counts 1 sites-demo-hdr ""
"$FT" query "$db" --trace 1 --format json sites > "$T/json"
ok $(for k in site module regions mapped_bytes touched_pages anon_faults; do
	grep -q "\"$k\":" "$T/json" || exit 1; done; echo 0) \
	"query sites --format json has the documented field names"
# unwound TRACE MODULE LABEL: the (10 or more) stacks whose frame 0 is in MODULE all end "ok"
unwound() {
	_calls=$(q "$1" "SELECT count(*) FROM sc c JOIN site_stack s USING (stack_id)
		JOIN site_frame f ON f.stack_id = s.stack_id AND f.depth = 0
		WHERE f.module LIKE '%/$2'")
	_bad=$(q "$1" "SELECT count(*) FROM sc c JOIN site_stack s USING (stack_id)
		JOIN site_frame f ON f.stack_id = s.stack_id AND f.depth = 0
		WHERE s.status <> 'ok' AND f.module LIKE '%/$2'")
	ok $([ "$_calls" -ge 10 ] && [ "$_bad" = 0 ]; echo $?) \
		"every stack of $3 unwound to its end ($_bad of $_calls did not)"
}
# mmap_stack TRACE FN LABEL: FN's site stack is the wrapper < FN < main
mmap_stack() {
	_stk=$("$FT" query "$db" --trace "$1" --format csv sites --stack |
	     awk -F, -v fn="$2" '$1 == fn { print $6 }')
	ok $(case "$_stk" in "__mmap+0x"*" < $2+0x"*" < main+0x"*) echo 0 ;; *) echo 1 ;;
	     esac) "$3$2's stack: $_stk"
}
unwound 1 sites-demo-hdr sites-demo-hdr
mmap_stack 1 map_dense ""
# no fault lost: the sites' faults are the traced process's anon faults
sum=$(q 1 "SELECT sum(faults) FROM sc")
procs=$(q 1 "SELECT sum(anon_faults) FROM process WHERE trace_id = 1 AND pid IN (SELECT pid FROM sc)")
ok $([ -n "$sum" ] && [ "$sum" = "$procs" ]; echo $?) \
	"the sites' faults sum to the traced process's anon faults ($sum = $procs)"
ok $([ "$(q 1 "SELECT count(*) FROM site_frame WHERE module LIKE '%sites-demo-hdr'
		 AND proc = 'map_sparse' AND module_offset > 0")" -ge 1 ]; echo $?) \
	"frames carry module + offset and procedure name"
# one stop per call (side file version 2): the tracer stopped fewer than twice per call
# (version 1 stopped at every call's entry and exit), and every call of the side file is
# stored, its result taken from the kernel's syscall exit event (no thread died here)
side=$(ls -d "$db".ctf/*-sites-demo-hdr)/sites.txt
calls=$(grep -c '^C' "$side")
stops=$(sed -n 's/^E\t.*\tstops=\([0-9]*\)\t.*/\1/p' "$side")
late=$(sed -n 's/^E\t.*\tlate_reads=\([0-9]*\).*/\1/p' "$side")
ok $([ "$(head -c 4 "$side")" = "$(printf 'V\t2\t')" ] && [ "$calls" -ge 10 ] &&
     [ -n "$stops" ] && [ "$stops" -lt $((2 * calls)) ] && [ "$late" = 0 ]; echo $?) \
	"one stop per call: $stops stops for $calls calls, $late stack reads after a resume"
ok $([ "$(q 1 "SELECT count(*) FROM sc WHERE call <> 'none' AND result IS NOT NULL")" = \
       "$calls" ]; echo $?) "each of the $calls calls is stored with its result"

# the plain static build: no PT_GNU_EH_FRAME; the tracer indexes its .eh_frame itself and
# must attribute exactly what the .eh_frame_hdr build does
"$FT" record --sites --arch "$ARCH" -o "$db" -- sites-demo > "$T/out" 2> "$T/err"
ok $? "record --sites of the plain -static sites-demo exits 0"
counts 2 sites-demo "plain -static: "
unwound 2 sites-demo "the plain -static sites-demo"
mmap_stack 2 map_sparse "plain -static: "
sum=$(q 2 "SELECT sum(faults) FROM sc")
procs=$(q 2 "SELECT sum(anon_faults) FROM process WHERE trace_id = 2 AND
	pid IN (SELECT pid FROM sc)")
ok $([ -n "$sum" ] && [ "$sum" = "$procs" ]; echo $?) "no fault lost ($sum = $procs)"

# dynamically linked, run chrooted in a root: the tracer follows it there
if [ "$ARCH" = x86_64 ]; then
	cp "$TOP/build/testprogs/$ARCH/sites-demo-dyn" "$T/sites-demo-dyn" || diag "run make first"
	"$FT" record --sites --arch "$ARCH" -o "$db" -- "$T/sites-demo-dyn" > "$T/out" 2> "$T/err"
else
	# the arm64 root, linked file by file into $T/root (same file system: no copy of its
	# 2 GB; /usr/src, kbuild's tree, left out), and the program in its /opt
	R=$("$FT" guest rootfs --arch "$ARCH" 2> "$T/err") && mkdir "$T/root" &&
		for d in "$R"/* "$R"/usr/*; do
			case $d in "$R/usr" | "$R/usr/src") continue ;; esac
			mkdir -p "$T/root/$(dirname "${d#"$R"/}")" &&
				cp -al "$d" "$T/root/${d#"$R"/}" || exit 1
		done && mkdir -p "$T/root/usr/src" &&
		cp "$TOP/build/testprogs/$ARCH/sites-demo-dyn" "$T/root/opt/sites-demo-dyn" ||
		{ diag "no arm64 root or no build/testprogs/arm64/sites-demo-dyn:"; diag "$(tail -n 3 "$T/err")"; }
	ok $(aarch64-linux-gnu-readelf -l "$T/root/opt/sites-demo-dyn" 2>/dev/null |
	     grep -q 'interpreter: /lib/ld-linux-aarch64.so.1' &&
	     [ -x "$T/root/lib/ld-linux-aarch64.so.1" ] && [ -f "$T/root/lib/aarch64-linux-gnu/libc.so.6" ]
	     echo $?) "sites-demo-dyn is a dynamically linked AArch64 program; the root has its loader and libc.so.6"
	"$FT" record --sites --arch "$ARCH" --rootfs "$T/root" -o "$db" -- /opt/sites-demo-dyn \
		> "$T/out" 2> "$T/err"
fi
ok $? "record --sites of the dynamically linked sites-demo exits 0"
counts 3 sites-demo-dyn "dynamic "
stack=$("$FT" query "$db" --trace 3 --format csv sites --stack |
	awk -F, '$1 == "grow_buffer" && $6 ~ /^mremap/ { print $6 }')
ok $(case "$stack" in "mremap+0x"*" < realloc+0x"*" < grow_buffer+0x"*) echo 0 ;; *) echo 1 ;;
     esac) "grow_buffer's mremap goes through libc.so.6's realloc: $stack"

# stripped: the same calls, no procedure names
cp "$TOP/build/testprogs/$ARCH/sites-demo-hdr" "$T/sites-demo-strip" &&
	$STRIP "$T/sites-demo-strip"
t=4
"$FT" record --sites --arch "$ARCH" -o "$db" -- "$T/sites-demo-strip" > "$T/out" 2> "$T/err"
ok $? "record --sites of a stripped sites-demo exits 0"
ok $([ "$(q $t "SELECT count(*) FROM sc c JOIN site_frame f ON f.stack_id = c.stack_id
	     WHERE f.module LIKE '%sites-demo-strip' AND f.proc IS NULL AND f.module_offset > 0")" -ge 10 ] &&
     [ "$(q $t "SELECT count(*) FROM site_frame f JOIN sc c ON f.stack_id = c.stack_id
	       WHERE f.module LIKE '%sites-demo-strip' AND f.proc IS NOT NULL")" = 0 ]; echo $?) \
	"its frames have module + offset and no name"
sum=$(q $t "SELECT sum(faults) FROM sc")
procs=$(q $t "SELECT sum(anon_faults) FROM process WHERE trace_id = $t AND
	pid IN (SELECT pid FROM sc)")
ok $([ -n "$sum" ] && [ "$sum" = "$procs" ] &&
     [ "$(q $t "SELECT count(*) FROM sc WHERE site = '[unnamed]' AND site_module LIKE
	       '%sites-demo-strip' AND call <> 'none'")" -ge 10 ]; echo $?) \
	"its calls are [unnamed] sites with module + offset, no fault lost ($sum = $procs)"
done_testing
