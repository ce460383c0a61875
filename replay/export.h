/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export.h - turn a recorded anonymous event stream into a guest replay file (the format of
 * replay/guest/ftr.h, docs/guest-replay.md) for the in-guest replayer. Knows no policy: the
 * file says what the recorded processes did (which VMAs, which first touches, zaps, forks),
 * and the guest kernel's knob decides what each touch maps.
 *
 * The exporter keeps a model of the mappings the replayer will have made, per process, so
 * that every touch happens inside a mapping with the VMA bounds and flags the recorded
 * fault saw: it emits MAP for the parts of the recorded VMA not mapped yet, PROTECT for
 * parts whose flags differ, and clips every zap to what is mapped (so the replayer never
 * unmaps anything of its own). Where the model's merged mapping is larger than the recorded
 * VMA it cannot fix it without losing pages; it counts a shape mismatch instead.
 *
 * exec's stack cannot be replayed as recorded: exec faults the argument pages in a temporary
 * VMA at STACK_TOP_MAX and shift_arg_pages() then moves that VMA in place (one VMA, traced
 * as an anon_zap mremap), while a replayed mremap leaves the moved pages a VMA of their own
 * that never merges with the rest of the stack (its pgoff is the old address's), so a block
 * across the boundary would fall back vma_edge where the recording said pte_populated.
 * The exporter therefore replays the temporary stack at its destination from the start and
 * drops the move: rp_export_prescan() each event first finds the moves.
 *
 * Use: rp_export_new(), [rp_export_prescan() each event,] rp_export_feed() each event in
 * recorded order, rp_export_finish(); or rp_export_db() for a trace database. The parts:
 * export.c (events into operations), export-model.c (the mappings model), export-file.c
 * (the file writer), export-db.c (reading the trace with the trace loader, load.h).
 */
#ifndef FT_REPLAY_EXPORT_H
#define FT_REPLAY_EXPORT_H

#include <stdint.h>
#include <sqlite3.h>

#include "db/stream.h"
#include "lib/strbuf.h"
#include "replay/load.h"
#include "replay/replay.h"

struct rp_export_in {
	const struct rp_vma *vmas;	/* indexed by vma_id (as struct rp_trace) */
	uint32_t nr_vmas;
	const struct rp_proc_info *procs;	/* indexed by proc_id; selected: export it */
	uint32_t nr_procs;
	unsigned int page_shift;	/* of the recording (trace.page_size) */
	int64_t trace_id;		/* written to the header */
};

struct rp_export_stats {
	uint64_t procs;			/* process records written */
	uint64_t families;		/* of those, replayed on their own (not forked) */
	uint64_t touches;		/* TOUCH operations */
	uint64_t maps;			/* MAP operations */
	uint64_t protects;		/* PROTECT operations */
	uint64_t zaps;			/* MUNMAP/DONTNEED/FREE/MREMAP operations */
	uint64_t forks;			/* FORK operations */
	uint64_t clusters;		/* address ranges the replayer places */
	uint64_t skipped;		/* records not replayed: faults that mapped nothing
					 * (nr_ptes 0), COWs of pages never seen mapped */
	uint64_t shape_mismatch;	/* touches whose replayed mapping extends beyond the
					 * recorded VMA (merged with a neighbour) */
	uint64_t mremap_partial;	/* mremaps of a range not wholly mapped: replayed as
					 * munmap */
	uint64_t exec_stacks;		/* exec temporary stacks replayed at their
					 * destination (the move itself dropped) */
	uint64_t bytes;			/* size of the file */
};

struct rp_export;

/* Return: an exporter, or NULL with fail() (page_shift out of range). */
struct rp_export *rp_export_new(const struct rp_export_in *in);
/* First pass (optional): note exec's moves of the temporary stack, to replay it in place. */
void rp_export_prescan(struct rp_export *x, const struct ftdb_event *ev);
/* Feed one event in recorded order; events of unselected processes are ignored. */
void rp_export_feed(struct rp_export *x, const struct ftdb_event *ev);
/*
 * Write the file into out (appended) and free the exporter.
 * Return: 0 and *st filled, or fail() (nothing selected had an event).
 */
int rp_export_finish(struct rp_export *x, struct strbuf *out, struct rp_export_stats *st);
void rp_export_free(struct rp_export *x);

/*
 * rp_export_db - export the processes of trace_id matching comm (NULL: any) and pid (< 0:
 * any), the selection of `foliotrace replay --comm/--pid`.
 * Return: 0 with out and *st filled, or -1 with fail().
 */
int rp_export_db(sqlite3 *db, int64_t trace_id, const char *comm, int64_t pid,
		 struct strbuf *out, struct rp_export_stats *st);

#endif /* FT_REPLAY_EXPORT_H */
