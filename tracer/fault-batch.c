// SPDX-License-Identifier: GPL-2.0
/* fault-batch.c - the records of an anon_fault_batch event; see fault-batch.h. */
#include <string.h>

#include "tracer/fault-batch.h"

const char *ft_fault_batch_open(struct fault_batch *b, const struct evclass *ec,
				const bt_event *event)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	uint64_t len[FB_NR];
	unsigned int k;

	memset(b, 0, sizeof(*b));
	for (k = 0; k < FB_NR; k++) {
		b->f[k] = bt_field_structure_borrow_member_field_by_index_const(payload,
										 ec->index[k]);
		len[k] = bt_field_array_get_length(b->f[k]);
	}
	b->nr = len[FB_TS];
	b->nr_vmas = len[FB_VM_START];
	b->nr_tasks = len[FB_MM];
	for (k = FB_TS; k <= FB_TASK; k++)
		if (len[k] != b->nr)
			return "arrays of different lengths";
	if (len[FB_VM_END] != b->nr_vmas || len[FB_VM_FLAGS] != b->nr_vmas ||
	    len[FB_PID_TID] != b->nr_tasks)
		return "arrays of different lengths";
	b->clock = ec->clock;
	return NULL;
}

static uint64_t elem(const struct fault_batch *b, unsigned int k, uint64_t i)
{
	return bt_field_integer_unsigned_get_value(
		bt_field_array_borrow_element_field_by_index_const(b->f[k], i));
}

const char *ft_fault_batch_record(const struct fault_batch *b, uint64_t i,
				  struct collect_val *vals, uint64_t *ts)
{
	uint64_t vma = elem(b, FB_VMA, i), task = elem(b, FB_TASK, i), t = elem(b, FB_TS, i);
	int64_t ns;

	if (vma >= b->nr_vmas)
		return "a record's VMA index beyond its VMA table";
	if (task >= b->nr_tasks)
		return "a record's task index beyond its task table";
	memset(vals, 0, CP_NR * sizeof(*vals));
	vals[CP_MM].u = elem(b, FB_MM, task);
	vals[CP_PID_TID].u = elem(b, FB_PID_TID, task);
	vals[CP_ADDR].u = elem(b, FB_ADDR, i);
	vals[CP_VM_START].u = elem(b, FB_VM_START, vma);
	vals[CP_VM_END].u = elem(b, FB_VM_END, vma);
	vals[CP_VM_FLAGS].u = elem(b, FB_VM_FLAGS, vma);
	vals[CP_LATENCY].u = elem(b, FB_LATENCY, i);
	vals[CP_INFO].u = elem(b, FB_INFO, i);
	vals[CP_PFN].u = elem(b, FB_PFN, i);
	*ts = 0;
	if (!b->clock)
		return NULL;
	if (bt_clock_class_cycles_to_ns_from_origin(b->clock, t, &ns) !=
	    BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK || ns < 0)
		return "a record's time out of range";
	*ts = (uint64_t)ns;
	return NULL;
}
