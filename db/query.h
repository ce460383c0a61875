/* SPDX-License-Identifier: GPL-2.0 */
/*
 * query.h - the views of `foliotrace query` that are SQL over the plain tables (summary,
 * event counts, procs, vmas, orders, sites) and the user's own read-only statement, their
 * rows handed to a callback as typed values, the column names first. The column names are
 * part of the JSON contract (docs/cli-json.md). The faults view decodes the event stream
 * (db/stream.h) instead; the latency view is replay/latency.h's.
 */
#ifndef FT_DB_QUERY_H
#define FT_DB_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

enum ftdb_vtype { FTDB_V_NULL, FTDB_V_INT, FTDB_V_REAL, FTDB_V_TEXT, FTDB_V_BLOB };

/* One value of a row; s valid during the callback only. */
struct ftdb_value {
	enum ftdb_vtype type;
	int64_t i;		/* FTDB_V_INT */
	double d;		/* FTDB_V_REAL */
	const char *s;		/* FTDB_V_TEXT */
};

/* Where rows go: columns() once before the first row, row() per row. A non-zero return
 * of either stops the statement, and is returned. */
struct ftdb_rows {
	int (*columns)(void *arg, const char *const *names, int n);
	int (*row)(void *arg, const struct ftdb_value *v, int n);
	void *arg;
};

enum ftdb_view {
	FTDB_VIEW_SUMMARY,	/* one row: the trace's columns and totals */
	FTDB_VIEW_EVENTS,	/* name, count: events per type read from the CTF trace */
	FTDB_VIEW_PROCS,	/* processes with their event counts (pid, workload, limit) */
	FTDB_VIEW_VMAS,		/* VMA shapes seen by faults (pid, limit) */
	FTDB_VIEW_ORDERS,	/* faults and page-table entries per mapped order */
	FTDB_VIEW_SITES,	/* anonymous memory per allocation site (pid, limit) */
	FTDB_VIEW_STACKS,	/* the same per call stack, with its frames (pid, limit) */
};

struct ftdb_view_args {
	int64_t trace_id;
	int64_t pid;		/* only this tgid, -1 for all */
	int64_t limit;		/* rows at most, -1 for all */
	int workload;		/* procs: only the workload's processes */
};

/* Run view v. Return: 0, a callback's non-zero value, or -1 with fail(). */
int ftdb_view(sqlite3 *db, enum ftdb_view v, const struct ftdb_view_args *a,
	      const struct ftdb_rows *out);

/*
 * ftdb_view_faults - one row per anon_fault record of the trace, in recorded order (pid,
 * limit apply): ts, pid, tid, address, write, order, nr_ptes, zero_page, fallback,
 * latency_ns (saturated: ftdb_ns_sat()), proc_id, vma_id. Rows are handed over as they are
 * decoded: a trace's faults need not fit in memory.
 * Return: 0, a callback's value, or -1 with fail().
 */
int ftdb_view_faults(sqlite3 *db, const struct ftdb_view_args *a, const struct ftdb_rows *out);

/*
 * ftdb_user_sql - run the user's statement sql: exactly one statement (comments and
 * semicolons around it are fine), and one that reads: sqlite3_stmt_readonly() vouches for
 * it, or it is a PRAGMA read, which SQLite counts as a possible write for a few pragmas
 * (journal_mode) although without a value it only reports. Open the handle read-only
 * besides (FTDB_READONLY). Rows are handed over as they are read: memory stays flat.
 * Return: 0, a callback's value, or -1 with fail() (invalid SQL, two statements, a write).
 */
int ftdb_user_sql(sqlite3 *db, const char *sql, const struct ftdb_rows *out);

/*
 * ftdb_trace_marks_workload - *marked 1 if trace_id says which processes are the
 * workload's (recorded with header/workload_pid). Return: 0 or -1 with fail().
 */
int ftdb_trace_marks_workload(sqlite3 *db, int64_t trace_id, int *marked);

#endif /* FT_DB_QUERY_H */
