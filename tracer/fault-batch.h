/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault-batch.h - the records of an anon_fault_batch event (kernel patch 0008; its layout
 * in docs/events.md, "anon_fault_batch"): per record arrays (ts, address, latency_ns, info,
 * pfn, and vma and task, indexes in two tables), a VMA table (vm_start, vm_end, vm_flags)
 * and a task table (mm, pid_tid). Each record comes out as a packed anon_fault's fields,
 * for the collector's CK_FAULT_PACKED, at its own time.
 *
 * Neither function sets an error (tracer/pdecode.c's threads call them): a damaged batch
 * returns the reason, and the caller says it.
 */
#ifndef FT_TRACER_FAULT_BATCH_H
#define FT_TRACER_FAULT_BATCH_H

#include <babeltrace2/babeltrace.h>

#include "tracer/evclass.h"

/* The fields of ft_collect_events[CK_FAULT_BATCH], in its order. */
enum { FB_TS, FB_ADDR, FB_LATENCY, FB_INFO, FB_PFN, FB_VMA, FB_TASK, FB_VM_START, FB_VM_END,
       FB_VM_FLAGS, FB_MM, FB_PID_TID, FB_NR };

/* A record as tracer/pdecode-decode.c keeps it: its CP_NR packed fields, then its time. */
#define FB_REC_WORDS (CP_NR + 1)

struct fault_batch {
	const bt_field *f[FB_NR];	/* the event's arrays, borrowed */
	uint64_t nr;			/* records */
	uint64_t nr_vmas, nr_tasks;	/* table entries */
	const bt_clock_class *clock;	/* ts's clock, NULL: records at time 0 */
};

/*
 * Open the batch event of class ec (kind CK_FAULT_BATCH). Return: NULL, or the reason the
 * batch is damaged ("arrays of different lengths").
 */
const char *ft_fault_batch_open(struct fault_batch *b, const struct evclass *ec,
				const bt_event *event);

/*
 * Record i (below b->nr) into vals[0..CP_NR - 1] (tracer/collect.h), and its time,
 * ns from the clock's origin, into *ts. Return: NULL, or the reason it is damaged (an
 * index beyond its table, a time out of range).
 */
const char *ft_fault_batch_record(const struct fault_batch *b, uint64_t i,
				  struct collect_val *vals, uint64_t *ts);

#endif /* FT_TRACER_FAULT_BATCH_H */
