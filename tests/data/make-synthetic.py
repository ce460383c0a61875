#!/usr/bin/python3
# make-synthetic.py - write a SYNTHETIC CTF trace (made up here, never recorded in a guest)
# shaped like an LTTng kernel trace of the anon_* events of docs/events.md, for the
# collector's tests until and besides real guest traces. Needs python3-bt2 (Debian).
#
#   /usr/bin/python3 tests/data/make-synthetic.py OUT_DIR [NR_FAULTS] [--no-uuid] [--no-header]
#                    [--allocs=events|fields|both|packed|batch] [--alloc-cases] [--syscalls]
#                    [--damage-batch=lengths|index]
#
# --allocs: how the faults' allocation attempts are written: anon_alloc events (events, the
# default: the format before kernel patch 0006), anon_fault's alloc_orders and pfn fields
# (fields: one event per fault) or both; packed: as fields, in the probe's packed layout
# (anon_fault's pid_tid and info, docs/events.md); batch: as packed, the faults held and
# written as anon_fault_batch events as kernel patch 0008 writes them (batched() below).
# The same arguments otherwise give the same story.
# --damage-batch (with --allocs=batch): the third batch damaged as no kernel writes one
# (tests/data-damaged/, read by tests/cli/ingest-oneevent.sh only): lengths, its pfn array one element short of its other
# arrays; index, its last record's VMA index one past its VMA table.
# --alloc-cases: some order-4 faults fail their allocation (then get 4K, or nothing: OOM),
# lose a race after allocating, or are PMD faults with no anon_alloc at all.
# --syscalls: as the `sites` channel records them (docs/sites.md), every event gets LTTng's
# tid context (the stream's event common context) and the story gets syscall_entry_X and
# syscall_exit_X events (X: mmap, munmap, mremap, brk, madvise; exit field `ret`) of the
# workload's threads 200 and 201 (two of them interleaved) and of bash (pid 100), each
# pair just before a fault of that process; the other events are the same as without.
#
# OUT_DIR gets header/<key> files (as the guest runner writes them) and trace/ (the CTF,
# written by babeltrace2's sink.ctf.fs). Deterministic: the same arguments give the same
# events. The story: bash (pid 100) forks pid 200, which faults copy-on-write, execs
# "anon-touch-with-a-long-name" (comm truncated to 15 characters), touches NR_FAULTS pages
# in a few VMAs (writes, reads then zero-page write faults, some order-4 blocks), munmaps,
# madvises, mremaps and exits; then pid 300 is forked and its child mm reuses the dead mm
# pointer of pid 200's pre-exec mm. Other event types (sched_switch) are only counted.
# Events are spread over two CPUs (two streams), with a discarded-events record on cpu 1.
import os
import random
import sys
import uuid

import bt2

FALLBACK = ['none', 'vma_edge', 'pte_populated', 'alloc_failed', 'nohugepage', 'uffd', 'race',
            'read']
CAUSE = [None, 'munmap', 'dontneed', 'free', 'mremap', 'exit']

# event name -> [(field, type)], type: u8 u16 u64 s32 str fallback cause
EVENTS = {
    'anon_fault': [('mm', 'u64'), ('pid', 's32'), ('tid', 's32'), ('address', 'u64'),
                   ('vm_start', 'u64'), ('vm_end', 'u64'), ('vm_flags', 'u64'), ('write', 'u8'),
                   ('order', 'u8'), ('nr_ptes', 'u16'), ('zero_page', 'u8'),
                   ('fallback', 'fallback'), ('latency_ns', 'u64'), ('alloc_orders', 'u16'),
                   ('pfn', 'u64')],
    'anon_alloc': [('mm', 'u64'), ('pid', 's32'), ('address', 'u64'), ('order', 'u8'),
                   ('success', 'u8'), ('pfn', 'u64')],
    'anon_zero_wp': [('mm', 'u64'), ('pid', 's32'), ('tid', 's32'), ('address', 'u64'),
                     ('latency_ns', 'u64')],
    'anon_cow': [('mm', 'u64'), ('pid', 's32'), ('tid', 's32'), ('address', 'u64'),
                 ('latency_ns', 'u64')],
    'anon_zap': [('mm', 'u64'), ('pid', 's32'), ('start', 'u64'), ('end', 'u64'),
                 ('cause', 'cause'), ('new_addr', 'u64')],
    'anon_mm_dup': [('mm', 'u64'), ('parent_mm', 'u64'), ('pid', 's32'), ('parent_pid', 's32')],
    'sched_process_fork': [('parent_comm', 'str'), ('parent_tid', 's32'), ('parent_pid', 's32'),
                           ('child_comm', 'str'), ('child_tid', 's32'), ('child_pid', 's32')],
    'sched_process_exec': [('filename', 'str'), ('tid', 's32'), ('old_tid', 's32')],
    'sched_process_exit': [('comm', 'str'), ('tid', 's32'), ('prio', 's32')],
    'lttng_statedump_process_state': [('tid', 's32'), ('pid', 's32'), ('ppid', 's32'),
                                      ('name', 'str'), ('type', 's32')],
    'sched_switch': [('prev_comm', 'str'), ('prev_tid', 's32'), ('next_comm', 'str'),
                     ('next_tid', 's32')],
}

