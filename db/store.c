// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - SQL side of the collector; see store.h.
 *
 * u64 values from the trace (mm pointers, vm_flags, timestamps) are stored as SQLite's
 * 64-bit signed integers: the bit pattern is kept, so kernel pointers read back negative
 * (docs/schema.md says how to print them).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "db/store.h"

static const char *const stmt_sql[ST_NR] = {
	[ST_CHUNK] = "INSERT INTO event_chunk(trace_id, chunk, first_seq, nr_events, first_ts, "
		     "last_ts, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_ZAP] = "INSERT INTO zap(trace_id, seq, ts, proc_id, start, end, cause, new_addr) "
		   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_META] = "INSERT OR REPLACE INTO trace_meta(trace_id, key, value) VALUES (?1, ?2, ?3)",
	[ST_PROC] = "INSERT INTO process(proc_id, trace_id, pid, mm, comm, parent_proc_id, "
		    "first_ts, last_ts, anon_faults, zero_wp, cow, zaps, workload) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_VMA] = "INSERT INTO vma(vma_id, proc_id, start, end, flags, first_ts, faults) "
		   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_COUNT] = "INSERT INTO event_count(trace_id, name, count) VALUES (?1, ?2, ?3)",
	[ST_ORDER] = "INSERT INTO fault_order(trace_id, order_, zero_page, faults, ptes) "
		     "VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_SYS_EXIT] = "INSERT INTO sys_exit(trace_id, ts, tid, call, ret) "
			"VALUES (?1, ?2, ?3, ?4, ?5)",
};

static int sql_error(struct ftdb_store *s, const char *what)
{
	return fail("cannot %s in %s: %s", what, s->path, sqlite3_errmsg(s->db));
}

/*
 * Waiting for another writer's lock, up to 600 s: sqlite3_busy_timeout()'s wait, plus a
 * heartbeat, so the ingest watchdog sees a process that waits, not one that hangs.
 */
static int busy_wait(void *arg, int count)
{
	struct ftdb_store *s = arg;

	if (count >= 60000)
		return 0;
	if (s->beat)
		(*s->beat)++;
	usleep(10000);
	return 1;
}

int ftdb_store_open(struct ftdb_store *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	if (ftdb_open(path, FTDB_CREATE, &s->db))
		return -1;
	/*
	 * Rollback journal (the default DELETE mode) rather than WAL: appended pages need no
	 * journal copy, so a bulk load writes its data once, and a SIGKILL leaves a hot
	 * journal that the next open rolls back. synchronous stays FULL: it costs a few
	 * fsyncs per trace. A large page cache keeps the transaction from spilling early.
	 */
	/* a concurrent ingest of the same trace waits for this one, then finds it stored */
	sqlite3_busy_handler(s->db, busy_wait, s);
	if (ftdb_exec(s->db, "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY")) {
		ftdb_store_close(s);
		return fail("cannot configure %s", path);
	}
	return 0;
}

void ftdb_store_close(struct ftdb_store *s)
{
	int i;

	if (s->in_txn)
		ftdb_store_rollback(s);
	for (i = 0; i < ST_NR; i++)
		sqlite3_finalize(s->st[i]);
	if (s->db)
		ftdb_close(s->db);
	memset(s, 0, sizeof(*s));
}

static int query_int(struct ftdb_store *s, const char *sql, const char *arg, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_error(s, "prepare a query");
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sql_error(s, "query");
}

