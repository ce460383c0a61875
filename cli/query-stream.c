// SPDX-License-Identifier: GPL-2.0
/*
 * query-stream.c - the query views that decode the event stream: faults (one row per
 * anon_fault record) and latency (exact percentiles of latency_ns per mapped order,
 * computed by replay/latency.c).
 *
 * Latencies are u64 in the trace but int64 in every output (SQL, JSON): a value, percentile
 * or mean above INT64_MAX (292 years; only a damaged trace holds one) is saturated to
 * INT64_MAX, never wrapped to a negative number (docs/cli-json.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/query.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/latency.h"

/* proc_id -> pid of one trace: its proc_ids are contiguous (assigned at ingest). */
struct pid_map {
	int64_t base;		/* smallest proc_id */
	int32_t *pid;		/* pid of proc_id base + i */
	size_t n;
};

static int load_pids(sqlite3 *db, int64_t trace_id, struct pid_map *m)
{
	sqlite3_stmt *st;
	int64_t lo = 0, hi = -1;
	int rc;

	memset(m, 0, sizeof(*m));
	if (sqlite3_prepare_v2(db, "SELECT min(proc_id), max(proc_id) FROM process "
			       "WHERE trace_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read processes: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		lo = sqlite3_column_int64(st, 0);
		hi = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	m->base = lo;
	m->n = (size_t)(hi - lo + 1);
	m->pid = xcalloc(m->n ? m->n : 1, sizeof(*m->pid));
	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid FROM process WHERE trace_id = ?1", -1,
			       &st, NULL) != SQLITE_OK)
		return fail("cannot read processes: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		m->pid[sqlite3_column_int64(st, 0) - lo] = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("cannot read processes: %s", sqlite3_errmsg(db));
	return 0;
}

static int32_t pid_of(const struct pid_map *m, uint32_t proc_id)
{
	int64_t i = (int64_t)proc_id - m->base;

	return i >= 0 && (size_t)i < m->n ? m->pid[i] : -1;
}

struct faults_ctx {
	const struct query_opts *o;
	struct out_table *t;
	struct pid_map pids;
	int64_t rows;
};

static int fault_row(const struct ftdb_event *ev, void *arg)
{
	struct faults_ctx *c = arg;
	int32_t pid;

	if (ev->kind != FTDB_EV_FAULT)
		return 0;
	pid = pid_of(&c->pids, ev->proc_id);
	if (c->o->pid >= 0 && pid != c->o->pid)
		return 0;
	if (c->o->limit >= 0 && c->rows >= c->o->limit)
		return 1;	/* stop the walk: enough rows */
	c->rows++;
	out_int(c->t, (int64_t)ev->ts);
	out_int(c->t, pid);
	out_int(c->t, pid + ev->tid_lo);
	out_hex(c->t, ev->addr);
	out_int(c->t, !!(ev->flags & FTDB_EVF_WRITE));
	out_int(c->t, ev->order);
	out_int(c->t, ev->nr_ptes);
	out_int(c->t, !!(ev->flags & FTDB_EVF_ZERO_PAGE));
	out_text(c->t, ftdb_fallback_name(ev->reason));
	out_int(c->t, rp_latency_sat(ev->aux));
	out_int(c->t, ev->proc_id);
	out_int(c->t, ev->vma_id);
	return 0;
}

int query_faults(const struct query_opts *o, struct out_table *t)
{
	static const char *const cols[] = { "ts", "pid", "tid", "address", "write", "order",
					    "nr_ptes", "zero_page", "fallback", "latency_ns",
					    "proc_id", "vma_id" };
	struct faults_ctx c = { .o = o, .t = t };
	int ret;

	out_init(t, cols, sizeof(cols) / sizeof(cols[0]));
	/* a trace's faults may not fit in memory as cells: print them as they decode */
	out_stream(t, o->format, stdout);
	if (load_pids(o->db, o->trace_id, &c.pids))
		return -1;
	ret = ftdb_stream_foreach(o->db, o->trace_id, fault_row, &c);
	free(c.pids.pid);
	return ret < 0 ? -1 : 0;
}

int query_latency(const struct query_opts *o, struct out_table *t)
{
	static const char *const cols[] = { "order", "zero_page", "faults", "p50_ns", "p90_ns",
					    "p99_ns", "max_ns", "mean_ns" };
	struct rp_latency_row *rows;
	size_t nr, i;

	out_init(t, cols, sizeof(cols) / sizeof(cols[0]));
	if (rp_latency_rows(o->db, o->trace_id, o->pid, &rows, &nr))
		return -1;
	for (i = 0; i < nr; i++) {
		out_int(t, rows[i].order);
		out_int(t, rows[i].zero_page);
		out_int(t, rows[i].faults);
		out_int(t, rows[i].p50_ns);
		out_int(t, rows[i].p90_ns);
		out_int(t, rows[i].p99_ns);
		out_int(t, rows[i].max_ns);
		out_int(t, rows[i].mean_ns);
	}
	free(rows);
	return 0;
}
