/* SPDX-License-Identifier: GPL-2.0 */
/*
 * series.h - replay_run.series (schema 8): a simulated run's RSS and faults against trace
 * time, a BLOB of FTDB_SERIES_RECORD-byte records (four little-endian int64: the fields
 * of struct ftdb_series_point, in order), written with its run (in the run writer's
 * transaction, db/runs.h) and read back by the report. What the intervals are:
 * replay/series.h, docs/schema.md.
 */
#ifndef FT_DB_SERIES_H
#define FT_DB_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "db/runs.h"

#define FTDB_SERIES_RECORD 32	/* bytes per point in replay_run.series */

struct ftdb_series_point {
	uint64_t t_ns;		/* end of the interval, ns after the stream's first event */
	uint64_t rss;		/* bytes resident at its end */
	uint64_t rss_max;	/* bytes, the most resident inside it */
	uint64_t faults;	/* faults inside it */
};

/* The n points of run_id (added by w), in w's transaction. Return: 0, or -1 with fail(). */
int ftdb_run_add_series(struct ftdb_run_writer *w, int64_t run_id,
			const struct ftdb_series_point *pt, size_t n);

/*
 * ftdb_run_series - run_id's points in time order. Return: 0 with *pt (free() it; NULL
 * when the run has none, as runs stored before schema 8) and *n, or -1 with fail() (no
 * such run, a BLOB that is not whole records).
 */
int ftdb_run_series(sqlite3 *db, int64_t run_id, struct ftdb_series_point **pt, size_t *n);

/*
 * ftdb_stream_span - the timestamps of trace_id's first and last anonymous events (its
 * event_chunk rows), ns of the trace clock; both 0 for a trace without events.
 * Return: 0, or -1 with fail().
 */
int ftdb_stream_span(sqlite3 *db, int64_t trace_id, uint64_t *first, uint64_t *last);

#endif /* FT_DB_SERIES_H */
