// SPDX-License-Identifier: GPL-2.0
/*
 * busiest.c - the report's process and VMA reads; see busiest.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "db/busiest.h"
#include "lib/error.h"
#include "lib/xalloc.h"

int ftdb_busiest_procs(sqlite3 *db, int64_t trace_id, int64_t pid, const char *comm,
		       struct ftdb_busy_proc *out, int max)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid, coalesce(comm, ''), anon_faults FROM "
			       "process WHERE trace_id = ?1 AND anon_faults > 0 AND (?2 < 0 OR "
			       "pid = ?2) AND (?3 IS NULL OR comm = ?3) ORDER BY coalesce(workload, 0) = 1 "
			       "DESC, anon_faults DESC, proc_id LIMIT ?4", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the processes: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_int64(st, 2, pid);
	if (comm)
		sqlite3_bind_text(st, 3, comm, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < max) {
		out[n].proc_id = sqlite3_column_int64(st, 0);
		out[n].pid = sqlite3_column_int64(st, 1);
		snprintf(out[n].comm, sizeof(out[n].comm), "%s",
			 (const char *)sqlite3_column_text(st, 2));
		out[n].anon_faults = sqlite3_column_int64(st, 3);
		n++;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		n = fail("cannot read the processes: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return n;
}

int ftdb_proc_vmas(sqlite3 *db, int64_t proc_id, struct ftdb_busy_vma **out)
{
	struct ftdb_busy_vma *v = NULL;
	size_t cap = 0;
	sqlite3_stmt *st;
	int rc, n = 0;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT start, end, flags, faults FROM vma WHERE proc_id = ? "
			       "AND faults > 0 ORDER BY start, end", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the VMAs: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, proc_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(v, cap, (size_t)n + 1);
		v[n].start = (uint64_t)sqlite3_column_int64(st, 0);
		v[n].end = (uint64_t)sqlite3_column_int64(st, 1);
		v[n].flags = (uint64_t)sqlite3_column_int64(st, 2);
		v[n].faults = sqlite3_column_int64(st, 3);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return fail("cannot read the VMAs: %s", sqlite3_errmsg(db));
	}
	*out = v;
	return n;
}
