// SPDX-License-Identifier: GPL-2.0
/*
 * query.c - the SQL views of `foliotrace query` and the user's read-only statement; see
 * query.h. The database is opened with SQLITE_OPEN_READONLY (ftdb_open FTDB_READONLY) by
 * the caller; ftdb_user_sql() additionally refuses any statement sqlite3_stmt_readonly()
 * does not vouch for (PRAGMA reads excepted), so a query can never change the database.
 */
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/query.h"
#include "lib/error.h"
#include "lib/xalloc.h"

static const char summary_sql[] =
	"SELECT t.trace_id, t.uuid, t.path, t.arch, t.page_size, t.kernel, t.policy, "
	"t.mem_bytes, t.cpus, t.workload, t.workload_status, t.clocksource, "
	"t.discarded_events, t.partial, t.parent_trace_id, t.first_ts, t.last_ts, "
	"t.last_ts - t.first_ts AS duration_ns, t.events AS events_total, "
	"(SELECT count(*) FROM process WHERE trace_id = t.trace_id) AS processes, "
	"(SELECT count(*) FROM vma JOIN process USING (proc_id) "
	" WHERE process.trace_id = t.trace_id) AS vmas, "
	"(SELECT coalesce(sum(anon_faults), 0) FROM process WHERE trace_id = t.trace_id) "
	" AS anon_faults, "
	"(SELECT coalesce(sum(zero_wp), 0) FROM process WHERE trace_id = t.trace_id) AS zero_wp, "
	"(SELECT coalesce(sum(cow), 0) FROM process WHERE trace_id = t.trace_id) AS cow, "
	"(SELECT coalesce(sum(zaps), 0) FROM process WHERE trace_id = t.trace_id) AS zaps, "
	"(SELECT coalesce(sum(nr_events), 0) FROM event_chunk WHERE trace_id = t.trace_id) "
	" AS stream_records, "
	"(SELECT coalesce(sum(length(data)), 0) FROM event_chunk WHERE trace_id = t.trace_id) "
	" AS stream_bytes, "
	"t.ingested_at, t.tool_version FROM trace t WHERE t.trace_id = :trace";

static const char procs_sql[] =
	"SELECT p.proc_id, p.pid, p.comm, p.mm, p.parent_proc_id, p.anon_faults, p.zero_wp, "
	"p.cow, p.zaps, (SELECT count(*) FROM vma v WHERE v.proc_id = p.proc_id) AS vmas, "
	"p.first_ts, p.last_ts FROM process p WHERE p.trace_id = :trace "
	"AND (:pid < 0 OR p.pid = :pid) AND (NOT :workload OR p.workload = 1) "
	"ORDER BY p.proc_id LIMIT :limit";

static const char vmas_sql[] =
	"SELECT v.vma_id, v.proc_id, p.pid, p.comm, v.start, v.end, v.end - v.start AS bytes, "
	"v.flags, v.faults, v.first_ts FROM vma v JOIN process p USING (proc_id) "
	"WHERE p.trace_id = :trace AND (:pid < 0 OR p.pid = :pid) "
	"ORDER BY v.proc_id, v.start, v.vma_id LIMIT :limit";

static const char orders_sql[] =
	"SELECT order_ AS \"order\", "
	"(SELECT page_size FROM trace WHERE trace_id = :trace) << order_ AS block_bytes, "
	"sum(faults) AS faults, sum(CASE WHEN zero_page THEN faults ELSE 0 END) "
	"AS zero_page_faults, sum(ptes) AS ptes, "
	"sum(CASE WHEN zero_page THEN 0 ELSE ptes END) * "
	"(SELECT page_size FROM trace WHERE trace_id = :trace) AS mapped_bytes "
	"FROM fault_order WHERE trace_id = :trace GROUP BY order_ ORDER BY order_";

/*
 * sites (docs/sites.md): per site, or per stack with --stack; the '[no call]' rows hold the
 * faults of traced processes that no call's range covers. Lifetime: from the call to its
 * range's unmapping (end_ts), median over the site's regions.
 */
#define SITES_SQL(KEY, COLS, MATCH) \
	"WITH c AS (SELECT c.*, s.status FROM site_call c LEFT JOIN site_stack s USING " \
	" (stack_id) WHERE c.trace_id = :trace AND (:pid < 0 OR c.pid = :pid)), " \
	"m AS (SELECT " KEY ", end_ts - ts AS life, row_number() OVER (PARTITION BY " KEY \
	" ORDER BY end_ts - ts) AS rn, count(*) OVER (PARTITION BY " KEY ") AS n FROM c " \
	" WHERE start IS NOT NULL), " \
	"g AS (SELECT " KEY ", site, site_module, min(site_offset) AS site_offset, " \
	" sum(call <> 'none') AS calls, sum(start IS NOT NULL) AS regions, " \
	" coalesce(sum(end - start), 0) AS mapped_bytes, sum(touched_pages) AS touched_pages, " \
	" sum(faults) AS anon_faults, sum(coalesce(status, 'ok') <> 'ok') AS unwind_failed " \
	" FROM c GROUP BY " KEY ") " \
	"SELECT site, site_module AS module, " COLS "calls, regions, mapped_bytes, " \
	" touched_pages, anon_faults, CASE WHEN mapped_bytes > 0 THEN round(touched_pages * " \
	" (SELECT page_size FROM trace WHERE trace_id = :trace) * 1.0 / mapped_bytes, 4) END " \
	" AS density, (SELECT life FROM m WHERE " MATCH " AND rn = (n + 1) / 2) " \
	" AS median_lifetime_ns, unwind_failed FROM g " \
	" ORDER BY anon_faults DESC, site, module LIMIT :limit"

