// SPDX-License-Identifier: GPL-2.0
/*
 * stream-allocs.c - print the ALLOC records of a trace's event stream, one line each, in
 * stream order, as the anon_alloc events they stand for:
 *
 *	pid=PID order=N success=0|1 address=ADDRESS pfn=PFN	(decimal integers)
 *
 * for the tests that compare the records made from anon_fault's own fields (kernel patch
 * 0006) with real anon_alloc events (tests/cli/ingest-oneevent.sh, tests/guest/one-event.sh).
 * Built by the tests that need it, not part of foliotrace.
 *
 *	stream-allocs DB [TRACE_ID]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"

struct ctx {
	sqlite3_stmt *pid;	/* pid of a proc_id */
};

static int alloc_row(const struct ftdb_event *ev, void *arg)
{
	struct ctx *c = arg;
	int pid = -1;

	if (ev->kind != FTDB_EV_ALLOC)
		return 0;
	sqlite3_reset(c->pid);
	sqlite3_bind_int64(c->pid, 1, ev->proc_id);
	if (sqlite3_step(c->pid) == SQLITE_ROW)
		pid = sqlite3_column_int(c->pid, 0);
	printf("pid=%d order=%u success=%u address=%" PRIu64 " pfn=%" PRIu64 "\n", pid,
	       ev->order, !!(ev->flags & FTDB_EVF_SUCCESS), ev->addr, ev->aux);
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c;
	int64_t trace_id;
	sqlite3 *db;
	int rc;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: stream-allocs DB [TRACE_ID]\n");
		return 2;
	}
	if (ftdb_open(argv[1], FTDB_READONLY, &db) ||
	    ftdb_pick_trace(db, argc > 2 ? strtoll(argv[2], NULL, 0) : 0, &trace_id)) {
		error_print("stream-allocs");
		return 1;
	}
	if (sqlite3_prepare_v2(db, "SELECT pid FROM process WHERE proc_id = ?1", -1, &c.pid,
			       NULL) != SQLITE_OK) {
		fprintf(stderr, "stream-allocs: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	rc = ftdb_stream_foreach(db, trace_id, alloc_row, &c);
	sqlite3_finalize(c.pid);
	ftdb_close(db);
	if (rc) {
		error_print("stream-allocs");
		return 1;
	}
	return 0;
}
