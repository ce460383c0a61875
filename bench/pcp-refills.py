#!/usr/bin/env python3
# bench/pcp-refills.py - which anonymous faults refilled the per-cpu page lists: the
# kernel's count, read off a trace recorded with the buddy allocator's own event, beside a
# model of the lists that reads only our anon events (docs/cost-model.md, "Per-cpu list
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
# The model (one cpu; the movable lists of orders 0 to 3, what anonymous folios up to 32K
# come from), the engines' (replay/pcp.h, metrics pcp_refills and pcp_refill_blocks)
# written apart from them in Python over the raw trace, as 6.1's mm/page_alloc.c runs
# it: an allocation of order k (an anon_fault that mapped a new folio of order k, an
# anon_cow or anon_zero_wp of order 0) halves free_factor, refills max(BATCH >> k, 2)
# blocks when list k is empty, takes one; a free (the last mapping of a folio's pages
# gone: anon_zap munmap, dontneed or exit, a COW's old page; fork shares pages) puts its
# block back on its list (an event's frees after its allocation, order 0's first) and,
# when the count of pages on all lists reaches HIGH, drains BATCH << free_factor pages
# (then free_factor + 1, up to 5), clamped to [BATCH, HIGH - BATCH], from the freeing
# list first, then round the others; a block of order 1-3 freed while free_factor is not
# 0 drains them all (free_high). BATCH 63 and HIGH 1921 are the x86_64 guest's (2G, 1
# cpu: /proc/zoneinfo's pagesets); the order-0 list starts with --start pages (default 0:
# the count a trace does not hold, which moves where the refills fall, not how many).
# Pages the trace never saw mapped (before it began) are never freed into it, nor are
# folios of order 4 and up (the buddy allocator's).
#
# Per process name and folio order (faults that mapped a new folio; 100 or more, or any
# with --comm): faults, the kernel's refills (blocks of that order under percpu_refill)
# and the model's, the faults both label, and the median latency of the faults with a
# kernel refill and without, and (order 0's line) the model's refills at every
# allocation of the name's processes, of every order, COWs and zero_wp included
# (model_all: what `foliotrace replay --comm NAME -P order0` of an order0 recording counts
# as pcp_refills). With --totals, one line instead: the model's refills over every
# process, by the kind of allocation that refilled (what calibrate counts,
# replay/pcp-follow.h, which tests/cli/cost-clock.sh checks against this one), as
# "new=N cow=N zero_wp=N new1=N new2=N new3=N" (new: 4K faults; newK: faults of order
# K). Traces of both anon_fault layouts (info packed, or its
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
BATCH, SCALE_MAX, ORDERS = 63, 5, 4
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


def batch(order):
    """blocks a refill of order's list takes"""
    return max(BATCH >> order, 2)


class PcpLists:
    """the movable per-cpu lists of orders 0 to 3 of one cpu: blocks each, pages in all"""

    def __init__(self):
        self.blocks = [start, 0, 0, 0]
        self.count, self.free_factor = start, 0

    def alloc(self, order):
        """one block of order taken; return True if it refilled its list"""
        self.free_factor >>= 1
        refilled = self.blocks[order] == 0
        if refilled:
            self.blocks[order] += batch(order)
            self.count += batch(order) << order
        self.blocks[order] -= 1
        self.count -= 1 << order
        return refilled

    def drain(self, order, pages):
        """free_pcppages_bulk(): pages off the lists, order's first, then round the others"""
        left = min(pages, self.count)
        while left > 0:
            while not self.blocks[order]:
                order = (order + 1) % ORDERS
            while left > 0 and self.blocks[order]:
                self.blocks[order] -= 1
                self.count -= 1 << order
                left -= 1 << order

    def free(self, order):
        """one block put back on its list, the lists drained above high"""
        self.blocks[order] += 1
        self.count += 1 << order
        if self.free_factor and order:
            self.drain(order, self.count)
            return
        if self.count >= high:
            n = BATCH << self.free_factor
            if n < high - BATCH and self.free_factor < SCALE_MAX:
                self.free_factor += 1
            self.drain(order, min(max(n, BATCH), high - BATCH))


pcp = PcpLists()
pages = {}  # mm -> {page address: folio id}; a folio's id is shared by the mms of a fork
refs = {}  # folio id -> [mappings of its pages, its order]
freed = []  # orders of the folios the current event freed
next_id = 0


def map_new(mm, addr, order):
    """a new block of order at the 2^order pages from addr of mm, replacing what was
    there: one folio, or two 4K ones of an order-1 block (6.1's patch 0002 splits it)"""
    global next_id
    d = pages.setdefault(mm, {})
    folio = 0 if order == 1 else order
    for i in range(1 << order):
        if i % (1 << folio) == 0:
            next_id += 1
            refs[next_id] = [1 << folio, folio]
        old = d.get(addr + 4096 * i)
        d[addr + 4096 * i] = next_id
        if old is not None:
            unmap(old)


def unmap(folio):
    refs[folio][0] -= 1
    if not refs[folio][0]:
        freed.append(refs.pop(folio)[1])


def apply_frees():
    """the current event's frees onto the lists, order 0's first"""
    for order in sorted(freed):
        pcp.free(order)
    freed.clear()


ts_re = re.compile(r"^\[(\d+)\]")
name_re = re.compile(r"\) (\w+): \{")
field_re = re.compile(r"(\w+) = (0x[0-9A-Fa-f]+|-?\d+)")
elem_re = re.compile(r"\[\d+\] = (0x[0-9A-Fa-f]+|\d+)")
cpu_re = re.compile(r"cpu_id = (\d+)")
cause_re = re.compile(r'cause = \( "(\w+)"')


