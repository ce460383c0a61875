# bench/kbuild-overhead.awk - bench/kbuild-overhead.sh's summary of its run lines (with bench/median.awk)
{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	m = f["mode"]; n[m]++; t[m, n[m]] = f["seconds"]
}
END {
	if (!n["plain"] || !n["traced"] || !n["unbatched"]) {
		print "bench/kbuild-overhead.sh: missing runs" > "/dev/stderr"
		exit 1
	}
	for (k = 1; k <= n["plain"]; k++) p[k] = t["plain", k]
	pm = median(p, n["plain"])
	split("unbatched traced", order, " ")
	for (o = 1; o <= 2; o++) {
		m = order[o]
		for (k = 1; k <= n[m]; k++) q[k] = t[m, k]
		r[m] = median(q, n[m]) / pm
		printf "kbuild  untraced %8.2f s  %-9s %8.2f s  ratio %.3f (medians of %d)\n", pm,
		       m, median(q, n[m]), r[m], n[m]
	}
	printf "overhead_kbuild_unbatched=%.3f\n", r["unbatched"]
	printf "overhead_kbuild=%.3f\n", r["traced"]
}