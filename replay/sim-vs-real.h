/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-vs-real.h - the simulator against real guests (`foliotrace compare DB --sim-vs-real`,
 * docs/guest-replay.md): for each policy replayed in a guest (`foliotrace guest replay`),
 * the stored simulation of that policy against what the guest's own trace measured
 * (replay/measure.h), with the error in percent; the metrics shown are those the metric
 * table marks RP_SHOW_REAL, in its order. Only reads the database: the simulated runs are
 * stored by `guest replay` (for the selection it replayed) or `foliotrace replay`.
 */
#ifndef FT_REPLAY_SIM_VS_REAL_H
#define FT_REPLAY_SIM_VS_REAL_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/filter.h"

struct rp_svr_row {
	char policy[64];		/* canonical spec */
	char metric[64];		/* a metric name, or fault_latency_pNN_ns_order_K */
	int has_sim, has_real;		/* 0: no value on that side (null) */
	uint64_t sim, real;
	int has_error;			/* both sides known: error_pct is set */
	double error_pct;		/* (real - sim) / sim * 100, rounded to 3 decimals;
					 * 0 when both are 0 */
	const char *kind;		/* "guest"; "kernel": a 6.12 guest's own per-size
					 * counter (mthp-stats.h), less what our trace gives
					 * to processes the replay did not replay; or
					 * "sim-only" (the guest knob cannot express the
					 * policy) */
};

struct rp_svr {
	int64_t trace_id;		/* the trace compared */
	char filter[RP_FILTER_LEN];	/* the selection compared, "" for none */
	struct rp_svr_row *rows;
	size_t n, cap;
	struct strbuf left_out;		/* one line per guest replay left out (it replayed
					 * another selection), for the caller to warn of */
};

/*
 * rp_sim_vs_real - the rows for trace want_trace (0: the only or newest recording) of the
 * database db (named dbpath in messages): for every policy with a guest replay (its latest
 * run), the simulated metrics (latest sim run of that policy, frag none, same selection)
 * next to the real ones, and real fault latency percentiles per order; then the
 * simulation-only policies with a stored sim run, without a real value. comm/pid narrow
 * the comparison to the replayed processes recorded with that name/tgid (NULL/-1: the
 * newest guest replay's own selection).
 * Return: 0 with *out (rp_svr_release() it), or -1 with fail(): no guest replay, or a
 * missing simulation (the message names the `foliotrace replay` command that stores it).
 */
int rp_sim_vs_real(sqlite3 *db, const char *dbpath, int64_t want_trace, const char *comm,
		   int64_t pid, struct rp_svr *out);
void rp_svr_release(struct rp_svr *s);

#endif /* FT_REPLAY_SIM_VS_REAL_H */
