// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - the call-site tables' SQL; see sites.h. Tuned for: thousands of stacks and
 * calls and up to millions of touch runs per trace, one prepared statement per table,
 * reset between rows, in one transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/sites.h"
#include "lib/error.h"
#include "lib/xalloc.h"

int ftdb_sites_trace(sqlite3 *h, int64_t trace_id, struct ftdb_sites_trace *t)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(h, "SELECT (SELECT value FROM trace_meta WHERE trace_id = ?1 AND "
			       "key = 'clock_offset_ns'), page_size, last_ts FROM trace "
			       "WHERE trace_id = ?1", -1, &st, NULL) != SQLITE_OK) {
		fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(h));
		goto out;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		fail("trace %lld not found", (long long)trace_id);
		goto out;
	}
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		fail("trace %lld has no clock offset to place the calls on", (long long)trace_id);
		goto out;
	}
	t->clock_offset = (uint64_t)sqlite3_column_int64(st, 0);
	t->page_size = sqlite3_column_int64(st, 1) > 0 ? (uint64_t)sqlite3_column_int64(st, 1)
						       : 4096;
	t->last_ts = (uint64_t)sqlite3_column_int64(st, 2);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int ftdb_sites_pids(sqlite3 *h, int64_t trace_id, struct ftdb_sites_pid **v, size_t *nr)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	*v = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(h, "SELECT proc_id, pid FROM process WHERE trace_id = ? "
			       "ORDER BY proc_id", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(h));
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(*v, cap, *nr + 1);
		(*v)[*nr].proc_id = sqlite3_column_int64(st, 0);
		(*v)[(*nr)++].pid = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	free(*v);
	*v = NULL;
	*nr = 0;
	return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(h));
}

int ftdb_sys_exits(sqlite3 *h, int64_t trace_id, const char *(*intern)(const char *call),
		   struct ftdb_sys_exit **v, size_t *nr)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	*v = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(h, "SELECT tid, ts, call, ret FROM sys_exit WHERE trace_id = ? "
			       "ORDER BY tid, ts", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the system call exits: %s", sqlite3_errmsg(h));
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *call = intern((const char *)sqlite3_column_text(st, 2));

		if (!call)
			continue;
		XGROW(*v, cap, *nr + 1);
		(*v)[(*nr)++] = (struct ftdb_sys_exit){ .tid = sqlite3_column_int(st, 0),
			.ts = (uint64_t)sqlite3_column_int64(st, 1),
			.ret = sqlite3_column_int64(st, 3), .call = call };
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	free(*v);
	*v = NULL;
	*nr = 0;
	return fail("cannot read the system call exits: %s", sqlite3_errmsg(h));
}

int ftdb_sites_stored(sqlite3 *h, int64_t trace_id, const char *db)
{
	sqlite3_stmt *st = NULL;
	int n;

	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM site_call WHERE trace_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return fail("cannot read %s: %s", db, sqlite3_errmsg(h));
	sqlite3_bind_int64(st, 1, trace_id);
	n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return n ? 1 : 0;
}

/* ---- the writer ---- */

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Step an INSERT, then reset it for the next row; *id (if id) its rowid. */
static int step_done(struct ftdb_sites_writer *w, sqlite3_stmt *st, int64_t *id)
{
	int rc = sqlite3_step(st);

	if (id)
		*id = sqlite3_last_insert_rowid(w->h);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail("cannot store the calls: %s", sqlite3_errmsg(w->h));
}

static void finish(struct ftdb_sites_writer *w)
{
	sqlite3_finalize(w->stack);
	sqlite3_finalize(w->frame);
	sqlite3_finalize(w->call);
	sqlite3_finalize(w->touch);
	w->stack = w->frame = w->call = w->touch = NULL;
}

