// SPDX-License-Identifier: GPL-2.0
/* runs.c - replay runs stored and read back; see runs.h. */
#include <stdio.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/runs.h"
#include "lib/error.h"

int ftdb_run_writer_begin(sqlite3 *db, struct ftdb_run_writer *w)
{
	memset(w, 0, sizeof(*w));
	w->db = db;
	if (ftdb_exec(db, "BEGIN IMMEDIATE"))
		return fail("cannot store replay runs");
	if (sqlite3_prepare_v2(db, "INSERT INTO replay_run(trace_id, policy, frag, kind, "
			       "guest_trace_id, filter, tool_version, created_at, elapsed_ns) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
			       "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?8)", -1, &w->run,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO replay_metric(run_id, proc_id, name, value) "
			       "VALUES (?1, ?2, ?3, ?4)", -1, &w->metric, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO replay_site(run_id, site, site_module, faults, "
			       "bloat_bytes, zeroed_bytes, rss_at_peak_bytes) VALUES (?1, ?2, ?3, "
			       "?4, ?5, ?6, ?7)", -1, &w->site, NULL) != SQLITE_OK) {
		fail("cannot store replay runs: %s", sqlite3_errmsg(db));
		ftdb_run_writer_abort(w);
		return -1;
	}
	return 0;
}

static void finalize(struct ftdb_run_writer *w)
{
	sqlite3_finalize(w->run);
	sqlite3_finalize(w->metric);
	sqlite3_finalize(w->site);
	w->run = w->metric = w->site = NULL;
}

void ftdb_run_writer_abort(struct ftdb_run_writer *w)
{
	finalize(w);
	ftdb_rollback(w->db);
}

int ftdb_run_writer_commit(struct ftdb_run_writer *w)
{
	finalize(w);
	if (ftdb_exec(w->db, "COMMIT")) {
		ftdb_rollback(w->db);
		return fail("cannot store replay runs");
	}
	return 0;
}

int ftdb_run_add(struct ftdb_run_writer *w, const struct ftdb_run *r, int64_t *run_id)
{
	sqlite3_stmt *st = w->run;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, r->trace_id);
	sqlite3_bind_text(st, 2, r->policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->frag, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->kind, -1, SQLITE_STATIC);
	if (r->guest_trace_id)
		sqlite3_bind_int64(st, 5, r->guest_trace_id);
	else
		sqlite3_bind_null(st, 5);
	if (r->filter && *r->filter)
		sqlite3_bind_text(st, 6, r->filter, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_text(st, 7, FT_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, r->elapsed_ns);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail("cannot store replay run: %s", sqlite3_errmsg(w->db));
	*run_id = sqlite3_last_insert_rowid(w->db);
	return 0;
}

int ftdb_run_add_metric(struct ftdb_run_writer *w, int64_t run_id, int64_t proc_id,
			const char *name, int64_t value)
{
	sqlite3_stmt *st = w->metric;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	if (proc_id < 0)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int64(st, 2, proc_id);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, value);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail("cannot store replay metric: %s", sqlite3_errmsg(w->db));
	return 0;
}

int ftdb_run_add_site(struct ftdb_run_writer *w, int64_t run_id, const char *site,
		      const char *module, int64_t faults, int64_t bloat_bytes,
		      int64_t zeroed_bytes, int64_t rss_at_peak_bytes)
{
	sqlite3_stmt *st = w->site;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, site, -1, SQLITE_STATIC);
	if (module)
		sqlite3_bind_text(st, 3, module, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, faults);
	sqlite3_bind_int64(st, 5, bloat_bytes);
	sqlite3_bind_int64(st, 6, zeroed_bytes);
	sqlite3_bind_int64(st, 7, rss_at_peak_bytes);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail("cannot store replay site: %s", sqlite3_errmsg(w->db));
	return 0;
}

