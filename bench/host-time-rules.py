#!/usr/bin/env python3
# bench/host-time-rules.py - one bench/host-time.sh run's measured changes of host kernel
# time beside the changes predicted by other rules for cold faults (docs/cost-model.md,
# "Cold faults"), with the same host models (DIR/model-N.db, the Nth command's) and the
# same measurement, so that the rules are compared on one run and not across the load:
#   icount   the recording on the icount clock, cold after 80,000 instructions (the bench's
#            default since 2026-12-03)
#   tcg      the recording on TCG's clock, cold after 60 us
#   no-cold  the icount recording with the model's cold_ns set NULL: no fault priced cold
# A rule's recording missing in DIR (rec-6.1[-icount]-CKSUM.db), or for icount and tcg a
# model without cold_ns (the bench run without -C): its column is "-", and a rule with no
# prediction at all has no last lines. Run
# it on the bench's DIR before another run of the bench replaces DIR/model-N.db: a model
# whose new_ns is not the one OUT's MODEL line printed is refused.
#
#   python3 bench/host-time-rules.py DIR OUT    (OUT: the bench's standard output)
#
# Per command and size: measured %, then per rule predicted % and gap in points; last
# lines `sum_time_gap_points_RULE=X` (over every command and size) and
# `worst_time_gap_points_RULE=X`.
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FT = os.path.join(TOP, "build", "foliotrace")
RULES = ("icount", "tcg", "no-cold")


def cksum(s):
    return subprocess.run(["cksum"], input=s.encode(), capture_output=True,
                          check=True).stdout.split()[0].decode()


def predict(rec, model, sizes):
    """fault_time_ns per policy of rec replayed under order0 and mthp:S with model"""
    cmd = [FT, "replay", rec, "--format", "json", "-q", "-n", "--cost-model", "native",
           "--model-from", model]
    for s in sizes:
        cmd += ["-P", "mthp:%s" % s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return {r["policy"]: r["metrics"]["fault_time_ns"] for r in json.loads(out)["runs"]}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: python3 bench/host-time-rules.py DIR OUT")
    d, out = sys.argv[1], sys.argv[2]
    pat = re.compile(r'^TIME cmd="(.*)" size=(\S+) sys_4k_ms=(\S+) sys_ms=\S+ real=(\S+)%')
    cmds, rows, printed = [], [], []
    for line in open(out):
        f = line.split()
        if len(f) > 5 and f[0] == "MODEL" and re.match(r"^[0-9.]+$", f[5]):
            printed.append(float(f[5]))		# the model's new_ns, in command order
        m = pat.match(line)
        if m:
            if m.group(1) not in cmds:
                cmds.append(m.group(1))
            rows.append((m.group(1), m.group(2), float(m.group(3)), float(m.group(4))))
    if not rows:
        sys.exit("host-time-rules.py: no TIME lines in %s" % out)
    tmp = tempfile.mkdtemp()
    worst = {r: 0.0 for r in RULES}
    total = {r: 0.0 for r in RULES}
    try:
        pred = {}
        for i, c in enumerate(cmds, 1):
            model = os.path.join(d, "model-%d.db" % i)
            db = sqlite3.connect("file:%s?mode=ro" % model, uri=True)
            row = db.execute("SELECT new_ns, cold_ns FROM cost_model WHERE clock = 'native'"
                             " ORDER BY fitted_at DESC LIMIT 1").fetchone()
            db.close()
            new_ns = row[:1] if row else None
            has_cold = bool(row and row[1] is not None)
            if (i > len(printed) or not new_ns or
                    abs(new_ns[0] - printed[i - 1]) > 1e-4 * printed[i - 1]):
                sys.exit("host-time-rules.py: %s is not the model %s printed for command %d"
                         " (new_ns %s, printed %s): rerun the bench" %
                         (model, out, i, new_ns[0] if new_ns else "none",
                          printed[i - 1] if i <= len(printed) else "none"))
            nocold = os.path.join(tmp, "nocold-%d.db" % i)
            shutil.copy(model, nocold)
            db = sqlite3.connect(nocold)
            db.execute("UPDATE cost_model SET cold_ns = NULL")
            db.commit()
            db.close()
            sizes = [s for (cc, s, _, _) in rows if cc == c]
            ck = cksum(c)
            for rule, rec, m in (("icount", "rec-6.1-icount-%s.db" % ck, model),
                                 ("tcg", "rec-6.1-%s.db" % ck, model),
                                 ("no-cold", "rec-6.1-icount-%s.db" % ck, nocold)):
                rec = os.path.join(d, rec)
                # a model of no cold_ns (the bench without -C) prices no rule's cold faults
                if os.path.exists(rec) and (rule == "no-cold" or has_cold):
                    # replayed from a copy: replay may migrate a kept database
                    copy = os.path.join(tmp, "rec.db")
                    shutil.copy(rec, copy)
                    pred[(c, rule)] = predict(copy, m, sizes)
        print("%-8s %-5s %9s  %s" % ("command", "size", "measured",
                                      "  ".join("%-16s" % r for r in RULES)))
        for c, s, base_ms, real in rows:
            cells = []
            for rule in RULES:
                p = pred.get((c, rule))
                if not p:
                    cells.append("%-16s" % "-")
                    continue
                pct = 100 * (p["mthp:" + s] - p["order0"]) / 1e6 / base_ms
                gap = abs(real - pct)
                worst[rule] = max(worst[rule], gap)
                total[rule] += gap
                cells.append("%6.1f%% (%4.1f)  " % (pct, gap))
            name = c.split()[0].split("/")[-1] if "kbuild" not in c else "kbuild"
            print("%-8s %-5s %8.1f%%  %s" % (name, s, real, "  ".join(cells)))
        # a rule none of whose recordings is in DIR has no last lines (not a gap of 0)
        met = [r for r in RULES if any(rule == r for (_, rule) in pred)]
        for rule in met:
            print("sum_time_gap_points_%s=%.1f" % (rule.replace("-", "_"), total[rule]))
        for rule in met:
            print("worst_time_gap_points_%s=%.1f" % (rule.replace("-", "_"), worst[rule]))
    finally:
        shutil.rmtree(tmp)


main()
