// SPDX-License-Identifier: GPL-2.0
/*
 * export-model.c - the exporter's model of the replayer's mappings, per process: a
 * lib/ivmap.h map of pages, each interval's value the vm_flags of the recorded VMA it was
 * made for; adjacent intervals of one class merge, as the kernel merges anonymous VMAs.
 *
 * Tuned for: tens of entries per process (one per VMA it touched), looked up by binary
 * search.
 */
#include "replay/export-int.h"

static int same_class(uint64_t a, uint64_t b)
{
	return vclass(a) == vclass(b);
}

void xmodel_set(struct ivmap *m, uint64_t s, uint64_t e, uint64_t flags)
{
	ivmap_set(m, s, e, flags);
	ivmap_merge(m, same_class);
}
