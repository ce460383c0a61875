// SPDX-License-Identifier: GPL-2.0
/*
 * collect-packed.c - the packed anon_fault of the LTTng probe (pid_tid and info: docs/
 * events.md) gives the collector exactly the records of the 15-field one: the same faults
 * fed both ways, with values chosen to fill every bit range (the largest pid, order
 * 9, nr_ptes 512, fallback 7, alloc_orders with bit 9 set), must encode the same stream.
 * The expected records are the unpacked feed's, whose field order docs/events.md states.
 */
#include <string.h>

#include "db/stream.h"
#include "tests/unit/tap.h"
#include "tracer/collect.h"

struct fault {
	uint64_t mm;
	int32_t pid, tid;
	uint64_t addr, vm_start, vm_end, vm_flags;
	unsigned int write, order, nr_ptes, zero, fallback, alloc_orders;
	uint64_t latency, pfn;
};

static const struct fault faults[] = {
	{ 0xffff888000001000ULL, 100, 100, 0x7f0000200000ULL, 0x7f0000000000ULL,
	  0x7f0000800000ULL, 0x100073, 1, 9, 1, 0, 0, 0x200, 123456, 0x4321 },
	{ 0xffff888000001000ULL, 100, 101, 0x7f0000001000ULL, 0x7f0000000000ULL,
	  0x7f0000800000ULL, 0x100073, 1, 0, 1, 0, 3, 0x20f, 1500, 0x777 },
	{ 0xffff888000002000ULL, 2147483647, 2147483646, 0x10000ULL, 0x10000ULL, 0x20000ULL,
	  0x40100073, 0, 0, 1, 1, 7, 0, 250, 0 },
	{ 0xffff888000002000ULL, 2147483647, 2147483647, 0x14000ULL, 0x10000ULL, 0x20000ULL,
	  0x40100073, 1, 2, 4, 0, 1, 0x4, 4000, 0x1234 },
};
#define NR (sizeof(faults) / sizeof(faults[0]))

static void feed(struct collect *c, int packed)
{
	size_t i;

	for (i = 0; i < NR; i++) {
		const struct fault *f = &faults[i];
		struct collect_val v[15];

		memset(v, 0, sizeof(v));
		if (packed) {
			v[0].u = f->mm;
			v[1].u = (uint64_t)(uint32_t)f->pid << 32 | (uint32_t)f->tid;
			v[2].u = f->addr;
			v[3].u = f->vm_start;
			v[4].u = f->vm_end;
			v[5].u = f->vm_flags;
			v[6].u = f->latency;
			v[7].u = (uint64_t)f->write | (uint64_t)f->order << 8 |
				 (uint64_t)f->zero << 16 | (uint64_t)f->fallback << 24 |
				 (uint64_t)f->nr_ptes << 32 | (uint64_t)f->alloc_orders << 48;
			v[8].u = f->pfn;
			ft_collect_event(c, CK_FAULT_PACKED, 1000 * (i + 1), v);
			continue;
		}
		v[0].u = f->mm;
		v[1].u = (uint64_t)(int64_t)f->pid;	/* pid_t: signed, sign-extended */
		v[2].u = (uint64_t)(int64_t)f->tid;
		v[3].u = f->addr;
		v[4].u = f->vm_start;
		v[5].u = f->vm_end;
		v[6].u = f->vm_flags;
		v[7].u = f->write;
		v[8].u = f->order;
		v[9].u = f->nr_ptes;
		v[10].u = f->zero;
		v[11].u = f->fallback;
		v[12].u = f->latency;
		v[13].u = f->alloc_orders;
		v[14].u = f->pfn;
		ft_collect_event(c, CK_FAULT, 1000 * (i + 1), v);
	}
}

int main(void)
{
	struct ftdb_store store;
	struct collect a, b;

	plan(4);
	memset(&store, 0, sizeof(store));
	ft_collect_init(&a, &store);
	ft_collect_init(&b, &store);
	ft_collect_set_fault_allocs(&a, 4096);
	ft_collect_set_fault_allocs(&b, 4096);
	feed(&a, 0);
	feed(&b, 1);
	ok(a.enc.nr > NR, "the unpacked feed: %zu records (the faults and their ALLOC records)",
	   (size_t)a.enc.nr);
	ok(a.enc.nr == b.enc.nr, "the packed feed: as many records (%zu)", (size_t)b.enc.nr);
	ok(a.enc.len == b.enc.len && !memcmp(a.enc.buf, b.enc.buf, a.enc.len),
	   "the same encoded stream, byte for byte (%zu bytes)", (size_t)a.enc.len);
	ok(a.nr_procs == 2 && b.nr_procs == 2 && a.procs[1].pid == b.procs[1].pid &&
	   b.procs[1].pid == 2147483647, "the same processes, pid from pid_tid's high half");
	ft_collect_release(&a);
	ft_collect_release(&b);
	return done_testing();
}
