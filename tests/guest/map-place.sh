#!/bin/sh
# Guest test: where an anonymous mmap() without an address hint lands, as the trace shows it,
# on the 6.1 and the 6.12 guest (issue 25). tests/guest/map-place.c maps A (1 MiB), then B
# (4 MiB) and C (4 MiB + 4 KiB); B is MAP_NORESERVE so its VMA merges with neither.
#
# The rule, from the source: 6.12.117's __get_unmapped_area() (mm/mmap.c) sends a private
# anonymous mapping with no address hint and a length that is a multiple of PMD_SIZE
# (2 MiB here, IS_ALIGNED(len, PMD_SIZE)) to thp_get_unmapped_area_vmflags()
# (mm/huge_memory.c), which asks for len + 2 MiB and returns a 2 MiB-aligned address inside
# it, whatever THP's enabled setting; any other length gets mm_get_unmapped_area_vmflags(),
# top-down, right below the mapping before. 6.1 has no such rule for anonymous memory:
# every mapping goes right below the one before. So on 6.12 B starts 2 MiB-aligned and C
# ends where B starts; on 6.1 B ends where A starts and C where B starts.
# FT_TEST_ARCH=arm64 runs it on the arm64 guest.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 8
cp "$TOP/build/testprogs/$ARCH/map-place" "$T/map-place" || diag "run make first"
# vma LEN: the trace's VMA of map-place with that length, as start,end (hex), from
# $T/vmas-$k.csv
vma() {
	awk -F, -v len="$1" '$4 == "map-place" && $7 == len { print $5 "," $6 }' \
		"$T/vmas-$k.csv" | head -n 1
}
hexv() { printf '%d' "$1"; }
for k in 6.1 6.12; do
	db=$T/place-$k.db
	"$FT" record --arch "$ARCH" --kernel "$k" -o "$db" -- "$T/map-place" > "$T/out" 2> "$T/err"
	rc=$?
	ok $rc "record of map-place on the $ARCH $k guest"
	[ $rc = 0 ] || sed 's/^/#   /' "$T/err" | tail -5
	# the trace's VMAs of the process, by length: A, B, C
	"$FT" query "$db" vmas --format csv > "$T/vmas-$k.csv"
	A=$(vma 1048576) B=$(vma 4194304) C=$(vma 4198400)
	diag "$k: A $A, B $B, C $C; the program printed: $(grep '^MAP' "$db".ctf/*/workload.out | cut -d' ' -f2- | tr '\n' ';')"
	ok $([ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] &&
		grep -q "^MAP B ${B%,*} ${B#*,}$" "$db".ctf/*/workload.out; echo $?) \
		"$k: the trace has the three VMAs, B where the program says it mapped it ($B)"
	bs=$(hexv "${B%,*}") be=$(hexv "${B#*,}") ce=$(hexv "${C#*,}") as=$(hexv "${A%,*}")
	if [ "$k" = 6.12 ]; then
		ok $([ $((bs % 2097152)) = 0 ]; echo $?) \
			"6.12: B (4 MiB, a multiple of 2 MiB) starts 2 MiB-aligned (${B%,*})"
		ok $([ "$ce" = "$bs" ] && [ $(( (ce - 4198400) % 2097152 )) != 0 ]; echo $?) \
			"6.12: C (4 MiB + 4 KiB) is not aligned: right below B (ends at ${C#*,})"
	else
		ok $([ "$be" = "$as" ]; echo $?) \
			"6.1: B ends where A starts (${B#*,} = ${A%,*}): no alignment, right below A"
		ok $([ "$ce" = "$bs" ]; echo $?) \
			"6.1: C ends where B starts (${C#*,})"
	fi
done
done_testing
