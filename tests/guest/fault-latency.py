#!/usr/bin/env python3
# fault-latency.py DB TRACE_ID [--each]: the anon_fault records of a trace read straight from the
# database with Python's sqlite3 and a decoder of the event_chunk format written from
# docs/schema.md alone, not with foliotrace's own (db/stream.c), so a bug there cannot
# hide in the figures it is checked against. Prints one line:
#   faults=N latency_sum_ns=S workload_faults=W workload_latency_sum_ns=L
# (every process; the processes with process.workload = 1). With --each, instead, the
# latency of each fault of the workload's processes, one a line, in stream order.
# Used by tests/guest/clock-icount.sh and irq-latency.sh.
import sqlite3
import sys


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("varint cut short or over-long at byte %d" % i)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def unzigzag(v):
    return (v >> 1) ^ -(v & 1)


def addr(b, i):
    """skip an addr(base) field: even varint, or 1 followed by a plain varint"""
    v, i = varint(b, i)
    if v == 1:
        _, i = varint(b, i)
    elif v & 1:
        raise ValueError("odd address code %d" % v)
    return i


def faults(blob, nr):
    """yield (proc_id, latency_ns) of each FAULT record of one chunk"""
    if not blob or blob[0] != 1:
        raise ValueError("chunk format byte is not 0x01")
    i, proc, seen = 1, 0, 0
    while i < len(blob):
        tag = blob[i]
        i += 1
        kind = tag & 7
        if not tag & 8:
            d, i = varint(blob, i)
            proc += unzigzag(d)
        if kind == 0:  # FAULT: [vma], dts, addr, latency, [EXT: order, fallback, ptes, tid]
            if not tag & 0x40:
                _, i = varint(blob, i)
            _, i = varint(blob, i)
            i = addr(blob, i)
            lat, i = varint(blob, i)
            if tag & 0x80:
                i += 2
                _, i = varint(blob, i)
                _, i = varint(blob, i)
            yield proc, lat
        elif kind == 1:  # ALLOC: dts, addr, order, [pfn unless NO_PFN]
            _, i = varint(blob, i)
            i = addr(blob, i) + 1
            if not tag & 0x20:
                _, i = varint(blob, i)
        elif kind in (2, 3):  # ZERO_WP, COW: dts, addr, latency, [tid]
            _, i = varint(blob, i)
            i = addr(blob, i)
            _, i = varint(blob, i)
            if tag & 0x10:
                _, i = varint(blob, i)
        elif kind == 4:  # ZAP: dts, start, end, cause, [new_addr]
            _, i = varint(blob, i)
            i = addr(blob, i)
            i = addr(blob, i) + 1
            if tag & 0x10:
                i = addr(blob, i)
        elif kind == 5:  # MM_DUP: dts, parent
            _, i = varint(blob, i)
            _, i = varint(blob, i)
        else:
            raise ValueError("record kind %d" % kind)
        seen += 1
    if i != len(blob) or seen != nr:
        raise ValueError("chunk holds %d records, nr_events says %d" % (seen, nr))


def main():
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    tid = int(sys.argv[2])
    each = sys.argv[3:] == ["--each"]
    wl = {r[0] for r in db.execute(
        "SELECT proc_id FROM process WHERE trace_id = ? AND workload = 1", (tid,))}
    n = s = wn = ws = 0
    for blob, nr in db.execute("SELECT data, nr_events FROM event_chunk WHERE trace_id = ? "
                               "ORDER BY chunk", (tid,)):
        for proc, lat in faults(bytes(blob), nr):
            n += 1
            s += lat
            if proc in wl:
                wn += 1
                ws += lat
                if each:
                    print(lat)
    if not each:
        print("faults=%d latency_sum_ns=%d workload_faults=%d workload_latency_sum_ns=%d" %
              (n, s, wn, ws))


main()
