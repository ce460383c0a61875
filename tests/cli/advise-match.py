#!/usr/bin/env python3
# advise-match.py ADVISE.json SITES.json TOTAL.json: exit 0 if the persite run among the runs
# of `compare --by site --format json` (SITES) and `compare --format json` (TOTAL), the
# replay of the file `advise -o` wrote, shows what `advise --format json` (ADVISE)
# predicted: for every site advise lists, its faults and bloat_bytes (SITES' rows of the
# site summed over its modules; a site without a row took nothing), and advise's "advice"
# run's faults, bloat_bytes and peak_rss_bytes as the run's totals (docs/sites.md, "An
# order per site"). Else print what differs and exit 1. Used by tests/cli/advise-sites.sh
# and tests/guest/sites-kv-redis.sh.
import json
import sys

adv = json.load(open(sys.argv[1]))
sites = json.load(open(sys.argv[2]))
pols = [r["policy"] for r in json.load(open(sys.argv[3])) if r["policy"].startswith("persite:")]
if len(pols) != 1 or not adv["sites"]:
    sys.exit("want one persite run and advised sites: runs %s, %d sites" % (pols, len(adv["sites"])))
run = [r for r in json.load(open(sys.argv[3])) if r["policy"] == pols[0]][0]
got = {}
for r in sites:
    if r["policy"] == pols[0]:
        g = got.setdefault(r["site"], [0, 0])
        g[0] += r["faults"]
        g[1] += r["bloat_bytes"]
bad = ["%s: advise %d faults %d bloat, compare %d %d" %
       ((s["site"], s["faults"], s["bloat_bytes"]) + tuple(got.get(s["site"], [0, 0])))
       for s in adv["sites"] if got.get(s["site"], [0, 0]) != [s["faults"], s["bloat_bytes"]]]
prog = [r for r in adv["program"] if r["run"] == "advice"][0]
for k in ("faults", "bloat_bytes", "peak_rss_bytes"):
    if prog[k] != run[k]:
        bad.append("program %s: advise %d, the run %d" % (k, prog[k], run[k]))
if bad:
    sys.exit("; ".join(bad[:5]))
print("%d sites, %d faults" % (len(adv["sites"]), run["faults"]))
