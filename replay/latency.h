/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latency.h - the recorded fault latency of a trace: exact nearest-rank percentiles of
 * anon_fault latency_ns per mapped order, the rows of `foliotrace query latency` and of
 * report's latency chart.
 */
#ifndef FT_REPLAY_LATENCY_H
#define FT_REPLAY_LATENCY_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "db/stream.h"

/*
 * Latencies are u64 in the trace but int64 in every output (SQL, JSON): a value above
 * INT64_MAX (292 years; only a damaged trace holds one) is saturated to INT64_MAX here,
 * never wrapped to a negative number (docs/cli-json.md).
 */
struct rp_latency_row {
	unsigned int order;		/* order the fault mapped */
	int zero_page;			/* 1: it mapped the zero page */
	int64_t faults;			/* anon_fault records of the group */
	int64_t p50_ns, p90_ns, p99_ns;	/* nearest rank: a measured value each */
	int64_t max_ns;
	int64_t mean_ns;		/* exact (128-bit sum), rounded half up */
};

/* A u64 ns value as the int64 the outputs hold: saturated, never negative. */
static inline int64_t rp_latency_sat(uint64_t v)
{
	return ftdb_ns_sat(v);
}

/*
 * rp_latency_rows - one row per (order, zero_page) group with faults, by order then
 * zero_page, over the trace's FAULT records of processes with tgid pid (-1: all).
 * Percentiles are nearest-rank: pN is the value at 1-based rank ceil(N/100 * n) of the
 * sorted latencies, so every value was measured. Exact: every latency is kept while it
 * runs, 8 bytes per fault.
 * Return: 0 with *rows (free() it; NULL if none) and *nr, or -1 with fail().
 */
int rp_latency_rows(sqlite3 *db, int64_t trace_id, int64_t pid, struct rp_latency_row **rows,
		    size_t *nr);

#endif /* FT_REPLAY_LATENCY_H */
