#!/usr/bin/env python3
# bench/pcp-refills.py - which anonymous faults refilled the per-cpu page lists, read off a
# trace recorded with the buddy allocator's own event (docs/cost-model.md, "Per-cpu list
# refills"):
#
#   FT_EXTRA_EVENTS=kmem_mm_page_alloc_zone_locked foliotrace record --clock icount \
#       -o DB -- CMD
#   python3 bench/pcp-refills.py [--comm NAME] DB.ctf/*/trace
#
# kmem_mm_page_alloc_zone_locked fires for each block the buddy allocator hands out under
# the zone lock; percpu_refill = 1 marks the blocks of rmqueue_bulk(), i.e. a per-cpu list
# refill. A refill belongs to the anon_fault that follows it on its CPU when it falls
# inside that fault's interval (its timestamp minus latency_ns, which is short of the
# interval by the interrupt time it left out: interrupts do not refill for a fault). Per
# folio order of the faults that allocated one (anon_fault's order, nr_ptes > 0, not the
# zero page): faults, those that refilled, faults per refill, blocks per refill, and the
# median and mean latency of the faults with a refill and without. Read with babeltrace2's
# text output, not foliotrace's reader.
import re
import subprocess
import sys
from collections import defaultdict
from statistics import mean, median

args = sys.argv[1:]
comm = None
if args[:1] == ["--comm"]:
    if len(args) < 3:
        sys.exit("usage: pcp-refills.py [--comm NAME] CTF_TRACE_DIR")
    comm, args = args[1], args[2:]
if len(args) != 1:
    sys.exit("usage: pcp-refills.py [--comm NAME] CTF_TRACE_DIR")

ts_re = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\.(\d{9})\]")
field_re = re.compile(r"(\w+) = (0x[0-9A-Fa-f]+|-?\d+)")
cpu_re = re.compile(r"cpu_id = (\d+)")
name_re = re.compile(r"\) (\w+): \{")

pending = defaultdict(list)  # cpu -> [(ts, order, migratetype)] of refill blocks since
# its last anon_fault
comms = {}  # tid -> comm, from the statedump and exec events
rows = defaultdict(lambda: {"with": [], "without": [], "blocks": 0})
bt = subprocess.run(["babeltrace2", args[0]], capture_output=True, text=True, check=True)
for line in bt.stdout.splitlines():
    m = ts_re.match(line)
    if not m:
        continue
    h, mi, s, ns = (int(x) for x in m.groups())
    ts = ((h * 60 + mi) * 60 + s) * 10**9 + ns
    nm = name_re.search(line)
    name = nm.group(1) if nm else ""
    cpu = int(cpu_re.search(line).group(1)) if cpu_re.search(line) else 0
    f = {k: int(v, 0) for k, v in field_re.findall(line)}
    if name == "lttng_statedump_process_state" or name == "sched_process_exec":
        cm = re.search(r'(?:name|filename) = "([^"]*)"', line)
        # a re-exec of /proc/self/exe (malloc-churn's) keeps its name, as the kernel's
        # comm does
        if cm and "tid" in f and not (cm.group(1) == "/proc/self/exe" and f["tid"] in comms):
            comms[f["tid"]] = cm.group(1).rsplit("/", 1)[-1]
    elif name == "kmem_mm_page_alloc_zone_locked":
        if f.get("percpu_refill"):
            pending[cpu].append((ts, f["order"], f["migratetype"]))
    elif name == "anon_fault":
        info = f["info"]
        order, zero, ptes = (info >> 8) & 0xFF, (info >> 16) & 0xFF, (info >> 32) & 0xFFFF
        tid = f["pid_tid"] & 0xFFFFFFFF
        start = ts - f["latency_ns"]
        inside = [b for b in pending[cpu] if b[0] >= start]
        pending[cpu] = []
        if zero or not ptes or (comm and comms.get(tid) != comm):
            continue
        r = rows[order]
        r["with" if inside else "without"].append(f["latency_ns"])
        r["blocks"] += len(inside)
    elif name.startswith("anon_") or name.startswith("sched_"):
        pending[cpu] = []

print("order faults refilled faults_per_refill blocks_per_refill"
      " med_with med_without mean_with mean_without")
for order in sorted(rows):
    r = rows[order]
    w, wo = r["with"], r["without"]
    n = len(w) + len(wo)
    print("%5d %6d %8d %17s %17s %8s %11s %9s %12s" % (
        order, n, len(w), "%.1f" % (n / len(w)) if w else "-",
        "%.1f" % (r["blocks"] / len(w)) if w else "-",
        "%d" % median(w) if w else "-", "%d" % median(wo) if wo else "-",
        "%d" % mean(w) if w else "-", "%d" % mean(wo) if wo else "-"))
