#!/bin/sh
# kprofile-classes.sh - bench/kprofile-classes.awk, which bench/host-kprofile.sh uses to
# put a kernel profile's samples in classes by their call chains (the first class, in the
# documented order, whose functions the chain holds), and bench/kprofile-leaves.awk, which
# counts them by leaf function (host-kprofile.sh -l).
#
# 1. tests/data-kprofile/x86_64-6.18-kbuild-4k.perfscript, REAL: `perf script -F
#    comm,ip,sym` of one `perf record -g -e cpu-clock:k -a -G GROUP` run of the bundled
#    kbuild on Linux 6.18 (x86_64; mTHP sizes never, PMD THP madvise), cut to at most 12
#    samples of each class, in their order (2026-12-04): every
#    class met, the samples all counted, and each class's count equal to the one a
#    separate reading of the same rules (Python, a sample per blank-line-separated
#    paragraph) gives.
# 2. Chains that hold the functions of two classes go to the earlier one: an exit's zap
#    (under do_exit) is teardown, a fault's zeroing under exc_page_fault is fault:anon,
#    and a fault's own entry, with no handler below it, is fault:entry:
#    tests/data-kprofile/synthetic-order.perfscript, SYNTHETIC (chains of Linux 6.18's
#    function names put together by hand, in perf script's format), each sample's class
#    written in its task name.
# 3. The leaves of the REAL profile: each function's count equal to a separate reading's
#    (Python: the first frame of each paragraph), every sample counted once.
. "$(dirname "$0")/../test-lib.sh"

D=$TOP/tests/data-kprofile
CLASSES="fault:anon fault:entry fault:cow fault:file teardown exec fork exit mmap rw syscall other"

plan 8
awk -f "$TOP/bench/kprofile-classes.awk" "$D/x86_64-6.18-kbuild-4k.perfscript" |
	sort > "$T/awk.out"
python3 - "$D/x86_64-6.18-kbuild-4k.perfscript" > "$T/py.out" <<'PY'
import re, sys
# the rules of bench/kprofile-classes.awk, in its order
rules = [
    ("teardown", "exit_mmap do_vmi_munmap vms_complete_munmap_vmas unmap_region"),
    ("fault:anon", "do_anonymous_page alloc_anon_folio"),
    ("fault:cow", "do_wp_page wp_page_copy"),
    ("fault:file", "do_read_fault do_cow_fault do_shared_fault filemap_map_pages filemap_fault"),
    ("fault:entry", "exc_page_fault asm_exc_page_fault"),
    ("exec", "do_execveat_common bprm_execve"),
    ("fork", "copy_process"),
    ("exit", "do_exit"),
    ("mmap", "ksys_mmap_pgoff vm_mmap_pgoff __do_sys_brk __x64_sys_brk"),
    ("rw", "ksys_read ksys_write vfs_read vfs_write"),
    ("syscall", "do_syscall_64"),
]
count = {}
for para in open(sys.argv[1]).read().split("\n\n"):
    lines = [l for l in para.split("\n") if l.strip()]
    if not lines:
        continue
    funcs = set()
    for l in lines[1:]:
        f = l.split()
        funcs.add(re.sub(r"\+0x[0-9a-f]+$", "", f[1]))
    c = next((c for c, fs in rules if funcs & set(fs.split())), "other")
    count[c] = count.get(c, 0) + 1
for c in sorted(count):
    print(c, count[c])
PY
check "the awk's counts are the Python reading's" cmp "$T/awk.out" "$T/py.out"
n=$(grep -c '^[^[:space:]]' "$D/x86_64-6.18-kbuild-4k.perfscript")
sum=$(awk '{ s += $2 } END { print s + 0 }' "$T/awk.out")
check "every sample is counted once ($sum of $n)" test "$sum" = "$n"
missing=
for c in $CLASSES; do
	grep -q "^$c " "$T/awk.out" || missing="$missing $c"
done
check "the REAL kbuild profile meets every class (missing:${missing:- none})" test -z "$missing"
check "its fault:anon samples hold do_anonymous_page" \
	test "$(awk '$1 == "fault:anon" { print $2 }' "$T/awk.out")" -gt 0

# synthetic-order.perfscript's samples each begin "NAME-CLASS": the class the sample must get
sed -n 's/^[^ ]*-\([a-z:]*\) .*/\1/p' "$D/synthetic-order.perfscript" | sort | uniq -c |
	awk '{ print $2, $1 }' | sort > "$T/want"
awk -f "$TOP/bench/kprofile-classes.awk" "$D/synthetic-order.perfscript" | sort > "$T/got"
check "chains of two classes go to the earlier one" cmp "$T/want" "$T/got"
printf 'cc1 \n\t ffffffff81000000 exc_page_fault+0x10\n' |
	awk -f "$TOP/bench/kprofile-classes.awk" > "$T/last"
check "a last sample with no blank line after it is counted" \
	test "$(cat "$T/last")" = "fault:entry 1"

awk -f "$TOP/bench/kprofile-leaves.awk" "$D/x86_64-6.18-kbuild-4k.perfscript" | sort > "$T/leaf.awk"
python3 - "$D/x86_64-6.18-kbuild-4k.perfscript" > "$T/leaf.py" <<'PY'
import re, sys
count = {}
for para in open(sys.argv[1]).read().split("\n\n"):
    lines = [l for l in para.split("\n") if l.strip()]
    if len(lines) < 2:
        continue
    f = re.sub(r"\+0x[0-9a-f]+$", "", lines[1].split()[1])
    count[f] = count.get(f, 0) + 1
for f in sorted(count):
    print(f, count[f])
PY
LC_ALL=C sort -o "$T/leaf.awk" "$T/leaf.awk"
LC_ALL=C sort -o "$T/leaf.py" "$T/leaf.py"
check "the leaf counts are the Python reading's" cmp "$T/leaf.awk" "$T/leaf.py"
sum=$(awk '{ s += $2 } END { print s + 0 }' "$T/leaf.awk")
check "every sample has one leaf ($sum of $n)" test "$sum" = "$n"
done_testing
