// SPDX-License-Identifier: GPL-2.0
/*
 * export-db.c - export from a trace database: the trace loader (load.h) gives the VMAs
 * and the selected processes, then two passes over the stream (prescan, feed).
 */
#include <stdio.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/export.h"

static int prescan_one(const struct ftdb_event *ev, void *arg)
{
	rp_export_prescan(arg, ev);
	return 0;
}

static int feed_one(const struct ftdb_event *ev, void *arg)
{
	rp_export_feed(arg, ev);
	return 0;
}

int rp_export_db(sqlite3 *db, int64_t trace_id, const char *comm, int64_t pid,
		 struct strbuf *out, struct rp_export_stats *st)
{
	struct rp_export_in in = { 0 };
	struct rp_filter sel;
	struct rp_loaded l;
	struct rp_export *x;
	char what[RP_FILTER_LEN];
	int ret = -1;

	rp_filter_set(&sel, comm, pid);
	if (rp_load(db, trace_id, &sel, &l))
		return -1;
	if (l.page_size < 1024 || !l.page_shift) {
		fail("trace %lld has a bad page size %lld", (long long)trace_id,
		      (long long)l.page_size);
		goto out;
	}
	if (!l.nr_selected) {
		rp_filter_format(&sel, what, sizeof(what));
		fail("no process of trace %lld matches%s%s", (long long)trace_id,
		      *what ? " " : "", what);
		goto out;
	}
	in.page_shift = l.page_shift;
	in.trace_id = trace_id;
	in.procs = l.procs;
	in.nr_procs = l.nr_procs;
	in.vmas = l.vmas;
	in.nr_vmas = l.nr_vmas;
	x = rp_export_new(&in);
	if (!x)
		goto out;
	if (ftdb_stream_foreach(db, trace_id, prescan_one, x) ||
	    ftdb_stream_foreach(db, trace_id, feed_one, x)) {
		rp_export_free(x);
		fail("cannot export trace %lld", (long long)trace_id);
		goto out;
	}
	ret = rp_export_finish(x, out, st);
out:
	rp_load_release(&l);
	return ret;
}
