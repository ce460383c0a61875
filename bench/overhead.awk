# bench/overhead.awk - bench/overhead.sh's summary of its run lines (with bench/median.awk)
{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	w = f["name"]; m = f["mode"]
	if (!(w in seen)) { seen[w] = 1; order[++nw] = w }
	if (!(m in mseen)) { mseen[m] = 1; morder[++nm] = m }
	k = w SUBSEP m; n[k]++; t[k, n[k]] = f["seconds"]
	if (m == "traced" && f["discarded"] != 0) bad = bad " " w ": " f["discarded"] " discarded"
	if (m == "plain") mf[w, f["round"]] = f["minflt"]
	else if (f["minflt"] != mft[w, f["round"], "any"] && mft[w, f["round"], "any"] != "")
		mft[w, f["round"], "bad"] = 1
	else mft[w, f["round"], "any"] = f["minflt"]
	rounds[w, f["round"]] = 1
}
END {
	for (r in rounds) { split(r, x, SUBSEP); if (mf[x[1], x[2]] != mft[x[1], x[2], "any"] || mft[x[1], x[2], "bad"])
		bad = bad " " x[1] " round " x[2] ": minflt " mf[x[1], x[2]] " untraced, " mft[x[1], x[2], "any"] " traced" }
	if (bad != "") { print "bench/overhead.sh:" bad > "/dev/stderr"; exit 1 }
	worst = 0
	for (i = 1; i <= nw; i++) {
		w = order[i]
		for (j = 1; j <= n[w, "plain"]; j++) p[j] = t[w, "plain", j]
		mp = median(p, n[w, "plain"])
		for (mi = 1; mi <= nm; mi++) {
			m = morder[mi]
			if (m == "plain" || !n[w, m]) continue
			for (j = 1; j <= n[w, m]; j++) q[j] = t[w, m, j]
			mq = median(q, n[w, m])
			r = mp > 0 ? mq / mp : 0
			printf "%-13s untraced %7.2f s  %-8s %7.2f s  ratio %.3f (medians of %d)\n", w, mp, m, mq, r, n[w, "plain"]
			if (m != "traced") continue
			if (w == "pf-loop") pf = r
			else if (r > worst) { worst = r; wn = w }
		}
	}
	printf "overhead_pfloop=%.3f\n", pf
	printf "overhead_worst=%.3f workload=%s\n", worst, wn
}