static const char sites_sql[] = SITES_SQL("site, site_module", "",
	"m.site = g.site AND m.site_module IS g.site_module");

static const char sites_stack_sql[] = SITES_SQL("stack_id", "site_offset AS module_offset, "
	"stack_id, (SELECT status FROM site_stack s WHERE s.stack_id = g.stack_id) AS status, "
	"(SELECT group_concat(coalesce(proc, '?') || '+0x' || printf('%x', proc_offset), ' < ') "
	" FROM (SELECT proc, proc_offset FROM site_frame f WHERE f.stack_id = g.stack_id "
	" ORDER BY depth)) AS stack, ", "m.stack_id IS g.stack_id");

static const char events_sql[] =
	"SELECT name, count FROM event_count WHERE trace_id = :trace ORDER BY name";

/* Bind the named parameters a statement uses; step it, handing rows to out; finalize. */
static int rows(sqlite3 *db, sqlite3_stmt *st, const struct ftdb_view_args *a,
		const struct ftdb_rows *out)
{
	int i, n, rc, ret;
	const char **names;
	struct ftdb_value *v;

	for (i = 1; a && i <= sqlite3_bind_parameter_count(st); i++) {
		const char *name = sqlite3_bind_parameter_name(st, i);

		if (!name)
			continue;
		if (!strcmp(name, ":trace"))
			sqlite3_bind_int64(st, i, a->trace_id);
		else if (!strcmp(name, ":pid"))
			sqlite3_bind_int64(st, i, a->pid);
		else if (!strcmp(name, ":limit"))
			sqlite3_bind_int64(st, i, a->limit);
		else if (!strcmp(name, ":workload"))
			sqlite3_bind_int(st, i, a->workload);
	}
	n = sqlite3_column_count(st);
	names = xcalloc((size_t)n + 1, sizeof(*names));
	v = xcalloc((size_t)n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		names[i] = sqlite3_column_name(st, i);
	ret = out->columns ? out->columns(out->arg, names, n) : 0;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			memset(&v[i], 0, sizeof(v[i]));
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				v[i].type = FTDB_V_NULL;
				break;
			case SQLITE_INTEGER:
				v[i].type = FTDB_V_INT;
				v[i].i = sqlite3_column_int64(st, i);
				break;
			case SQLITE_FLOAT:
				v[i].type = FTDB_V_REAL;
				v[i].d = sqlite3_column_double(st, i);
				break;
			case SQLITE_BLOB:
				v[i].type = FTDB_V_BLOB;
				break;
			default:
				v[i].type = FTDB_V_TEXT;
				v[i].s = (const char *)sqlite3_column_text(st, i);
			}
		}
		ret = out->row(out->arg, v, n);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = fail("query failed: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(names);
	free(v);
	return ret;
}

int ftdb_view(sqlite3 *db, enum ftdb_view v, const struct ftdb_view_args *a,
	      const struct ftdb_rows *out)
{
	static const char *const sql[] = {
		[FTDB_VIEW_SUMMARY] = summary_sql,
		[FTDB_VIEW_EVENTS] = events_sql,
		[FTDB_VIEW_PROCS] = procs_sql,
		[FTDB_VIEW_VMAS] = vmas_sql,
		[FTDB_VIEW_ORDERS] = orders_sql,
		[FTDB_VIEW_SITES] = sites_sql,
		[FTDB_VIEW_STACKS] = sites_stack_sql,
	};
	sqlite3_stmt *st;

	if ((unsigned int)v >= sizeof(sql) / sizeof(sql[0]))
		return fail("unknown view %d", (int)v);
	if (sqlite3_prepare_v2(db, sql[v], -1, &st, NULL) != SQLITE_OK)
		return fail("query failed: %s", sqlite3_errmsg(db));
	return rows(db, st, a, out);
}

/* What the authorizer saw while the user's statement was prepared. */
struct sql_auth {
	int pragma_read;	/* a PRAGMA without a value: "PRAGMA journal_mode" */
	int pragma_set;		/* a PRAGMA with a value or argument */
};

static int sql_auth_cb(void *arg, int action, const char *a1, const char *a2, const char *db,
		       const char *trigger)
{
	struct sql_auth *a = arg;

	if (action == SQLITE_PRAGMA)
		*(a2 ? &a->pragma_set : &a->pragma_read) = 1;
	return SQLITE_OK;
}

