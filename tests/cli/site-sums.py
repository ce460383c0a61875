#!/usr/bin/env python3
# site-sums.py SITES.json TOTAL.json: exit 0 if, for every run of `compare --format json`
# (TOTAL), the rows of `compare --by site --format json` (SITES) of its policy sum to its
# faults, bloat, zeroed bytes and peak RSS, each peak_rss_share is the row's RSS at the
# peak over that peak, and the shares sum to 1 (docs/sites.md, "Per-site metrics"). Used
# by tests/cli/compare-sites.sh and tests/guest/sites-kv-redis.sh.
import json
import sys

sites = json.load(open(sys.argv[1]))
for run in json.load(open(sys.argv[2])):
    rows = [r for r in sites if r["policy"] == run["policy"]]
    if not rows:
        sys.exit("no per-site rows for " + run["policy"])
    for a, b in (("faults", "faults"), ("bloat_bytes", "bloat_bytes"),
                 ("zeroed_bytes", "zeroed_bytes"), ("rss_at_peak_bytes", "peak_rss_bytes")):
        if sum(r[a] for r in rows) != run[b]:
            sys.exit("%s: the sites' %s sum to %d, the run's %s is %d" %
                     (run["policy"], a, sum(r[a] for r in rows), b, run[b]))
    for r in rows:
        if abs(r["peak_rss_share"] - r["rss_at_peak_bytes"] / run["peak_rss_bytes"]) > 1e-9:
            sys.exit("%s: %s's peak_rss_share is wrong" % (run["policy"], r["site"]))
    if abs(sum(r["peak_rss_share"] for r in rows) - 1) > 1e-9:
        sys.exit(run["policy"] + ": the shares do not sum to 1")