def batch_records(line):
    """an anon_fault_batch's records (kernel patch 0008, docs/events.md) as anon_fault
    events: (ts, cpu, fields), its VMA and task tables looked up"""
    a = {k: [int(x, 0) for x in elem_re.findall(v)]
         for k, v in re.findall(r"(\w+) = \[ (.*?) \](?:,|$| \})", line)}
    for i, ts in enumerate(a["ts"]):
        v, t = a["vma"][i], a["task"][i]
        yield ts, a["cpu"][i], {"mm": a["mm"][t], "pid_tid": a["pid_tid"][t],
                                "address": a["address"][i], "latency_ns": a["latency_ns"][i],
                                "info": a["info"][i], "pfn": a["pfn"][i],
                                "vm_start": a["vm_start"][v]}


def trace_events(path):
    """the trace's events as (ts, cpu, name, fields, line), in time order: a batch's
    records in their own times and CPUs (babeltrace2 --clock-cycles: its times in the
    clock's cycles, the unit of the records' ts)"""
    bt = subprocess.run(["babeltrace2", "--clock-cycles", path], capture_output=True,
                        text=True, check=True)
    out = []
    for line in bt.stdout.splitlines():
        m, nm = ts_re.match(line), name_re.search(line)
        if not m or not nm:
            continue
        name = nm.group(1)
        if name == "anon_fault_batch":
            out.extend((ts, cpu, "anon_fault", f, "") for ts, cpu, f in batch_records(line))
            continue
        cm = cpu_re.search(line)
        out.append((int(m.group(1)), int(cm.group(1)) if cm else 0, name,
                    {k: int(v, 0) for k, v in field_re.findall(line)}, line))
    out.sort(key=lambda e: e[0])	# stable: events of one time keep the trace's order
    return out


pending = defaultdict(list)  # cpu -> (timestamp, order) of refill blocks since its last anon event
comms = {}  # tid -> name, from the exec events
rows = defaultdict(lambda: {"n": 0, "kernel": 0, "model": 0, "all": 0, "both": 0, "with": [],
                            "without": []})  # (name, order) ->
kinds = {"new": 0, "cow": 0, "zero_wp": 0, "new1": 0, "new2": 0, "new3": 0}  # the model's refills
for ts, cpu, name, f, line in trace_events(args[0]):
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
            pending[cpu].append((ts, f.get("order", 0)))
    elif name == "anon_fault":
        if "info" in f:
            info = f["info"]
            order, zero, ptes = (info >> 8) & 0xFF, (info >> 16) & 0xFF, (info >> 32) & 0xFFFF
        else:
            order, zero, ptes = f["order"], f["zero_page"], f["nr_ptes"]
        kernel = any(t >= ts - f["latency_ns"] and o == order for t, o in pending[cpu])
        pending[cpu] = []
        if zero or not ptes or order >= ORDERS:
            continue
        map_new(f["mm"], f["address"] & ~((4096 << order) - 1), order)
        model = pcp.alloc(order)
        apply_frees()
        kinds["new%d" % order if order else "new"] += model
        pname = comms.get(f["pid_tid"] >> 32 if "pid_tid" in f else f["pid"], "?")
        if comm and pname != comm:
            continue
        rows[(pname, 0)]["all"] += model
        r = rows[(pname, order)]
        r["n"] += 1
        r["kernel"] += kernel
        r["model"] += model
        r["both"] += kernel and model
        r["with" if kernel else "without"].append(f["latency_ns"])
    elif name.startswith("anon_") or name.startswith("sched_"):
        pending[cpu] = []
        if name in ("anon_cow", "anon_zero_wp"):
            # the copy is allocated before the old page is freed (wp_page_copy())
            map_new(f["mm"], f["address"] & ~4095, 0)
            model = pcp.alloc(0)
            kinds[name[5:]] += model
            pname = comms.get(f["pid_tid"] >> 32 if "pid_tid" in f else f["pid"], "?")
            if not comm or pname == comm:
                rows[(pname, 0)]["all"] += model
        elif name == "anon_mm_dup":
            child = pages.setdefault(f["mm"], {})
            for page in child.values():
                unmap(page)
            child.clear()
            for addr, page in pages.get(f["parent_mm"], {}).items():
                child[addr] = page
                refs[page][0] += 1
        elif name == "anon_zap":
            cause = cause_re.search(line).group(1)
            d = pages.get(f["mm"], {})
            hit = [a for a in d if f["start"] <= a < f["end"]]
            if cause == "mremap":
                d.update({a - f["start"] + f["new_addr"]: d.pop(a) for a in hit})
            elif cause != "free":
                for a in hit:
                    unmap(d.pop(a))
        apply_frees()

if totals:
    print(" ".join("%s=%d" % kv for kv in kinds.items()))
    sys.exit(0)
print("comm           order  faults kernel_refills model_refills both med_with med_without "
      "model_all")
for pname, order in sorted(rows):
    r = rows[(pname, order)]
    if r["n"] < 100 and not comm:
        continue
    print("%-14s %5d %7d %14d %13d %4d %8s %11s %9d" % (
        pname, order, r["n"], r["kernel"], r["model"], r["both"],
        "%d" % median(r["with"]) if r["with"] else "-",
        "%d" % median(r["without"]) if r["without"] else "-", r["all"]))
