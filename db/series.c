// SPDX-License-Identifier: GPL-2.0
/*
 * series.c - replay_run.series and the stream's span; see series.h.
 */
#include <stdint.h>
#include <stdlib.h>

#include "db/series.h"
#include "lib/error.h"
#include "lib/xalloc.h"

/* A point's four fields as little-endian int64, whatever the host's byte order. */
static void put64(uint8_t *d, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		d[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *d)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | d[i];
	return v;
}

int ftdb_run_add_series(struct ftdb_run_writer *w, int64_t run_id,
			const struct ftdb_series_point *pt, size_t n)
{
	uint8_t *blob = xcalloc(n + 1, FTDB_SERIES_RECORD);
	sqlite3_stmt *st;
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		uint8_t *d = blob + i * FTDB_SERIES_RECORD;

		put64(d, pt[i].t_ns);
		put64(d + 8, pt[i].rss);
		put64(d + 16, pt[i].rss_max);
		put64(d + 24, pt[i].faults);
	}
	if (sqlite3_prepare_v2(w->db, "UPDATE replay_run SET series = ?2 WHERE run_id = ?1", -1,
			       &st, NULL) != SQLITE_OK) {
		free(blob);
		return fail("cannot store the run's series: %s", sqlite3_errmsg(w->db));
	}
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_blob(st, 2, blob, (int)(n * FTDB_SERIES_RECORD), SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE || sqlite3_changes(w->db) != 1)
		ret = fail("cannot store the run's series: %s", sqlite3_errmsg(w->db));
	sqlite3_finalize(st);
	free(blob);
	return ret;
}

int ftdb_run_series(sqlite3 *db, int64_t run_id, struct ftdb_series_point **pt, size_t *n)
{
	struct ftdb_series_point *v = NULL;
	const uint8_t *b;
	sqlite3_stmt *st;
	size_t i, len, nr;
	int rc;

	*pt = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT series FROM replay_run WHERE run_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return fail("cannot read the run's series: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? fail("no replay run %lld", (long long)run_id) :
		       fail("cannot read the run's series: %s", sqlite3_errmsg(db));
	}
	b = sqlite3_column_blob(st, 0);
	len = (size_t)sqlite3_column_bytes(st, 0);
	if (len % FTDB_SERIES_RECORD) {
		sqlite3_finalize(st);
		return fail("run %lld: its series is %zu bytes, not a multiple of %d",
			    (long long)run_id, len, FTDB_SERIES_RECORD);
	}
	nr = len / FTDB_SERIES_RECORD;
	if (nr)
		v = xcalloc(nr, sizeof(*v));
	for (i = 0; i < nr; i++) {
		const uint8_t *d = b + i * FTDB_SERIES_RECORD;

		v[i].t_ns = get64(d);
		v[i].rss = get64(d + 8);
		v[i].rss_max = get64(d + 16);
		v[i].faults = get64(d + 24);
	}
	sqlite3_finalize(st);
	*pt = v;
	*n = nr;
	return 0;
}

int ftdb_stream_span(sqlite3 *db, int64_t trace_id, uint64_t *first, uint64_t *last)
{
	sqlite3_stmt *st;
	int rc;

	*first = *last = 0;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(min(first_ts), 0), coalesce(max(last_ts), 0) "
			       "FROM event_chunk WHERE trace_id = ?", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the event stream's span: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*first = (uint64_t)sqlite3_column_int64(st, 0);
		*last = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail("cannot read the event stream's span: %s",
					   sqlite3_errmsg(db));
}
