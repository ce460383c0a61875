// SPDX-License-Identifier: GPL-2.0
/* traces.c - the trace table read and linked; see traces.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"

/* What a recording is: the one definition (traces.h). */
#define RECORDING "parent_trace_id IS NULL"

int ftdb_pick_trace(sqlite3 *db, int64_t want, int64_t *trace_id)
{
	sqlite3_stmt *st;
	int rc;

	if (want > 0) {
		rc = sqlite3_prepare_v2(db, "SELECT trace_id FROM trace WHERE trace_id = ?", -1,
					&st, NULL);
		if (rc == SQLITE_OK)
			sqlite3_bind_int64(st, 1, want);
	} else {
		rc = sqlite3_prepare_v2(db, "SELECT trace_id FROM trace ORDER BY " RECORDING
					" DESC, trace_id DESC LIMIT 1", -1, &st, NULL);
	}
	if (rc != SQLITE_OK)
		return fail("cannot look up traces: %s", sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*trace_id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("cannot look up traces: %s", sqlite3_errmsg(db));
	if (want > 0)
		return fail("no trace %lld in the database", (long long)want);
	return fail("the database holds no trace");
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return xstrdup(s ? (const char *)s : "");
}

int ftdb_trace_get(sqlite3 *db, int64_t trace_id, struct ftdb_trace *t)
{
	static const char sql[] =
		"SELECT t.trace_id, coalesce(t.parent_trace_id, 0), t.uuid, t.path, t.arch, "
		"t.kernel, t.policy, t.workload, t.clocksource, coalesce(t.page_size, 0), "
		"coalesce(t.mem_bytes, 0), coalesce(t.workload_status, -1), t.partial, t.events, "
		"t.discarded_events, (SELECT count(*) FROM process p WHERE p.trace_id = "
		"t.trace_id), (SELECT coalesce(sum(anon_faults), 0) FROM process p WHERE "
		"p.trace_id = t.trace_id), t.clock FROM trace t WHERE t.trace_id = ?";
	sqlite3_stmt *st;
	int rc;

	memset(t, 0, sizeof(*t));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			fail("no trace %lld in the database", (long long)trace_id);
		else
			fail("cannot read trace %lld: %s", (long long)trace_id,
			      sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	t->trace_id = sqlite3_column_int64(st, 0);
	t->parent_trace_id = sqlite3_column_int64(st, 1);
	t->uuid = col_dup(st, 2);
	t->path = col_dup(st, 3);
	t->arch = col_dup(st, 4);
	t->kernel = col_dup(st, 5);
	t->policy = col_dup(st, 6);
	t->workload = col_dup(st, 7);
	t->clocksource = col_dup(st, 8);
	t->page_size = sqlite3_column_int64(st, 9);
	t->mem_bytes = sqlite3_column_int64(st, 10);
	t->workload_status = sqlite3_column_int(st, 11);
	t->partial = sqlite3_column_int(st, 12);
	t->events = sqlite3_column_int64(st, 13);
	t->discarded_events = sqlite3_column_int64(st, 14);
	t->processes = sqlite3_column_int64(st, 15);
	t->anon_faults = sqlite3_column_int64(st, 16);
	t->clock = col_dup(st, 17);
	sqlite3_finalize(st);
	return 0;
}

void ftdb_trace_release(struct ftdb_trace *t)
{
	free(t->uuid);
	free(t->path);
	free(t->arch);
	free(t->kernel);
	free(t->policy);
	free(t->workload);
	free(t->clocksource);
	free(t->clock);
	memset(t, 0, sizeof(*t));
}

int ftdb_recordings(sqlite3 *db, int all, int64_t **ids, size_t *nr)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(db, all ? "SELECT trace_id FROM trace ORDER BY trace_id" :
			       "SELECT trace_id FROM trace WHERE " RECORDING " ORDER BY trace_id",
			       -1, &st, NULL) != SQLITE_OK)
		return fail("cannot look up traces: %s", sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(*ids, cap, *nr + 1);
		(*ids)[(*nr)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*nr = 0;
		return fail("cannot look up traces: %s", sqlite3_errmsg(db));
	}
	return 0;
}

int ftdb_trace_meta(sqlite3 *db, int64_t trace_id, const char *key, char **value)
{
	sqlite3_stmt *st;
	int rc;

	*value = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM trace_meta WHERE trace_id = ? AND key = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read trace_meta: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		*value = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail("cannot read trace_meta: %s", sqlite3_errmsg(db));
	return 0;
}

int ftdb_trace_site_rows(sqlite3 *db, int64_t trace_id, int64_t *calls, int64_t *touches)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM site_call WHERE trace_id = ?1), "
			       "(SELECT count(*) FROM site_touch WHERE trace_id = ?1)", -1, &st,
			       NULL) != SQLITE_OK)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*calls = sqlite3_column_int64(st, 0);
		*touches = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(db));
	return 0;
}