# --syscalls: the entry events' payloads (lttng-modules 2.13.9), the exits' is ret (s64)
SYSCALLS = {
    'mmap': [('addr', 'u64'), ('len', 'u64'), ('prot', 's32'), ('flags', 's32'),
             ('fd', 's32'), ('offset', 'u64')],
    'munmap': [('addr', 'u64'), ('len', 'u64')],
    'mremap': [('addr', 'u64'), ('old_len', 'u64'), ('new_len', 'u64'), ('flags', 'u64'),
               ('new_addr', 'u64')],
    'brk': [('brk', 'u64')],
    'madvise': [('start', 'u64'), ('len_in', 'u64'), ('behavior', 's32')],
}

PAGE = 4096
M_BASH, M_CHILD, M_EXEC, M_300 = (0xffff888001230000 + i * 0x400 for i in range(4))


class Story:
    """The synthetic events, in timestamp order: (ts, cpu, name, {field: value})."""

    def __init__(self, nr_faults, alloc_cases=False):
        self.alloc_cases = alloc_cases
        self.rng = random.Random(42)
        self.ts = 1700000000000000000
        self.ev = []
        self.nr_faults = nr_faults

    def add(self, _event, cpu=0, gap=None, **f):
        self.ts += gap if gap is not None else self.rng.randint(1500, 6000)
        self.ev.append((self.ts, cpu, _event, f))

    def fault(self, mm, pid, addr, vma, write, order=0, fallback=None, tid=None, cpu=0,
              failed=(), last=None, nr=None):
        """failed: orders tried and failed first; last: order of the last try (default
        order; None with failed ending in 0: out of memory); nr: PTEs written."""
        zero = 0 if write else 1
        if fallback is None:
            fallback = 0 if write else 7
        nr = 1 << order if nr is None else nr
        tries, pfn = 0, 0
        for o in failed:
            self.add('anon_alloc', cpu, mm=mm, pid=pid, address=addr & ~((PAGE << o) - 1),
                     order=o, success=0, pfn=0)
            tries |= 1 << o
        last = order if last is None and not (failed and failed[-1] == 0) else last
        if write and last is not None:
            pfn = self.rng.randint(0x10000, 0x80000) & ~((1 << last) - 1)
            self.add('anon_alloc', cpu, mm=mm, pid=pid, address=addr & ~((PAGE << last) - 1),
                     order=last, success=1, pfn=pfn)
            tries |= 1 << last
        self.add('anon_fault', cpu, gap=self.rng.randint(200, 900), mm=mm, pid=pid,
                 tid=tid or pid, address=addr, vm_start=vma[0], vm_end=vma[1], vm_flags=vma[2],
                 write=write, order=order, nr_ptes=nr, zero_page=zero, fallback=fallback,
                 latency_ns=self.rng.randint(800, 4000) * (1 + order), alloc_orders=tries,
                 pfn=pfn)

    def pmd_fault(self, mm, pid, addr, vma, cpu):
        """a THP fault: a PMD, no anon_alloc (its huge page is not one)"""
        self.add('anon_fault', cpu, mm=mm, pid=pid, tid=pid, address=addr, vm_start=vma[0],
                 vm_end=vma[1], vm_flags=vma[2], write=1, order=9, nr_ptes=1, zero_page=0,
                 fallback=0, latency_ns=self.rng.randint(8000, 40000), alloc_orders=0, pfn=0)

    def odd_fault(self, mm, pid, addr, vma, n, cpu):
        """--alloc-cases: an order-4 fault whose allocations did not simply succeed"""
        base = addr + (n % 16) * PAGE
        case = n % 5
        if case == 1:	# no 64K block: 16K failed too, 4K mapped
            self.fault(mm, 200, base, vma, 1, order=0, fallback=3, cpu=cpu, failed=(4, 2))
        elif case == 2:	# allocated 64K, but a racing fault mapped a PTE first
            self.fault(mm, 200, base, vma, 1, order=0, fallback=6, cpu=cpu, last=4, nr=0)
        elif case == 3:	# nothing free at all: out of memory
            self.fault(mm, 200, base, vma, 1, order=0, fallback=3, cpu=cpu, failed=(4, 0),
                       nr=0)
        elif case == 4:
            self.pmd_fault(mm, 200, vma[0], vma, cpu)
        else:
            self.fault(mm, 200, addr, vma, 1, order=4, cpu=cpu)

    def build(self):
        r = self.rng
        self.add('lttng_statedump_process_state', tid=1, pid=1, ppid=0, name='init', type=0)
        self.add('lttng_statedump_process_state', tid=100, pid=100, ppid=1, name='bash', type=0)
        self.add('lttng_statedump_process_state', tid=101, pid=100, ppid=1, name='bash-helper',
                 type=0)
        # bash itself faults a little before forking
        heap = (0x55d000000000, 0x55d000021000, 0x100073)
        for i in range(5):
            self.fault(M_BASH, 100, heap[0] + i * PAGE, heap, 1)
        # fork: the child mm is duplicated, then named by sched_process_fork
        self.add('anon_mm_dup', mm=M_CHILD, parent_mm=M_BASH, pid=200, parent_pid=100)
        self.add('sched_process_fork', parent_comm='bash', parent_tid=100, parent_pid=100,
                 child_comm='bash', child_tid=200, child_pid=200)
        for i in range(3):
            self.add('anon_cow', cpu=1, mm=M_CHILD, pid=200, tid=200,
                     address=heap[0] + i * PAGE, latency_ns=r.randint(2000, 5000))
        # exec: the new mm's stack faults come first, the old mm is torn down, then the event
        stack = (0x7ffc00000000, 0x7ffc00021000, 0x100173)
        self.fault(M_EXEC, 200, stack[1] - PAGE, stack, 1, cpu=1)
        self.add('anon_zap', cpu=1, mm=M_CHILD, pid=200, start=heap[0], end=heap[1], cause=5,
                 new_addr=0)
        self.add('sched_process_exec', cpu=1, filename='/usr/bin/anon-touch-with-a-long-name',
                 tid=200, old_tid=200)
        # the workload: sequential writes, read-then-write, order-4 blocks, a thread
        vmas = [(0x7f0000000000, 0x7f0000000000 + 4096 * PAGE, 0x100073),
                (0x7f1000000000, 0x7f1000000000 + 512 * PAGE, 0x100073),
                (0x7f2000000000 + 0x3000, 0x7f2000000000 + 0x3000 + 64 * PAGE, 0x100073)]
        n = 0
        while n < self.nr_faults:
            v = vmas[0]
            i = n % 4096
            addr = v[0] + i * PAGE
            kind = r.random()
            cpu = n // 100 % 2
            if kind < 0.8:
                self.fault(M_EXEC, 200, addr, v, 1, cpu=cpu,
                           tid=200 if r.random() < 0.9 else 201)
            elif kind < 0.9:
                self.fault(M_EXEC, 200, addr, v, 0, cpu=cpu)
                self.add('anon_zero_wp', cpu=cpu, mm=M_EXEC, pid=200, tid=200, address=addr,
                         latency_ns=r.randint(1500, 4000))
            elif kind < 0.95:
                v = vmas[1]
                base = v[0] + (n % 32) * 16 * PAGE
                if self.alloc_cases:
                    self.odd_fault(M_EXEC, 200, base, v, n // 20, cpu)
                else:
                    self.fault(M_EXEC, 200, base, v, 1, order=4, cpu=cpu)
            else:
                v = vmas[2]
                self.fault(M_EXEC, 200, v[0] + (n % 64) * PAGE, v, 1, fallback=1, cpu=cpu)
            if n % 500 == 0:
                self.add('sched_switch', cpu=cpu, prev_comm='anon-touch-with', prev_tid=200,
                         next_comm='swapper/0', next_tid=0)
            n += 1
        v = vmas[0]
        self.add('anon_zap', mm=M_EXEC, pid=200, start=v[0], end=v[0] + 16 * PAGE, cause=1,
                 new_addr=0)
        self.add('anon_zap', mm=M_EXEC, pid=200, start=v[0] + 32 * PAGE, end=v[0] + 48 * PAGE,
                 cause=2, new_addr=0)
        self.add('anon_zap', mm=M_EXEC, pid=200, start=vmas[1][0], end=vmas[1][1], cause=4,
                 new_addr=0x7f3000000000)
        for v in vmas + [stack]:
            self.add('anon_zap', mm=M_EXEC, pid=200, start=v[0], end=v[1], cause=5, new_addr=0)
        self.add('sched_process_exit', comm='anon-touch-with', tid=200, prio=120)
        # pid 300: its child mm reuses the freed pointer of pid 200's pre-exec mm
        self.add('anon_mm_dup', mm=M_CHILD, parent_mm=M_BASH, pid=300, parent_pid=100)
        self.add('sched_process_fork', parent_comm='bash', parent_tid=100, parent_pid=100,
                 child_comm='bash', child_tid=300, child_pid=300)
        for i in range(4):
            self.fault(M_CHILD, 300, 0x7f5000000000 + i * PAGE,
                       (0x7f5000000000, 0x7f5000100000, 0x100073), 1, cpu=1)
        self.add('anon_cow', cpu=1, mm=M_CHILD, pid=300, tid=300, address=heap[0],
                 latency_ns=3000)
        self.add('anon_zap', cpu=1, mm=M_CHILD, pid=300, start=0x7f5000000000,
                 end=0x7f5000100000, cause=5, new_addr=0)
        self.add('sched_process_exit', cpu=1, comm='bash', tid=300, prio=120)
        return self.ev


def field_class(tc, t):
    if t == 'str':
        return tc.create_string_field_class()
    if t in ('s32', 's64'):
        return tc.create_signed_integer_field_class(int(t[1:]))
    if t in ('fallback', 'cause'):
        fc = tc.create_unsigned_enumeration_field_class(8)
        names = FALLBACK if t == 'fallback' else CAUSE
        for i, nm in enumerate(names):
            if nm:
                fc.add_mapping(nm, bt2.UnsignedIntegerRangeSet([(i, i)]))
        return fc
    return tc.create_unsigned_integer_field_class(int(t[1:]))


# anon_fault in the probe's packed layout: the small fields in pid_tid and info
PACKED_FAULT = [('mm', 'u64'), ('pid_tid', 'u64'), ('address', 'u64'), ('vm_start', 'u64'),
                ('vm_end', 'u64'), ('vm_flags', 'u64'), ('latency_ns', 'u64'), ('info', 'u64'),
                ('pfn', 'u64')]


def packed(f):
    """an anon_fault's fields in the packed layout (docs/events.md)"""
    out = {k: f[k] for k in ('mm', 'address', 'vm_start', 'vm_end', 'vm_flags', 'latency_ns',
                             'pfn')}
    out['pid_tid'] = (f['pid'] & 0xffffffff) << 32 | (f['tid'] & 0xffffffff)
    out['info'] = (f['write'] | f['order'] << 8 | f['zero_page'] << 16 | f['fallback'] << 24 |
                   f['nr_ptes'] << 32 | f['alloc_orders'] << 48)
    return out


# anon_fault_batch (docs/events.md): arrays, per record then the VMA and task tables
BATCH_FIELDS = [('ts', 'u64'), ('address', 'u64'), ('latency_ns', 'u64'), ('info', 'u64'),
                ('pfn', 'u64'), ('vma', 'u8'), ('task', 'u8'), ('cpu', 'u16'), ('vm_start', 'u64'),
                ('vm_end', 'u64'), ('vm_flags', 'u64'), ('mm', 'u64'), ('pid_tid', 'u64')]
BATCH_MAX = 7	# the kernel's is 64: a small story needs a small one to fill batches


def batch_event(held, damage):
    """the anon_fault_batch of the packed faults held, as mm/memory.c fills one: a VMA or
    task table entry each time a record's differs from the table's last"""
    f = {k: [] for k, _ in BATCH_FIELDS}
    for ts, cpu, _name, r in held:
        for k in ('address', 'latency_ns', 'info', 'pfn'):
            f[k].append(r[k])
        f['ts'].append(ts)
        f['cpu'].append(cpu)
        for idx, keys in (('vma', ('vm_start', 'vm_end', 'vm_flags')),
                          ('task', ('mm', 'pid_tid'))):
            if not f[keys[0]] or any(f[k][-1] != r[k] for k in keys):
                for k in keys:
                    f[k].append(r[k])
            f[idx].append(len(f[keys[0]]) - 1)
    if damage == 'lengths':
        f['pfn'] = f['pfn'][:-1]
    elif damage == 'index':
        f['vma'][-1] = len(f['vm_start'])
    return f


def batched(events, damage=None):
    """--allocs=batch: the packed faults as kernel patch 0008 writes them. One batch for all
    CPUs, written when it holds BATCH_MAX records (on the CPU and at the time of the last)
    and before any other anon_* event (on that event's CPU, at its time); every record
    keeps its own ts. The other events are unchanged."""
    out, held, batches = [], [], [0]

    def flush(ts, cpu):
        if held:
            batches[0] += 1
            f = batch_event(held, damage if batches[0] == 3 else None)
            out.append((ts, cpu, 'anon_fault_batch', f))
            held.clear()
    for e in events:
        ts, cpu, name, f = e
        if name == 'anon_fault':
            held.append(e)
            if len(held) == BATCH_MAX:
                flush(ts, cpu)
            continue
        if name.startswith('anon_'):
            flush(ts, cpu)
        out.append(e)
    flush(events[-1][0], events[-1][1])
    return out


def allocs_as(events, how):
    """the story with the faults' allocation attempts written as --allocs says"""
    out = []
    for ts, cpu, name, f in events:
        if name == 'anon_alloc' and how in ('fields', 'packed', 'batch'):
            continue
        if name == 'anon_fault' and how == 'events':
            f = {k: v for k, v in f.items() if k not in ('alloc_orders', 'pfn')}
        if name == 'anon_fault' and how in ('packed', 'batch'):
            f = packed(f)
        out.append((ts, cpu, name, f))
    damage = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--damage-batch=')]
    return batched(out, damage[0] if damage else None) if how == 'batch' else out


# --syscalls: (tid, call, entry payload, ret) pairs, each before the fault of ordinal k of
# its process (pid 200: its faults after the exec), exit 10 ns before it; 'with' pairs
# interleave with the previous one: entry, other entry, other exit, exit
CALLS = [
    (100, 0, 100, 'mmap', dict(addr=0, len=0x21000, prot=3, flags=0x22, fd=-1, offset=0),
     0x7fa000000000),
    (200, 0, 200, 'brk', dict(brk=0), 0x55d000000000),
    (200, 1, 200, 'mmap', dict(addr=0, len=0x1000000, prot=3, flags=0x22, fd=-1, offset=0),
     0x7f0000000000),
    (200, 40, 201, 'mmap', dict(addr=0, len=0x200000, prot=3, flags=0x22, fd=-1, offset=0),
     0x7f1000000000),
    (200, 40, 200, 'madvise', dict(start=0x7f0000000000, len_in=0x1000, behavior=14), -22),
    (200, 80, 200, 'brk', dict(brk=0x55d000021000), 0x55d000021000),
    (200, 120, 201, 'munmap', dict(addr=0x7f1000000000, len=0x1000), 0),
    (200, 160, 200, 'mremap', dict(addr=0x7f1000001000, old_len=0x1000, new_len=0x2000,
                                   flags=1, new_addr=0), 0x7f3000000000),
]


def add_syscalls(events):
    """--syscalls: the story with CALLS inserted; every event gets its '_tid' context"""
    seen = {}
    at = {}		# index of the fault a call goes before -> [calls]
    exec_at = next(i for i, e in enumerate(events) if e[2] == 'sched_process_exec')
    for i, (ts, cpu, name, f) in enumerate(events):
        if name != 'anon_fault' or (f['pid'] == 200 and i < exec_at):
            continue
        k = seen.get(f['pid'], 0)
        seen[f['pid']] = k + 1
        for c in CALLS:
            if c[0] == f['pid'] and c[1] == k:
                at.setdefault(i, []).append(c)
    out = []
    for i, (ts, cpu, name, f) in enumerate(events):
        calls = at.get(i, [])
        if len(calls) == 2:	# entry a, entry b, exit b, exit a
            a, b = calls
            seq = [(40, a, 'entry'), (30, b, 'entry'), (20, b, 'exit'), (10, a, 'exit')]
        else:
            seq = [(20, c, 'entry') for c in calls] + [(10, c, 'exit') for c in calls]
        for back, c, what in seq:
            if what == 'entry':
                out.append((ts - back, cpu, 'syscall_entry_' + c[3], dict(c[4], _tid=c[2])))
            else:
                out.append((ts - back, cpu, 'syscall_exit_' + c[3], dict(ret=c[5], _tid=c[2])))
        tid = f.get('tid', f.get('child_tid', f.get('pid', 0)))
        out.append((ts, cpu, name, dict(f, _tid=tid)))
    return out


def event_classes(how, syscalls=False):
    """EVENTS as --allocs says: the anon_fault and anon_alloc the trace declares"""
    ev = dict(EVENTS)
    if syscalls:
        for call, fields in SYSCALLS.items():
            ev['syscall_entry_' + call] = fields
            ev['syscall_exit_' + call] = [('ret', 's64')]
    if how == 'events':
        ev['anon_fault'] = [x for x in ev['anon_fault'] if x[0] not in ('alloc_orders', 'pfn')]
    if how in ('fields', 'packed', 'batch'):
        del ev['anon_alloc']
    if how in ('packed', 'batch'):
        ev['anon_fault'] = PACKED_FAULT
    if how == 'batch':
        ev['anon_fault_batch'] = [(k, '[]' + t) for k, t in BATCH_FIELDS]
    return ev


class Iter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        stream, classes, events, discard_at = port.user_data
        self._msgs = []
        m = self._msgs
        packet = None
        m.append(self._create_stream_beginning_message(stream))
        # packets of 256 events; a discarded-events record between two packets if asked
        for k in range(0, len(events), 256):
            part = events[k:k + 256]
            packet = stream.create_packet()
            packet.context_field['cpu_id'] = stream.id
            begin = part[0][0] - 10
            end = part[-1][0] + 10
            m.append(('pb', packet, begin))
            for ts, _cpu, name, f in part:
                m.append(('ev', packet, name, f, ts))
            m.append(('pe', packet, end))
            if discard_at is not None and k // 256 == discard_at and k + 256 < len(events):
                nxt = events[k + 256:k + 512]
                m.append(('de', end, nxt[-1][0] + 10))
        m.append(self._create_stream_end_message(stream))
        self._classes = classes
        self._stream = stream

    def __next__(self):
        if not self._msgs:
            raise StopIteration
        x = self._msgs.pop(0)
        if not isinstance(x, tuple):
            return x
        if x[0] == 'pb':
            return self._create_packet_beginning_message(x[1], x[2])
        if x[0] == 'pe':
            return self._create_packet_end_message(x[1], x[2])
        if x[0] == 'de':
            msg = self._create_discarded_events_message(self._stream, 7, x[1], x[2])
            return msg
        _, packet, name, f, ts = x
        msg = self._create_event_message(self._classes[name], packet, ts)
        for k, v in f.items():
            if k == '_tid':
                msg.event.common_context_field['tid'] = v
            else:
                msg.event.payload_field[k] = v
                if isinstance(v, list):
                    msg.event.payload_field['_%s_length' % k] = len(v)
        return msg


class Source(bt2._UserSourceComponent, message_iterator_class=Iter):
    def __init__(self, config, params, obj):
        events, with_uuid, how, syscalls = obj
        tc = self._create_trace_class()
        cc = self._create_clock_class(frequency=1000000000, name='monotonic',
                                      offset=bt2.ClockClassOffset(0, 0),
                                      origin_is_unix_epoch=False)
        pctx = tc.create_structure_field_class()
        pctx.append_member('cpu_id', tc.create_unsigned_integer_field_class(32))
        ectx = None
        if syscalls:	# lttng add-context -k -t tid
            ectx = tc.create_structure_field_class()
            ectx.append_member('tid', tc.create_signed_integer_field_class(32))
        sc = tc.create_stream_class(default_clock_class=cc, assigns_automatic_stream_id=False,
                                    supports_packets=True,
                                    packets_have_beginning_default_clock_snapshot=True,
                                    packets_have_end_default_clock_snapshot=True,
                                    supports_discarded_events=True,
                                    discarded_events_have_default_clock_snapshots=True,
                                    packet_context_field_class=pctx,
                                    event_common_context_field_class=ectx)
        classes = {}
        for name, fields in event_classes(how, syscalls).items():
            payload = tc.create_structure_field_class()
            for fname, t in fields:
                if t.startswith('[]'):	# an array of t, after its length (as LTTng's)
                    length = tc.create_unsigned_integer_field_class(32)
                    payload.append_member('_%s_length' % fname, length)
                    payload.append_member(fname, tc.create_dynamic_array_field_class(
                        field_class(tc, t[2:]), length_fc=length))
                    continue
                payload.append_member(fname, field_class(tc, t))
            classes[name] = sc.create_event_class(name=name, payload_field_class=payload)
        env = {'hostname': 'synthetic', 'domain': 'kernel', 'sysname': 'Linux',
               'kernel_release': '6.1.0-synthetic', 'tracer_name': 'synthetic'}
        trace = tc(uuid=uuid.UUID('5e17e71c-0000-4000-8000-000000000001') if with_uuid else None,
                   environment=env)
        for cpu in (0, 1):
            stream = trace.create_stream(sc, id=cpu)
            mine = [e for e in events if e[1] == cpu]
            self._add_output_port('cpu%d' % cpu, (stream, classes, mine, 1 if cpu else None))


HEADER = {
    'arch': 'x86_64', 'page_size': '4096', 'kernel': '6.1.0-synthetic', 'policy': 'order0',
    'mem_bytes': '1073741824', 'cpus': '2', 'workload': 'anon-touch-with-a-long-name 16M',
    'workload_status': '0', 'clocksource': 'tsc', 'discarded_events': '0', 'partial': '0',
    'buddyinfo.before': 'Node 0, zone   Normal   10 20 30 40 50 60 70 80 90 100 110',
    'buddyinfo.after': 'Node 0, zone   Normal    9 19 29 39 49 59 69 79 89  99 109',
    'vmstat.before': 'nr_anon_pages 1000\nanon_folio_fallback_vma_edge 0',
    'vmstat.after': 'nr_anon_pages 5000\nanon_folio_fallback_vma_edge 12',
    'synthetic': 'yes: made by tests/data/make-synthetic.py, not recorded in a guest',
}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    out = args[0]
    nr = int(args[1]) if len(args) > 1 else 2000
    how = 'events'
    for a in sys.argv[1:]:
        if a.startswith('--allocs='):
            how = a[len('--allocs='):]
    if how not in ('events', 'fields', 'both', 'packed', 'batch'):
        sys.exit('make-synthetic.py: --allocs=events|fields|both|packed|batch, not %s' % how)
    events = allocs_as(Story(nr, '--alloc-cases' in sys.argv).build(), how)
    syscalls = '--syscalls' in sys.argv
    if syscalls:
        events = add_syscalls(events)
    os.makedirs(out, exist_ok=True)
    if '--no-header' not in sys.argv:
        os.makedirs(os.path.join(out, 'header'), exist_ok=True)
        for k, v in HEADER.items():
            with open(os.path.join(out, 'header', k), 'w') as f:
                f.write(v + '\n')
    g = bt2.Graph()
    src = g.add_component(Source, 'src', obj=(events, '--no-uuid' not in sys.argv, how,
                                              syscalls))
    mux = g.add_component(bt2.find_plugin('utils').filter_component_classes['muxer'], 'mux')
    sink = g.add_component(bt2.find_plugin('ctf').sink_component_classes['fs'], 'sink',
                           {'path': os.path.join(out, 'trace'), 'assume-single-trace': True})
    for i, port in enumerate(src.output_ports.values()):
        g.connect_ports(port, mux.input_ports['in%d' % i])
    g.connect_ports(mux.output_ports['out'], sink.input_ports['in'])
    g.run()


if __name__ == '__main__':
    main()
