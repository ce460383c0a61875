// SPDX-License-Identifier: GPL-2.0
/*
 * db-tables.c - db/traces.c and db/runs.c, and the rules replay/runs.c keeps on top of
 * them, against rows written here with plain SQL: which trace a command picks, what a
 * recording is, one trace's totals, the run writer's transaction (committed and aborted),
 * a guest replay's link, the runs read back, and the default selection of compare and
 * report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "db/runs.h"
#include "db/traces.h"
#include "lib/error.h"
#include "replay/filter.h"
#include "replay/runs.h"
#include "tests/unit/tap.h"

static char path[] = "/tmp/db-tables.XXXXXX";

/* Traces 1 and 3 are recordings; 2 is a guest replay of 1. */
static const char fixture[] =
	"INSERT INTO trace(trace_id, uuid, arch, kernel, policy, workload, events, "
	" parent_trace_id, ingested_at, tool_version) VALUES "
	" (1, 'u1', 'x86_64', '6.1.0', 'order0', 'anon-touch 64M', 100, NULL, 'now', 't'),"
	" (2, 'u2', 'x86_64', '6.1.0', 'mcpage:2', 'ft-replayer', 50, 1, 'now', 't'),"
	" (3, 'u3', 'arm64', '6.1.0', 'order0', 'pf-loop', 70, NULL, 'now', 't');"
	"INSERT INTO process(proc_id, trace_id, pid, mm, anon_faults) VALUES "
	" (1, 1, 100, 1, 10), (2, 1, 101, 2, 32), (3, 3, 200, 3, 5);";

static int64_t one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

struct seen {
	int runs, totals, sites;
	int64_t run_id, faults;
	char policy[64], filter[160], site[64];
};

static int on_run(const struct ftdb_run_row *r, void *arg)
{
	struct seen *s = arg;

	s->runs++;
	s->run_id = r->run_id;
	snprintf(s->policy, sizeof(s->policy), "%s", r->policy);
	snprintf(s->filter, sizeof(s->filter), "%s", r->filter);
	return 0;
}

static int on_total(const char *name, int64_t value, void *arg)
{
	struct seen *s = arg;

	s->totals++;
	if (!strcmp(name, "faults"))
		s->faults = value;
	return 0;
}

static int on_site(const struct ftdb_site_row *r, void *arg)
{
	struct seen *s = arg;

	s->sites++;
	snprintf(s->site, sizeof(s->site), "%s@%s", r->site, r->module ? r->module : "-");
	return 0;
}

/* A sim run of trace 1 under policy with selection filter, committed. */
static int add_sim(sqlite3 *db, const char *policy, const char *filter)
{
	struct ftdb_run r = { .trace_id = 1, .policy = policy, .frag = "none", .kind = "sim",
			      .filter = filter, .elapsed_ns = 5 };
	struct ftdb_run_writer w;
	int64_t id;

	if (ftdb_run_writer_begin(db, &w))
		return -1;
	if (ftdb_run_add(&w, &r, &id) || ftdb_run_add_metric(&w, id, -1, "faults", 42) ||
	    ftdb_run_add_metric(&w, id, 0, "faults", 40) ||
	    ftdb_run_add_site(&w, id, "xmalloc", "/bin/bash", 42, 0, 0, 4096)) {
		ftdb_run_writer_abort(&w);
		return -1;
	}
	return ftdb_run_writer_commit(&w);
}