int ftdb_run_link_guest(sqlite3 *db, const struct ftdb_run *r, int64_t *run_id)
{
	struct ftdb_run_writer w;
	sqlite3_stmt *st = NULL;

	if (ftdb_run_writer_begin(db, &w))
		return -1;
	if (sqlite3_prepare_v2(db, "UPDATE trace SET parent_trace_id = ?1 WHERE trace_id = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, r->trace_id);
	sqlite3_bind_int64(st, 2, r->guest_trace_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto sql_error;
	sqlite3_finalize(st);
	if (ftdb_run_add(&w, r, run_id)) {
		ftdb_run_writer_abort(&w);
		return fail("cannot link the guest trace");
	}
	return ftdb_run_writer_commit(&w);
sql_error:
	fail("cannot link the guest trace: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	ftdb_run_writer_abort(&w);
	return -1;
}

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

int ftdb_runs_each(sqlite3 *db, int64_t trace_id, const char *kind, const char *frag,
		   const char *policy, int (*fn)(const struct ftdb_run_row *r, void *arg),
		   void *arg)
{
	struct ftdb_run_row r;
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT run_id, policy, frag, coalesce(filter, ''), "
			       "coalesce(created_at, ''), coalesce(elapsed_ns, 0), "
			       "coalesce(guest_trace_id, 0) FROM replay_run WHERE trace_id = ?1 AND "
			       "kind = ?2 AND (?3 IS NULL OR frag = ?3) AND (?4 IS NULL OR "
			       "policy = ?4) ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (frag)
		sqlite3_bind_text(st, 3, frag, -1, SQLITE_STATIC);
	if (policy)
		sqlite3_bind_text(st, 4, policy, -1, SQLITE_STATIC);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&r, 0, sizeof(r));
		r.run_id = sqlite3_column_int64(st, 0);
		col_text(st, 1, r.policy, sizeof(r.policy));
		col_text(st, 2, r.frag, sizeof(r.frag));
		col_text(st, 3, r.filter, sizeof(r.filter));
		col_text(st, 4, r.created_at, sizeof(r.created_at));
		r.elapsed_ns = sqlite3_column_int64(st, 5);
		r.guest_trace_id = sqlite3_column_int64(st, 6);
		ret = fn(&r, arg);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int ftdb_run_totals(sqlite3 *db, int64_t run_id,
		    int (*fn)(const char *name, int64_t value, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT name, value FROM replay_metric WHERE run_id = ? AND "
			       "proc_id IS NULL", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read replay metrics: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = fn((const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
			 arg);
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read replay metrics: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int ftdb_run_sites(sqlite3 *db, int64_t run_id,
		   int (*fn)(const struct ftdb_site_row *s, void *arg), void *arg)
{
	struct ftdb_site_row s;
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT site, site_module, faults, bloat_bytes, zeroed_bytes, "
			       "rss_at_peak_bytes FROM replay_site WHERE run_id = ? ORDER BY site, "
			       "site_module", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read per-site metrics: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		s.site = (const char *)sqlite3_column_text(st, 0);
		s.module = (const char *)sqlite3_column_text(st, 1);
		s.faults = sqlite3_column_int64(st, 2);
		s.bloat_bytes = sqlite3_column_int64(st, 3);
		s.zeroed_bytes = sqlite3_column_int64(st, 4);
		s.rss_at_peak_bytes = sqlite3_column_int64(st, 5);
		ret = fn(&s, arg);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read per-site metrics: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int ftdb_run_filters(sqlite3 *db, int64_t trace_id, const char *frag,
		     int (*fn)(const char *filter, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT coalesce(filter, '') FROM replay_run WHERE "
			       "trace_id = ?1 AND kind = 'sim' AND (?2 IS NULL OR frag = ?2) "
			       "ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	if (frag)
		sqlite3_bind_text(st, 2, frag, -1, SQLITE_STATIC);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = fn((const char *)sqlite3_column_text(st, 0), arg);
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}
