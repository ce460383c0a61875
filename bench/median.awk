# bench/median.awk - median(a, n): the median of a[1..n], which it sorts (insertion sort:
# the benches' few rounds). For `awk -f bench/median.awk -f PROGRAM`: bench/overhead.sh,
# bench/kbuild-overhead.sh.
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return a[int((n + 1) / 2)]
}