int ftdb_sites_begin(struct ftdb_sites_writer *w, sqlite3 *h, int64_t trace_id)
{
	memset(w, 0, sizeof(*w));
	w->h = h;
	w->trace_id = trace_id;
	w->nested = !sqlite3_get_autocommit(h);
	if (ftdb_exec(h, w->nested ? "SAVEPOINT ftdb_sites" : "BEGIN IMMEDIATE"))
		return -1;
	if (sqlite3_prepare_v2(h, "INSERT INTO site_stack(trace_id, nr_frames, status, "
			       "site_depth) VALUES (?, ?, ?, ?)", -1, &w->stack, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT INTO site_frame(stack_id, depth, ip, module, "
			       "module_offset, proc, proc_offset) VALUES (?, ?, ?, ?, ?, ?, ?)",
			       -1, &w->frame, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT INTO site_call(trace_id, ts, pid, tid, call, arg0, "
			       "arg1, arg2, arg3, arg4, arg5, result, start, end, end_ts, stack_id, "
			       "site, site_module, site_offset, faults, touched_pages) VALUES (?1, "
			       "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
			       "?17, ?18, ?19, ?20, ?21)", -1, &w->call, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT INTO site_touch(trace_id, ev_first, ev_end, call_id) "
			       "VALUES (?, ?, ?, ?)", -1, &w->touch, NULL) != SQLITE_OK) {
		fail("cannot store the calls: %s", sqlite3_errmsg(h));
		ftdb_sites_abort(w);
		return -1;
	}
	return 0;
}

int ftdb_site_stack_add(struct ftdb_sites_writer *w, const struct ftdb_site_stack *s,
			int64_t *stack_id)
{
	sqlite3_bind_int64(w->stack, 1, w->trace_id);
	sqlite3_bind_int(w->stack, 2, s->nr_frames);
	sqlite3_bind_text(w->stack, 3, s->status, -1, SQLITE_STATIC);
	if (s->site_depth >= 0)
		sqlite3_bind_int(w->stack, 4, s->site_depth);
	return step_done(w, w->stack, stack_id);
}

int ftdb_site_frame_add(struct ftdb_sites_writer *w, int64_t stack_id,
			const struct ftdb_site_frame *f)
{
	sqlite3_bind_int64(w->frame, 1, stack_id);
	sqlite3_bind_int(w->frame, 2, f->depth);
	sqlite3_bind_int64(w->frame, 3, (int64_t)f->ip);
	bind_text_or_null(w->frame, 4, f->module);
	sqlite3_bind_int64(w->frame, 5, (int64_t)f->module_offset);
	bind_text_or_null(w->frame, 6, f->proc);
	sqlite3_bind_int64(w->frame, 7, (int64_t)f->proc_offset);
	return step_done(w, w->frame, NULL);
}

int ftdb_site_call_add(struct ftdb_sites_writer *w, const struct ftdb_site_call *c,
		       int64_t *call_id)
{
	sqlite3_stmt *st = w->call;
	int k;

	sqlite3_bind_int64(st, 1, w->trace_id);
	sqlite3_bind_int64(st, 2, (int64_t)c->ts);
	sqlite3_bind_int(st, 3, c->pid);
	sqlite3_bind_int(st, 4, c->tid);
	sqlite3_bind_text(st, 5, c->call, -1, SQLITE_STATIC);
	for (k = 0; k < 6; k++)
		sqlite3_bind_int64(st, 6 + k, (int64_t)c->arg[k]);
	sqlite3_bind_int64(st, 12, c->result);
	if (c->end > c->start) {
		sqlite3_bind_int64(st, 13, (int64_t)c->start);
		sqlite3_bind_int64(st, 14, (int64_t)c->end);
		sqlite3_bind_int64(st, 15, (int64_t)c->end_ts);
	}
	sqlite3_bind_int64(st, 16, c->stack_id);
	bind_text_or_null(st, 17, c->site);
	bind_text_or_null(st, 18, c->site_module);
	if (c->has_site_offset)
		sqlite3_bind_int64(st, 19, (int64_t)c->site_offset);
	sqlite3_bind_int64(st, 20, (int64_t)c->faults);
	sqlite3_bind_int64(st, 21, (int64_t)c->touched_pages);
	return step_done(w, st, call_id);
}

int ftdb_site_nocall_add(struct ftdb_sites_writer *w, int pid, uint64_t faults,
			 uint64_t touched_pages, int64_t *call_id)
{
	sqlite3_stmt *st = w->call;

	sqlite3_bind_int64(st, 1, w->trace_id);
	sqlite3_bind_int(st, 3, pid);
	sqlite3_bind_text(st, 5, "none", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 17, "[no call]", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 20, (int64_t)faults);
	sqlite3_bind_int64(st, 21, (int64_t)touched_pages);
	return step_done(w, st, call_id);
}

int ftdb_site_touch_add(struct ftdb_sites_writer *w, uint64_t ev_first, uint64_t ev_end,
			int64_t call_id)
{
	sqlite3_bind_int64(w->touch, 1, w->trace_id);
	sqlite3_bind_int64(w->touch, 2, (int64_t)ev_first);
	sqlite3_bind_int64(w->touch, 3, (int64_t)ev_end);
	sqlite3_bind_int64(w->touch, 4, call_id);
	return step_done(w, w->touch, NULL);
}

/* Undo what w wrote: its savepoint, or its transaction. */
static void undo(struct ftdb_sites_writer *w)
{
	if (w->nested)
		sqlite3_exec(w->h, "ROLLBACK TO ftdb_sites; RELEASE ftdb_sites", NULL, NULL, NULL);
	else
		ftdb_rollback(w->h);
}

int ftdb_sites_commit(struct ftdb_sites_writer *w, const char *skip)
{
	sqlite3_stmt *st = NULL;
	int rc;

	finish(w);
	if (sqlite3_prepare_v2(w->h, "INSERT OR REPLACE INTO trace_meta(trace_id, key, value) "
			       "VALUES (?, 'sites.skip', ?)", -1, &st, NULL) != SQLITE_OK) {
		fail("cannot store the calls: %s", sqlite3_errmsg(w->h));
		undo(w);
		return -1;
	}
	sqlite3_bind_int64(st, 1, w->trace_id);
	sqlite3_bind_text(st, 2, skip, -1, SQLITE_STATIC);
	rc = step_done(w, st, NULL);
	sqlite3_finalize(st);
	if (rc || ftdb_exec(w->h, w->nested ? "RELEASE ftdb_sites" : "COMMIT")) {
		undo(w);
		return -1;
	}
	return 0;
}

void ftdb_sites_abort(struct ftdb_sites_writer *w)
{
	finish(w);
	undo(w);
}

int ftdb_sites_touched(sqlite3 *h, int64_t trace_id,
		       int (*fn)(const char *site, int64_t pages, void *arg), void *arg)
{
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(h, "SELECT site, sum(touched_pages) FROM site_call WHERE "
			       "trace_id = ? GROUP BY site ORDER BY site", -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(h));
	sqlite3_bind_int64(q, 1, trace_id);
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW)
		ret = fn((const char *)sqlite3_column_text(q, 0), sqlite3_column_int64(q, 1), arg);
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read the call sites: %s", sqlite3_errmsg(h));
	sqlite3_finalize(q);
	return ret;
}

int ftdb_site_slots_each(sqlite3 *h, int64_t trace_id,
			 int (*fn)(const char *site, const char *module, void *arg), void *arg)
{
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(h, "SELECT DISTINCT site, site_module FROM site_call WHERE "
			       "trace_id = ?1 ORDER BY site, site_module", -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(h));
	sqlite3_bind_int64(q, 1, trace_id);
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW)
		ret = fn((const char *)sqlite3_column_text(q, 0),
			 (const char *)sqlite3_column_text(q, 1), arg);
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read the call sites: %s", sqlite3_errmsg(h));
	sqlite3_finalize(q);
	return ret;
}

int ftdb_site_touch_each(sqlite3 *h, int64_t trace_id,
			 int (*fn)(uint64_t ev_first, uint64_t ev_end, const char *site,
				   const char *module, void *arg), void *arg)
{
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(h, "SELECT t.ev_first, t.ev_end, c.site, c.site_module FROM "
			       "site_touch t JOIN site_call c USING (call_id) WHERE t.trace_id = ?1 "
			       "ORDER BY t.ev_first", -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read site_touch: %s", sqlite3_errmsg(h));
	sqlite3_bind_int64(q, 1, trace_id);
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW)
		ret = fn((uint64_t)sqlite3_column_int64(q, 0), (uint64_t)sqlite3_column_int64(q, 1),
			 (const char *)sqlite3_column_text(q, 2),
			 (const char *)sqlite3_column_text(q, 3), arg);
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read site_touch: %s", sqlite3_errmsg(h));
	sqlite3_finalize(q);
	return ret;
}