int ftdb_store_begin(struct ftdb_store *s, const char *uuid, const char *path)
{
	sqlite3_stmt *st;
	int64_t v;
	int i, rc;

	if (ftdb_exec(s->db, "BEGIN IMMEDIATE"))
		return fail("cannot lock %s", s->path);
	s->in_txn = 1;
	rc = query_int(s, "SELECT trace_id FROM trace WHERE uuid = ?1", uuid, &v);
	if (rc < 0)
		goto fail;
	if (rc == 1) {
		s->trace_id = v;
		ftdb_store_rollback(s);
		return 1;
	}
	if (sqlite3_prepare_v2(s->db, "INSERT INTO trace(uuid, path, ingested_at, tool_version) "
			       "VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?3)",
			       -1, &st, NULL) != SQLITE_OK) {
		sql_error(s, "prepare");
		goto fail;
	}
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, FT_VERSION, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sql_error(s, "insert the trace");
		goto fail;
	}
	s->trace_id = sqlite3_last_insert_rowid(s->db);
	if (query_int(s, "SELECT coalesce(max(proc_id), 0) + 1 FROM process", NULL, &v) != 1)
		goto fail;
	s->proc_base = (uint32_t)v;
	if (query_int(s, "SELECT coalesce(max(vma_id), 0) + 1 FROM vma", NULL, &v) != 1)
		goto fail;
	s->vma_base = (uint32_t)v;
	for (i = 0; i < ST_NR; i++) {
		if (!s->st[i] &&
		    sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &s->st[i], NULL) != SQLITE_OK) {
			sql_error(s, "prepare");
			goto fail;
		}
	}
	s->chunk = 0;
	return 0;
fail:
	ftdb_store_rollback(s);
	return -1;
}

/* Step a bound statement that returns nothing, and reset it for the next use. */
static int run(struct ftdb_store *s, enum store_stmt which, const char *what)
{
	sqlite3_stmt *st = s->st[which];
	int rc = sqlite3_step(st);

	if (s->beat)
		(*s->beat)++;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sql_error(s, what);
	return 0;
}

int ftdb_store_meta(struct ftdb_store *s, const char *key, const char *value)
{
	sqlite3_stmt *st = s->st[ST_META];

	sqlite3_bind_int64(st, 1, s->trace_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
	return run(s, ST_META, "store trace_meta");
}

static int update_trace(struct ftdb_store *s, const char *column, const char *text, int64_t v)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;
	int rc;

	/* column names come from our own table of known keys, never from the trace */
	strbuf_addf(&sql, "UPDATE trace SET %s = ?1 WHERE trace_id = ?2", column);
	rc = sqlite3_prepare_v2(s->db, sql.buf, -1, &st, NULL);
	strbuf_release(&sql);
	if (rc != SQLITE_OK)
		return sql_error(s, "prepare a trace update");
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 1, v);
	sqlite3_bind_int64(st, 2, s->trace_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_error(s, "update the trace row");
	return 0;
}

int ftdb_store_trace_column(struct ftdb_store *s, const char *column, const char *value)
{
	return update_trace(s, column, value, 0);
}

int ftdb_store_trace_int(struct ftdb_store *s, const char *column, int64_t value)
{
	return update_trace(s, column, NULL, value);
}

int ftdb_store_chunk(struct ftdb_store *s, const struct ftdb_enc *enc, uint64_t first_seq)
{
	sqlite3_stmt *st = s->st[ST_CHUNK];

	sqlite3_bind_int64(st, 1, s->trace_id);
	sqlite3_bind_int64(st, 2, s->chunk);
	sqlite3_bind_int64(st, 3, (int64_t)first_seq);
	sqlite3_bind_int64(st, 4, enc->nr);
	sqlite3_bind_int64(st, 5, (int64_t)enc->first_ts);
	sqlite3_bind_int64(st, 6, (int64_t)enc->last_ts);
	sqlite3_bind_blob(st, 7, enc->buf, (int)enc->len, SQLITE_STATIC);
	s->chunk++;
	return run(s, ST_CHUNK, "store an event chunk");
}

int ftdb_store_zap(struct ftdb_store *s, uint64_t seq, const struct ftdb_event *ev)
{
	sqlite3_stmt *st = s->st[ST_ZAP];

	sqlite3_bind_int64(st, 1, s->trace_id);
	sqlite3_bind_int64(st, 2, (int64_t)seq);
	sqlite3_bind_int64(st, 3, (int64_t)ev->ts);
	sqlite3_bind_int64(st, 4, ev->proc_id);
	sqlite3_bind_int64(st, 5, (int64_t)ev->addr);
	sqlite3_bind_int64(st, 6, (int64_t)ev->end);
	sqlite3_bind_text(st, 7, ftdb_zap_cause_name(ev->reason), -1, SQLITE_STATIC);
	if (ev->reason == FTDB_ZAP_MREMAP)
		sqlite3_bind_int64(st, 8, (int64_t)ev->aux);
	return run(s, ST_ZAP, "store a zap");
}