int main(void)
{
	struct ftdb_run g = { .trace_id = 1, .policy = "mcpage:2", .frag = "none",
			      .kind = "guest", .guest_trace_id = 3 };
	struct ftdb_run_writer w;
	struct ftdb_trace t;
	struct rp_filter sel, x;
	struct seen s = { 0 };
	char comm_x[160], comm_y[160];
	int64_t id, *ids;
	size_t n;
	sqlite3 *db;
	int fd;

	plan(19);
	fd = mkstemp(path);
	close(fd);
	unlink(path);
	if (ftdb_open(path, FTDB_CREATE, &db) || sqlite3_exec(db, fixture, NULL, NULL, NULL))
		return 1;

	ok(!ftdb_pick_trace(db, 0, &id) && id == 3, "pick: no id is the newest recording, "
	   "not the newer guest replay");
	ok(!ftdb_pick_trace(db, 2, &id) && id == 2, "pick: an id is that trace");
	ok(ftdb_pick_trace(db, 9, &id) && strstr(error_text(), "no trace 9"), "pick: an "
	   "unknown id is an error naming it");
	error_clear();
	ok(!ftdb_recordings(db, 0, &ids, &n) && n == 2 && ids[0] == 1 && ids[1] == 3,
	   "recordings: traces without a parent, oldest first");
	free(ids);
	ok(!ftdb_recordings(db, 1, &ids, &n) && n == 3, "recordings with all: every trace");
	free(ids);
	ok(!ftdb_trace_get(db, 1, &t) && t.processes == 2 && t.anon_faults == 42 &&
	   !strcmp(t.workload, "anon-touch 64M") && !strcmp(t.clocksource, "") &&
	   t.workload_status == -1 && t.parent_trace_id == 0, "trace: its row, processes "
	   "counted and faults summed, NULLs as '' and -1");
	ftdb_trace_release(&t);
	ok(ftdb_trace_get(db, 9, &t) && strstr(error_text(), "no trace 9"), "trace: an unknown "
	   "id is an error");
	error_clear();

	/* the writer: committed */
	ok(!add_sim(db, "order0", ""), "writer: a run with metrics and a site is committed");
	ok(!ftdb_runs_each(db, 1, "sim", NULL, NULL, on_run, &s) && s.runs == 1 &&
	   !strcmp(s.policy, "order0") && !strcmp(s.filter, ""), "runs: read back, no filter "
	   "as ''");
	ok(!ftdb_run_totals(db, s.run_id, on_total, &s) && s.totals == 1 && s.faults == 42,
	   "totals: the proc_id NULL rows only");
	ok(!ftdb_run_sites(db, s.run_id, on_site, &s) && s.sites == 1 &&
	   !strcmp(s.site, "xmalloc@/bin/bash"), "sites: the replay_site rows");
	/* the writer: aborted */
	if (!ftdb_run_writer_begin(db, &w)) {
		struct ftdb_run r = { .trace_id = 1, .policy = "thp", .frag = "none",
				      .kind = "sim" };

		ftdb_run_add(&w, &r, &id);
		ftdb_run_writer_abort(&w);
	}
	is_int(one(db, "SELECT count(*) FROM replay_run"), 1, "writer: an aborted run leaves "
	       "nothing");
	/* a guest replay's link */
	ok(!ftdb_run_link_guest(db, &g, &id) &&
	   one(db, "SELECT parent_trace_id FROM trace WHERE trace_id = 3") == 1 &&
	   one(db, "SELECT guest_trace_id FROM replay_run WHERE kind = 'guest'") == 3,
	   "link: the guest trace gets its parent and a guest run, together");
	ok(!ftdb_pick_trace(db, 0, &id) && id == 1, "pick: once linked, the guest trace is no "
	   "recording");
	g.trace_id = 99;	/* no such trace: the run's foreign key fails, nothing changes */
	g.guest_trace_id = 1;
	sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	ok(ftdb_run_link_guest(db, &g, &id) &&
	   one(db, "SELECT parent_trace_id IS NULL FROM trace WHERE trace_id = 1") == 1,
	   "link: a failed link leaves the trace unlinked");
	error_clear();

	/* compare's and report's default selection */
	rp_filter_set(&x, "x", -1);
	rp_filter_format(&x, comm_x, sizeof(comm_x));
	rp_filter_set(&x, "y", -1);
	rp_filter_format(&x, comm_y, sizeof(comm_y));
	sqlite3_exec(db, "DELETE FROM replay_run WHERE kind = 'sim'", NULL, NULL, NULL);
	add_sim(db, "order0", comm_x);
	ok(!rp_runs_default_sel(db, 1, NULL, &sel) && sel.has_comm && !strcmp(sel.comm, "x"),
	   "default selection: the one selection the runs were made with");
	add_sim(db, "order0", "");
	ok(!rp_runs_default_sel(db, 1, NULL, &sel) && !sel.has_comm && sel.pid < 0,
	   "default selection: none (the workload), when runs were made without one");
	sqlite3_exec(db, "DELETE FROM replay_run WHERE kind = 'sim' AND filter IS NULL", NULL,
		     NULL, NULL);
	add_sim(db, "order0", comm_y);
	ok(rp_runs_default_sel(db, 1, NULL, &sel) && strstr(error_text(), "--comm x") &&
	   strstr(error_text(), "--comm y"), "default selection: several and none the default: "
	   "an error naming them");
	error_clear();
	ok(!rp_runs_default_sel(db, 3, NULL, &sel) && !sel.has_comm, "default selection: no "
	   "runs at all is none");
	ftdb_close(db);
	unlink(path);
	return done_testing();
}
