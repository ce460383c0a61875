/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export-int.h - what the parts of the exporter share (not an API: include only from
 * replay/export*.c): the model of the replayer's mappings (export-model.c), the exporter's
 * state that the operation emission (export.c) fills and the file writer (export-file.c)
 * writes out.
 */
#ifndef FT_REPLAY_EXPORT_INT_H
#define FT_REPLAY_EXPORT_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/ivmap.h"
#include "lib/strbuf.h"
#include "replay/export.h"
#include "replay/guest/ftr.h"
#include "replay/pageset.h"

struct range {
	uint64_t start, end;	/* pages */
};

struct xproc {
	int64_t index;		/* position in the file, -1 until the process appears */
	uint32_t parent;	/* proc_id of the process forking it, UINT32_MAX if none */
	uint8_t dead;		/* it exited: later events are ignored */
	/*
	 * the replayer's mappings, as it will have made them: pages, each interval's value
	 * the vm_flags of the recorded VMA it was made for, adjacent ones of a class merged
	 */
	struct ivmap m;
	struct strbuf ops;	/* encoded operations */
	uint64_t nr_ops;
	uint64_t last_touch;	/* page of the previous TOUCH (delta base) */
	struct range *mapped;	/* every range MAP or MREMAP made: the family's clusters */
	size_t nr_mapped, cap_mapped;
	/*
	 * exec's temporary stack, pages [xs_start, xs_end) moved to xs_dest (export.h). Set
	 * by the prescan: xs_state 1 while the temporary stack is seen (its VMA bounds in
	 * xs_start/xs_end), 2 once its move is known, 3 after the move was fed.
	 */
	uint8_t xs_state;
	uint64_t xs_start, xs_end, xs_dest;
};

struct rp_export {
	struct rp_export_in in;
	/*
	 * Pages the recording showed present, per process (rp_ps_key(), value 1). A COW of
	 * a page not in it was never seen mapped (touched before the trace began, or of a
	 * private file mapping): the guest would take it as a first-touch fault.
	 */
	struct rp_pageset seen;
	struct rp_page_val *tmp;	/* rp_pageset_take() scratch */
	size_t tmp_cap;
	struct xproc *p;	/* indexed by proc_id */
	uint32_t *by_index;	/* index -> proc_id */
	size_t nr_index, cap_index;
	struct rp_export_stats st;
};

static inline uint64_t vclass(uint64_t flags)
{
	return flags & FTR_VM_CLASS;
}

/* The class without the exporter's NORESERVE choice: what the recording asked for. */
static inline uint64_t vbase(uint64_t flags)
{
	return flags & FTR_VM_CLASS & ~FTR_VM_NORESERVE;
}

static inline void xput_varint(struct strbuf *sb, uint64_t v)
{
	uint8_t b[10];

	strbuf_add(sb, b, ftr_put_varint(b, v));
}

/* ---- the model (export-model.c): a process's mappings, in pages ---- */

/*
 * Map [s, e) with flags in the model, replacing what was there, then merge adjacent
 * intervals of one class (vclass()), as the kernel merges anonymous VMAs. Lookups and
 * unmapping are lib/ivmap.h's own (ivmap_find(), ivmap_lower(), ivmap_remove()).
 */
void xmodel_set(struct ivmap *m, uint64_t s, uint64_t e, uint64_t flags);

#endif /* FT_REPLAY_EXPORT_INT_H */
