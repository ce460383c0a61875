#!/usr/bin/env python3
# bench/pcp-refills.py - which anonymous faults refilled the per-cpu page lists: the
# kernel's count, read off a trace recorded with the buddy allocator's own event, beside a
# model of the list that reads only our anon events (docs/cost-model.md, "Per-cpu list
# refills"):
#
#   FT_EXTRA_EVENTS=kmem_mm_page_alloc_zone_locked foliotrace record --clock icount \
#       -o DB -- CMD
#   python3 bench/pcp-refills.py [--comm NAME] [--high PAGES] DB.ctf/*/trace
#   python3 bench/pcp-refills.py --totals CTF_TRACE_DIR
#
# The kernel's: kmem_mm_page_alloc_zone_locked fires for each block the buddy allocator
# hands out under the zone lock; percpu_refill = 1 marks the blocks of rmqueue_bulk(), a
# per-cpu list refill. A refill belongs to the anon_fault that follows it on its CPU when
# it falls inside that fault's interval (its timestamp less latency_ns, which is short of
# the interval by the interrupt time it left out: interrupts do not refill for a fault).
#
# The model (one cpu; the order-0 movable list, what 4K anonymous folios come from), the
# engines' (replay/pcp.h, metric pcp_refills) written apart from them in Python over the
# raw trace, as 6.1's mm/page_alloc.c runs it: an allocation (a 4K anon_fault that mapped a new folio,
# an anon_cow, an anon_zero_wp) halves free_factor, refills BATCH pages when the list is
# empty, takes one; a free (the last mapping of a page gone: anon_zap munmap, dontneed or
# exit, a COW's old page; fork shares pages) puts one back and, when the count reaches
# HIGH, drains BATCH << free_factor (then free_factor + 1, up to 5), clamped to [BATCH,
# HIGH - BATCH]. BATCH 63 and HIGH 1921 are the x86_64 guest's (2G, 1 cpu:
# /proc/zoneinfo's pagesets); the list starts with --start pages (default 0: the count a
# trace does not hold, which moves where the refills fall, not how many). Pages the trace never saw mapped
# (before it began) are never freed into it, nor are pages of large folios (order 1 and
# up: they go back to the buddy allocator or their own lists).
#
# Per process name (4K faults that mapped a new folio; names with 100 or more): faults,
# the kernel's refills and the model's, the faults both label, and the median latency of
# the faults with a kernel refill and without, and the model's refills at every allocation
# of the name's processes, COWs and zero_wp included (model_all: what `foliotrace replay
# --comm NAME -P order0` of an order0 recording counts as pcp_refills). With --totals, one line instead: the
# model's refills over every process, by the kind of allocation that refilled (what
# calibrate counts, replay/pcp-follow.h, which tests/cli/cost-clock.sh checks against this
# one), as "new=N cow=N zero_wp=N". Traces of both anon_fault layouts (info packed, or its
# fields apart as the first recordings had them). Read with babeltrace2's text output, not
# foliotrace's reader. A recording with the extra event is for counting: the event costs
# about 900 instructions a block, so its refill faults take about 58,000.
import re
import subprocess
import sys
from collections import defaultdict
from statistics import median

USAGE = ("usage: pcp-refills.py [--comm NAME] [--high PAGES] [--start PAGES] [--totals] "
         "CTF_TRACE_DIR")
BATCH, SCALE_MAX = 63, 5
args, comm, high, start, totals = sys.argv[1:], None, 1921, 0, False
while args[:1] in (["--comm"], ["--high"], ["--start"], ["--totals"]):
    if args[0] == "--totals":
        totals, args = True, args[1:]
        continue
    if len(args) < 2:
        sys.exit(USAGE)
    if args[0] == "--comm":
        comm = args[1]
    elif args[0] == "--high":
        high = int(args[1])
    else:
        start = int(args[1])
    args = args[2:]
if len(args) != 1:
    sys.exit(USAGE)


class PcpList:
    """the order-0 movable per-cpu list of one cpu, counted in pages"""

    def __init__(self):
        self.count, self.free_factor, self.refills = start, 0, 0

    def alloc(self):
        """one page taken; return True if it refilled the list"""
        self.free_factor >>= 1
        refilled = self.count == 0
        if refilled:
            self.count += BATCH
            self.refills += 1
        self.count -= 1
        return refilled

    def free(self):
        """one page put back, the list drained above high"""
        self.count += 1
        if self.count >= high:
            n = BATCH << self.free_factor
            if n < high - BATCH and self.free_factor < SCALE_MAX:
                self.free_factor += 1
            self.count -= min(max(n, BATCH), high - BATCH)


pcp = PcpList()
pages = {}  # mm -> {page address: page id}; a page's id is shared by the mms of a fork
refs = {}  # page id -> mappings
next_id = 0


def map_new(mm, addr, track=True):
    """a new page at addr of mm, replacing what was there; a large folio's not followed"""
    global next_id
    old = pages.setdefault(mm, {}).pop(addr, None)
    if old is not None:
        unmap(old)
    if track:
        next_id += 1
        pages[mm][addr] = next_id
        refs[next_id] = 1