int ftdb_store_count(struct ftdb_store *s, const char *name, uint64_t count)
{
	sqlite3_stmt *st = s->st[ST_COUNT];

	sqlite3_bind_int64(st, 1, s->trace_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)count);
	return run(s, ST_COUNT, "store event counts");
}

int ftdb_store_order(struct ftdb_store *s, unsigned int order, int zero_page, uint64_t faults,
		uint64_t ptes)
{
	sqlite3_stmt *st = s->st[ST_ORDER];

	sqlite3_bind_int64(st, 1, s->trace_id);
	sqlite3_bind_int(st, 2, (int)order);
	sqlite3_bind_int(st, 3, zero_page);
	sqlite3_bind_int64(st, 4, (int64_t)faults);
	sqlite3_bind_int64(st, 5, (int64_t)ptes);
	return run(s, ST_ORDER, "store fault_order");
}

int ftdb_store_proc(struct ftdb_store *s, uint32_t proc_id, int32_t pid, uint64_t mm, const char *comm,
	       int64_t parent_proc_id, uint64_t first_ts, uint64_t last_ts,
	       const uint64_t counts[4], int workload)
{
	sqlite3_stmt *st = s->st[ST_PROC];
	int i;

	sqlite3_bind_int64(st, 1, proc_id);
	sqlite3_bind_int64(st, 2, s->trace_id);
	sqlite3_bind_int(st, 3, pid);
	sqlite3_bind_int64(st, 4, (int64_t)mm);
	if (comm && *comm)
		sqlite3_bind_text(st, 5, comm, -1, SQLITE_STATIC);
	if (parent_proc_id)
		sqlite3_bind_int64(st, 6, parent_proc_id);
	sqlite3_bind_int64(st, 7, (int64_t)first_ts);
	sqlite3_bind_int64(st, 8, (int64_t)last_ts);
	for (i = 0; i < 4; i++)
		sqlite3_bind_int64(st, 9 + i, (int64_t)counts[i]);
	if (workload >= 0)
		sqlite3_bind_int(st, 13, workload);
	return run(s, ST_PROC, "store a process");
}

int ftdb_store_vma(struct ftdb_store *s, uint32_t vma_id, uint32_t proc_id, uint64_t start,
	      uint64_t end, uint64_t flags, uint64_t first_ts, uint64_t faults)
{
	sqlite3_stmt *st = s->st[ST_VMA];

	sqlite3_bind_int64(st, 1, vma_id);
	sqlite3_bind_int64(st, 2, proc_id);
	sqlite3_bind_int64(st, 3, (int64_t)start);
	sqlite3_bind_int64(st, 4, (int64_t)end);
	sqlite3_bind_int64(st, 5, (int64_t)flags);
	sqlite3_bind_int64(st, 6, (int64_t)first_ts);
	sqlite3_bind_int64(st, 7, (int64_t)faults);
	return run(s, ST_VMA, "store a vma");
}

int ftdb_store_sys_exit(struct ftdb_store *s, uint64_t ts, int32_t tid, const char *call, int64_t ret)
{
	sqlite3_stmt *st = s->st[ST_SYS_EXIT];

	sqlite3_bind_int64(st, 1, s->trace_id);
	sqlite3_bind_int64(st, 2, (int64_t)ts);
	sqlite3_bind_int(st, 3, tid);
	sqlite3_bind_text(st, 4, call, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, ret);
	return run(s, ST_SYS_EXIT, "store a system call exit");
}

int ftdb_store_commit(struct ftdb_store *s)
{
	if (ftdb_exec(s->db, "COMMIT")) {
		ftdb_store_rollback(s);
		return fail("cannot commit to %s", s->path);
	}
	s->in_txn = 0;
	return 0;
}

void ftdb_store_rollback(struct ftdb_store *s)
{
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = 0;
}
