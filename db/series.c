// SPDX-License-Identifier: GPL-2.0
/*
 * series.c - replay_series' statements; see series.h.
 */
#include <stdlib.h>

#include "db/series.h"
#include "lib/error.h"
#include "lib/xalloc.h"

int ftdb_run_add_series(struct ftdb_run_writer *w, int64_t run_id,
			const struct ftdb_series_point *pt, size_t n)
{
	sqlite3_stmt *st;
	size_t i;
	int ret = 0;

	if (sqlite3_prepare_v2(w->db, "INSERT INTO replay_series(run_id, point, t_ns, rss_bytes, "
			       "rss_max_bytes, faults) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st,
			       NULL) != SQLITE_OK)
		return fail("cannot store the run's series: %s", sqlite3_errmsg(w->db));
	for (i = 0; i < n && !ret; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, (int64_t)pt[i].t_ns);
		sqlite3_bind_int64(st, 4, (int64_t)pt[i].rss);
		sqlite3_bind_int64(st, 5, (int64_t)pt[i].rss_max);
		sqlite3_bind_int64(st, 6, (int64_t)pt[i].faults);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = fail("cannot store the run's series: %s", sqlite3_errmsg(w->db));
	}
	sqlite3_finalize(st);
	return ret;
}

int ftdb_run_series(sqlite3 *db, int64_t run_id, struct ftdb_series_point **pt, size_t *n)
{
	struct ftdb_series_point *v = NULL;
	size_t nr = 0, cap = 0;
	sqlite3_stmt *st;
	int rc;

	*pt = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT t_ns, rss_bytes, rss_max_bytes, faults FROM "
			       "replay_series WHERE run_id = ? ORDER BY point", -1, &st,
			       NULL) != SQLITE_OK)
		return fail("cannot read the run's series: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(v, cap, nr + 1);
		v[nr].t_ns = (uint64_t)sqlite3_column_int64(st, 0);
		v[nr].rss = (uint64_t)sqlite3_column_int64(st, 1);
		v[nr].rss_max = (uint64_t)sqlite3_column_int64(st, 2);
		v[nr].faults = (uint64_t)sqlite3_column_int64(st, 3);
		nr++;
	}
	if (rc != SQLITE_DONE) {
		free(v);
		fail("cannot read the run's series: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
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
