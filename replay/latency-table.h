/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latency-table.h - the mcpage RFC's latency table from what guests measured: the
 * new-folio fault latencies (latency_ns) and failed allocations of every trace of a
 * database, pooled per condition (arch, policy, fragmentation, source), per mapped order.
 * The rows of `foliotrace compare DB --latency` (docs/latency.md).
 *
 * A trace is either a recording (source "record": every process, every address) or a
 * guest replay (source "guest-replay": the replayed processes in their ranges, as
 * `compare --sim-vs-real` measures them, measure.h). Its policy is the recording's header
 * policy, or the guest replay's; its fragmentation the header's `fragment` spec ("none"
 * without). Traces on a jiffies clock (latencies in ticks), and guest replays without a
 * replay map (their replayed processes unknown), are left out, one line each in notes
 * for the caller to warn of.
 */
#ifndef FT_REPLAY_LATENCY_TABLE_H
#define FT_REPLAY_LATENCY_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/measure.h"

struct rp_lat_cond {
	char *arch;			/* trace.arch */
	char *policy;			/* policy spec */
	char *fragment;			/* header `fragment` spec, "none" without */
	const char *source;		/* "record" or "guest-replay" (static) */
	uint64_t page_size;		/* bytes (of the first trace) */
	unsigned int traces;		/* traces pooled */
	/* every pooled trace's new-folio fault latencies per order, ns, sorted ascending */
	struct rp_latencies lat[RP_MEASURE_ORDERS];
	uint64_t fb_alloc_failed[RP_MEASURE_ORDERS];	/* as in struct rp_measured, summed */
	uint64_t alloc_failed[RP_MEASURE_ORDERS];	/* as in struct rp_measured, summed */
};

/*
 * rp_latency_table - the conditions of db's traces, in the order of their first trace
 * (trace_id), a trace's faults all in its condition's row.
 * Return: 0 with *conds (rp_latency_table_release() it) and *nr, 0 conditions when no
 * trace has latencies; or -1 with fail().
 */
int rp_latency_table(sqlite3 *db, struct rp_lat_cond **conds, size_t *nr,
		     struct strbuf *notes);
void rp_latency_table_release(struct rp_lat_cond *conds, size_t nr);

#endif /* FT_REPLAY_LATENCY_TABLE_H */