int ftdb_user_sql(sqlite3 *db, const char *sql, const struct ftdb_rows *out)
{
	struct sql_auth auth = { 0 };
	sqlite3_stmt *st, *next;
	const char *tail;
	int rc;

	sqlite3_set_authorizer(db, sql_auth_cb, &auth);
	rc = sqlite3_prepare_v2(db, sql, -1, &st, &tail);
	sqlite3_set_authorizer(db, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail("invalid SQL: %s", sqlite3_errmsg(db));
	if (!st)
		return fail("empty SQL statement");
	/* what follows may only be comments, blanks and semicolons: SQLite's own lexer says */
	while (*tail) {
		if (sqlite3_prepare_v2(db, tail, -1, &next, &tail) != SQLITE_OK || next) {
			sqlite3_finalize(next);
			sqlite3_finalize(st);
			return fail("only one SQL statement at a time");
		}
	}
	if (!sqlite3_stmt_readonly(st) && !(auth.pragma_read && !auth.pragma_set)) {
		sqlite3_finalize(st);
		return fail("refusing a statement that writes: query is read-only");
	}
	return rows(db, st, NULL, out);
}

int ftdb_trace_marks_workload(sqlite3 *db, int64_t trace_id, int *marked)
{
	sqlite3_stmt *st;
	int rc;

	*marked = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM process WHERE trace_id = ? AND "
			       "workload IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return fail("query failed: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*marked = sqlite3_column_int64(st, 0) > 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail("query failed: %s", sqlite3_errmsg(db));
	return 0;
}

static int proc_pids(sqlite3 *db, int64_t trace_id, int64_t *base, int32_t **pid, size_t *n)
{
	sqlite3_stmt *st;
	int64_t lo = 0, hi = -1;
	int rc;

	*pid = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT min(proc_id), max(proc_id) FROM process "
			       "WHERE trace_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read processes: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		lo = sqlite3_column_int64(st, 0);
		hi = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	*base = lo;
	*n = (size_t)(hi - lo + 1);
	*pid = xcalloc(*n ? *n : 1, sizeof(**pid));
	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid FROM process WHERE trace_id = ?1", -1,
			       &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		(*pid)[sqlite3_column_int64(st, 0) - lo] = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
fail:
	free(*pid);
	*pid = NULL;
	*n = 0;
	return fail("cannot read processes: %s", sqlite3_errmsg(db));
}

struct faults {
	const struct ftdb_view_args *a;
	const struct ftdb_rows *out;
	int64_t base;		/* smallest proc_id of the trace */
	int32_t *pid;		/* pid of proc_id base + i */
	size_t n;
	int64_t rows;
};

static int fault_row(const struct ftdb_event *ev, void *arg)
{
	struct faults *c = arg;
	struct ftdb_value v[12];
	int64_t i = (int64_t)ev->proc_id - c->base;
	int32_t pid = i >= 0 && (size_t)i < c->n ? c->pid[i] : -1;
	int k;

	if (ev->kind != FTDB_EV_FAULT)
		return 0;
	if (c->a->pid >= 0 && pid != c->a->pid)
		return 0;
	if (c->a->limit >= 0 && c->rows >= c->a->limit)
		return 1;	/* stop the walk: enough rows */
	c->rows++;
	memset(v, 0, sizeof(v));
	for (k = 0; k < 12; k++)
		v[k].type = FTDB_V_INT;
	v[0].i = (int64_t)ev->ts;
	v[1].i = pid;
	v[2].i = pid + ev->tid_lo;
	v[3].i = (int64_t)ev->addr;
	v[4].i = !!(ev->flags & FTDB_EVF_WRITE);
	v[5].i = ev->order;
	v[6].i = ev->nr_ptes;
	v[7].i = !!(ev->flags & FTDB_EVF_ZERO_PAGE);
	v[8].type = FTDB_V_TEXT;
	v[8].s = ftdb_fallback_name(ev->reason);
	v[9].i = ftdb_ns_sat(ev->aux);
	v[10].i = ev->proc_id;
	v[11].i = ev->vma_id;
	return c->out->row(c->out->arg, v, 12) ? -1 : 0;
}

int ftdb_view_faults(sqlite3 *db, const struct ftdb_view_args *a, const struct ftdb_rows *out)
{
	static const char *const cols[] = { "ts", "pid", "tid", "address", "write", "order",
					    "nr_ptes", "zero_page", "fallback", "latency_ns",
					    "proc_id", "vma_id" };
	struct faults c = { .a = a, .out = out };
	int ret;

	if (out->columns && (ret = out->columns(out->arg, cols, 12)))
		return ret;
	if (proc_pids(db, a->trace_id, &c.base, &c.pid, &c.n))
		return -1;
	ret = ftdb_stream_foreach(db, a->trace_id, fault_row, &c);
	free(c.pid);
	return ret < 0 ? -1 : 0;
}