int ftdb_trace_sites(sqlite3 *db, int64_t trace_id, int64_t *calls, int64_t *stacks,
		     int64_t *unwind_failed)
{
	static const char sql[] =
		"SELECT count(*), count(DISTINCT stack_id), coalesce(sum(s.status <> 'ok'), 0)"
		" FROM site_call c LEFT JOIN site_stack s USING (stack_id) WHERE c.call <> 'none'"
		" AND c.trace_id = ?";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the calls of trace %lld: %s", (long long)trace_id,
			     sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*calls = sqlite3_column_int64(st, 0);
		*stacks = sqlite3_column_int64(st, 1);
		*unwind_failed = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail("cannot read the calls of trace %lld: %s", (long long)trace_id,
			     sqlite3_errmsg(db));
	return 0;
}

static const char *text_or(sqlite3_stmt *st, int i, const char *dflt)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : dflt;
}

int ftdb_traces_each_kind(sqlite3 *db, int (*fn)(const struct ftdb_trace_kind *k, void *arg),
			  void *arg)
{
	static const char sql[] =
		"SELECT t.trace_id, coalesce(t.arch, '?'), t.page_size, t.policy, t.clocksource, "
		"f.value, r.trace_id, r.policy, EXISTS (SELECT 1 FROM trace_meta m WHERE "
		"m.trace_id = t.trace_id AND m.key = 'replay_map') FROM trace t "
		"LEFT JOIN trace_meta f ON f.trace_id = t.trace_id AND f.key = 'fragment' "
		"LEFT JOIN replay_run r ON r.run_id = (SELECT max(run_id) FROM replay_run "
		"WHERE kind = 'guest' AND guest_trace_id = t.trace_id) ORDER BY t.trace_id";
	struct ftdb_trace_kind k;
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read traces: %s", sqlite3_errmsg(db));
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		k.trace_id = sqlite3_column_int64(st, 0);
		k.arch = text_or(st, 1, "?");
		k.page_size = sqlite3_column_int64(st, 2);
		k.policy = text_or(st, 3, "");
		k.clocksource = text_or(st, 4, "");
		k.fragment = text_or(st, 5, "");
		k.replay_of = sqlite3_column_type(st, 6) == SQLITE_NULL ? 0 :
							 sqlite3_column_int64(st, 6);
		k.replay_policy = text_or(st, 7, "");
		k.has_replay_map = sqlite3_column_int(st, 8);
		ret = fn(&k, arg);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read traces: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int ftdb_trace_max_ids(sqlite3 *db, int64_t trace_id, int64_t *max_proc, int64_t *max_vma)
{
	sqlite3_stmt *q;
	int rc;

	*max_proc = *max_vma = 0;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT coalesce(max(proc_id), 0) FROM process "
			       "WHERE trace_id = ?1), "
			       "(SELECT coalesce(max(v.vma_id), 0) FROM vma v JOIN process p USING "
			       "(proc_id) WHERE p.trace_id = ?1)", -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, trace_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*max_proc = sqlite3_column_int64(q, 0);
		*max_vma = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	return 0;
}

int ftdb_procs_each(sqlite3 *db, int64_t trace_id,
		    int (*fn)(const struct ftdb_proc_row *p, void *arg), void *arg)
{
	struct ftdb_proc_row p;
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid, coalesce(comm, ''), "
			       "coalesce(workload, -1), coalesce(parent_proc_id, 0) FROM process "
			       "WHERE trace_id = ?1", -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, trace_id);
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		p.proc_id = sqlite3_column_int64(q, 0);
		p.pid = sqlite3_column_int64(q, 1);
		p.comm = (const char *)sqlite3_column_text(q, 2);
		p.workload = sqlite3_column_int(q, 3);
		p.parent_proc_id = sqlite3_column_int64(q, 4);
		ret = fn(&p, arg);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	return ret;
}

int ftdb_vmas_each(sqlite3 *db, int64_t trace_id,
		   int (*fn)(const struct ftdb_vma_row *v, void *arg), void *arg)
{
	struct ftdb_vma_row v;
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT v.vma_id, v.start, v.end, v.flags FROM vma v JOIN "
			       "process p USING (proc_id) WHERE p.trace_id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		return fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, trace_id);
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		v.vma_id = sqlite3_column_int64(q, 0);
		v.start = (uint64_t)sqlite3_column_int64(q, 1);
		v.end = (uint64_t)sqlite3_column_int64(q, 2);
		v.flags = (uint64_t)sqlite3_column_int64(q, 3);
		ret = fn(&v, arg);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	return ret;
}
