#!/bin/sh
# report-sites.sh - the heat map of a process names its VMAs and call sites and shows a
# sparse region as sparse (issue 28 item 3): the x86_64 sparse fixture, whose sparse
# process writes 512 pages at random in a 64M VMA (sparse-sites.inc), with a side file
# saying sparse_fn mapped that VMA (as tests/cli/advise-sites.sh writes them). Expected:
# the region labelled with its start address and size and sparse_fn, cut into 8 bands
# (64M: 32 2M ranges, at most 8 bands) of 2048 pages each, whose faults sum to the VMA's
# and each under 10% of its pages (512 pages over 16384: 3.1% on average).
. "$(dirname "$0")/../test-lib.sh"

plan 6
. "$(dirname "$0")/sparse-sites.inc"
first=$(python3 -c 'import json, sys; print(min(e["ts"] for e in json.load(open(sys.argv[1]))))' "$T/faults.json")
dir=$T/run
cp -r "$FIX" "$dir"
mono=$((first - off - 1000))
{
	printf 'V\t1\t1\n'
	printf 'C\t%s\t%s\t%s\tmmap\t0\t%x\t3\t22\tffffffff\t0\t%s\t2\tok\n' \
		$((mono - 2000)) "$pid" "$pid" "$len" "$start"
	printf 'F\t401234\t/usr/libexec/foliotrace/sparse\t1234\t__mmap\t13\n'
	printf 'F\t401600\t/usr/libexec/foliotrace/sparse\t1600\tsparse_fn\t20\n'
	printf 'E\t%s\t%s\t%s\t0\n' $((mono + 1000000000)) "$pid" "$pid"
} > "$dir/sites.txt"
"$FT" ingest -q -o "$T/s.db" "$dir" && "$FT" replay "$T/s.db" --pid "$pid" -P thp > /dev/null
ok $? "the fixture with a side file: ingested, replayed under thp for the sparse process"
"$FT" report "$T/s.db" --pid "$pid" -o "$T/r.html" > /dev/null
ok $? "report --pid writes the page"
vfaults=$("$FT" query "$T/s.db" --format csv sql "SELECT faults FROM vma WHERE start = $start" | tail -1)
python3 - "$T/r.html" "$start" "$len" "$vfaults" "$pid" > "$T/py.out" 2>&1 <<'PY'
import re, sys
page, start, size, vfaults, pid = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
charts = re.findall(r'<svg id="heat-(\d+)".*?</svg>', page, re.S)
assert len(charts) == 1, len(charts)          # --pid: the one process
svg = re.search(r'<svg id="heat-\d+".*?</svg>', page, re.S).group(0)
assert "pid %s sparse" % pid in svg, "title"
label = "0x%x rw- 64.0M" % start
assert label in svg, label
dens = [(int(a, 16), int(b, 16), int(f), int(p)) for a, b, f, p in
        re.findall(r'<rect class="dens"[^>]*><title>0x([0-9a-f]+)-0x([0-9a-f]+): (\d+) faults over (\d+) pages', svg)]
mine = [d for d in dens if start <= d[0] < start + size]
assert len(mine) == 8 and all(d[3] == 2048 for d in mine), mine
assert sum(d[2] for d in mine) == vfaults, (sum(d[2] for d in mine), vfaults)
assert all(d[2] * 10 < d[3] for d in mine), mine
print("bands", [d[2] for d in mine])
PY
ok $? "the 64M VMA: labelled, 8 bands of 2048 pages, faults summing to vma.faults, each band under 10%"
sed 's/^/# /' "$T/py.out"
check "the region's busiest call site is named under its label and in its bands' hover" sh -c \
	"grep -q 'class=\"vl\" text-anchor=\"end\">sparse_fn</text>' '$T/r.html' && test \$(grep -c 'busiest site sparse_fn' '$T/r.html') -ge 1 &&
	 test \$(grep -o 'busiest site sparse_fn' '$T/r.html' | wc -l) -ge 8"
cells=$(grep -o '<rect class="cell"' "$T/r.html" | wc -l)
check "heat-map cells are drawn, each with its faults on hover ($cells)" sh -c \
	"test $cells -gt 8 && test \$(grep -o '<rect class=\"cell\"[^>]*><title>0x[0-9a-f]*-0x[0-9a-f]*, [0-9.]* m\\?s-[0-9.]* m\\?s: [0-9]* faults</title>' '$T/r.html' | wc -l) = $cells"
done_testing