def unmap(page):
    refs[page] -= 1
    if not refs[page]:
        del refs[page]
        pcp.free()


ts_re = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\.(\d{9})\]")
name_re = re.compile(r"\) (\w+): \{")
field_re = re.compile(r"(\w+) = (0x[0-9A-Fa-f]+|-?\d+)")
cpu_re = re.compile(r"cpu_id = (\d+)")
cause_re = re.compile(r'cause = \( "(\w+)"')
pending = defaultdict(list)  # cpu -> timestamps of refill blocks since its last anon event
comms = {}  # tid -> name, from the exec events
rows = defaultdict(lambda: {"n": 0, "kernel": 0, "model": 0, "all": 0, "both": 0, "with": [],
                            "without": []})
kinds = {"new": 0, "cow": 0, "zero_wp": 0}  # the model's refills by allocation
bt = subprocess.run(["babeltrace2", args[0]], capture_output=True, text=True, check=True)
for line in bt.stdout.splitlines():
    m, nm = ts_re.match(line), name_re.search(line)
    if not m or not nm:
        continue
    h, mi, s, ns = (int(x) for x in m.groups())
    ts = ((h * 60 + mi) * 60 + s) * 10**9 + ns
    name = nm.group(1)
    cm = cpu_re.search(line)
    cpu = int(cm.group(1)) if cm else 0
    f = {k: int(v, 0) for k, v in field_re.findall(line)}
    if name == "sched_process_fork" and f.get("child_pid") == f.get("child_tid"):
        # a new process is its parent's, name and all, until it execs
        pc = re.search(r'parent_comm = "([^"]*)"', line)
        comms[f["child_pid"]] = comms.get(f["parent_pid"], pc.group(1) if pc else "?")
    elif name == "sched_process_exec":
        fn = re.search(r'filename = "([^"]*)"', line)
        # a re-exec of /proc/self/exe (malloc-churn's) keeps its name, as the kernel's comm
        if fn and not (fn.group(1) == "/proc/self/exe" and f["tid"] in comms):
            comms[f["tid"]] = fn.group(1).rsplit("/", 1)[-1]
    elif name == "kmem_mm_page_alloc_zone_locked":
        if f.get("percpu_refill"):
            pending[cpu].append(ts)
    elif name == "anon_fault":
        if "info" in f:
            info = f["info"]
            order, zero, ptes = (info >> 8) & 0xFF, (info >> 16) & 0xFF, (info >> 32) & 0xFFFF
        else:
            order, zero, ptes = f["order"], f["zero_page"], f["nr_ptes"]
        kernel = any(t >= ts - f["latency_ns"] for t in pending[cpu])
        pending[cpu] = []
        if zero or not ptes:
            continue
        first = f["address"] & ~((4096 << order) - 1)
        for i in range(1 << order):
            map_new(f["mm"], first + 4096 * i, not order)
        if order:
            continue
        model = pcp.alloc()
        kinds["new"] += model
        pname = comms.get(f["pid_tid"] >> 32 if "pid_tid" in f else f["pid"], "?")
        if comm and pname != comm:
            continue
        r = rows[pname]
        r["all"] += model
        r["n"] += 1
        r["kernel"] += kernel
        r["model"] += model
        r["both"] += kernel and model
        r["with" if kernel else "without"].append(f["latency_ns"])
    elif name.startswith("anon_") or name.startswith("sched_"):
        pending[cpu] = []
        if name in ("anon_cow", "anon_zero_wp"):
            # the copy is allocated before the old page is freed (wp_page_copy())
            model = pcp.alloc()
            kinds[name[5:]] += model
            pname = comms.get(f["pid_tid"] >> 32 if "pid_tid" in f else f["pid"], "?")
            if not comm or pname == comm:
                rows[pname]["all"] += model
            map_new(f["mm"], f["address"] & ~4095)
        elif name == "anon_mm_dup":
            child = pages.setdefault(f["mm"], {})
            for page in child.values():
                unmap(page)
            child.clear()
            for addr, page in pages.get(f["parent_mm"], {}).items():
                child[addr] = page
                refs[page] += 1
        elif name == "anon_zap":
            cause = cause_re.search(line).group(1)
            d = pages.get(f["mm"], {})
            hit = [a for a in d if f["start"] <= a < f["end"]]
            if cause == "mremap":
                d.update({a - f["start"] + f["new_addr"]: d.pop(a) for a in hit})
            elif cause != "free":
                for a in hit:
                    unmap(d.pop(a))

if totals:
    print("new=%d cow=%d zero_wp=%d" % (kinds["new"], kinds["cow"], kinds["zero_wp"]))
    sys.exit(0)
print("comm            faults kernel_refills model_refills both med_with med_without model_all")
for pname in sorted(rows):
    r = rows[pname]
    if r["n"] < 100 and not comm:
        continue
    print("%-14s %7d %14d %13d %4d %8s %11s %9d" % (
        pname, r["n"], r["kernel"], r["model"], r["both"],
        "%d" % median(r["with"]) if r["with"] else "-",
        "%d" % median(r["without"]) if r["without"] else "-", r["all"]))
