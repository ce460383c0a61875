// SPDX-License-Identifier: GPL-2.0
/*
 * site-runs.c - the site x run matrix of `compare --by site` (replay/site-runs.c) on a
 * database made here: NR_RUNS runs of one trace whose replay_site rows cover NR_SITES
 * (site, module) pairs, each run a pseudo-random subset of them, names that repeat with
 * another module or none. Every stored row must be found in its own cell, every other cell
 * zero, each pair once, in the documented order (faults in the ordering run, most first,
 * then site, then module with none first). The errors: a trace without call sites, a run
 * without per-site rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/runs.h"
#include "replay/site-runs.h"
#include "tests/unit/tap.h"

#define NR_SITES 6000	/* a kbuild's order of magnitude */
#define NR_RUNS 3

/* Pair i: site "fn<i / 3>", module none, "a.so" or "b.so": three pairs share a name. */
static void pair_of(unsigned int i, char *site, size_t len, const char **module)
{
	static const char *const mods[] = { NULL, "a.so", "b.so" };

	snprintf(site, len, "fn%u", i / 3);
	*module = mods[i % 3];
}

/* Whether pair i has a row in run r, and its faults there (0 is a stored value too). */
static int in_run(unsigned int i, unsigned int r)
{
	return r == 0 || (i * 2654435761u + r * 40503u) % 5 != 0;
}

static uint64_t faults_of(unsigned int i, unsigned int r)
{
	return (i * 7919u + r * 104729u) % 97;	/* many ties: the names order them */
}

static int make_db(const char *path, sqlite3 **db)
{
	sqlite3_stmt *st;
	char site[32];
	const char *module;
	unsigned int i, r;

	if (ftdb_open(path, FTDB_CREATE, db))
		return -1;
	if (ftdb_exec(*db, "BEGIN; INSERT INTO trace(trace_id, uuid, ingested_at, tool_version) "
		  "VALUES (1, 'a', 'x', 'y'), (2, 'b', 'x', 'y'); INSERT INTO site_call(trace_id, "
		  "pid, call, site) VALUES (1, 1, 'mmap', 'fn0'); INSERT INTO site_touch VALUES (1, 0, 1, 1); "
		  "INSERT INTO replay_run(run_id, trace_id, policy, frag, kind, tool_version, "
		  "created_at) VALUES (1, 1, 'order0', 'none', 'sim', 'x', 'x'), (2, 1, "
		  "'mcpage:4', 'none', 'sim', 'x', 'x'), (3, 1, 'thp', 'none', 'sim', 'x', 'x'), "
		  "(4, 1, 'mcpage:2', 'none', 'sim', 'x', 'x')") ||
	    sqlite3_prepare_v2(*db, "INSERT INTO replay_site VALUES (?, ?, ?, ?, ?, ?, ?)", -1,
			       &st, NULL) != SQLITE_OK)
		return fail("%s", sqlite3_errmsg(*db));
	for (i = 0; i < NR_SITES; i++) {
		for (r = 0; r < NR_RUNS; r++) {
			if (!in_run(i, r))
				continue;
			pair_of(i, site, sizeof(site), &module);
			sqlite3_reset(st);
			sqlite3_bind_int(st, 1, (int)r + 1);
			sqlite3_bind_text(st, 2, site, -1, SQLITE_TRANSIENT);
			if (module)
				sqlite3_bind_text(st, 3, module, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, 3);
			sqlite3_bind_int64(st, 4, (int64_t)faults_of(i, r));
			sqlite3_bind_int64(st, 5, i);			/* bloat */
			sqlite3_bind_int64(st, 6, (int64_t)r);		/* zeroed */
			sqlite3_bind_int64(st, 7, (int64_t)i * 4096);	/* at peak */
			if (sqlite3_step(st) != SQLITE_DONE)
				return fail("%s", sqlite3_errmsg(*db));
		}
	}
	sqlite3_finalize(st);
	return ftdb_exec(*db, "COMMIT");
}

/* Pair i of a site row: parsed back from its name and module. */
static long pair_index(const char *site, const char *module)
{
	unsigned int k;

	if (sscanf(site, "fn%u", &k) != 1)
		return -1;
	return (long)k * 3 + (!module ? 0 : !strcmp(module, "a.so") ? 1 : 2);
}

/* 1 if site a (with its faults fa in the ordering run) may come before site b. */
static int ordered(uint64_t fa, const char *sa, const char *ma, uint64_t fb, const char *sb,
		   const char *mb)
{
	int c = strcmp(sa, sb);

	if (fa != fb)
		return fa > fb;
	if (c)
		return c < 0;
	if (!ma || !mb)
		return !ma;
	return strcmp(ma, mb) < 0;
}

int main(void)
{
	struct rp_stored_run run[NR_RUNS + 1] = { { .run_id = 1 }, { .run_id = 2 },
						  { .run_id = 3 }, { .run_id = 4 } };
	struct rp_site_runs sr;
	char path[] = "/tmp/ft-site-runs-XXXXXX", dbp[64];
	unsigned char *seen = calloc(NR_SITES, 1);
	unsigned int r, order_by = 1;
	long bad_cell = 0, bad_order = 0, dup = 0, unknown = 0;
	size_t i;
	sqlite3 *db;

	plan(8);
	if (!mkdtemp(path) || snprintf(dbp, sizeof(dbp), "%s/x.db", path) < 0 ||
	    make_db(dbp, &db)) {
		diag("cannot make the database: %s", error_text());
		return 1;
	}
	ok(!rp_site_runs_load(db, 1, run, NR_RUNS, order_by, &sr), "load %d runs of %d sites",
	   NR_RUNS, NR_SITES);
	is_int((long)sr.nr, NR_SITES, "each (site, module) once");
	for (i = 0; i < sr.nr; i++) {
		long k = pair_index(sr.site[i], sr.module[i]);

		if (k < 0 || k >= NR_SITES) {
			unknown++;
			continue;
		}
		dup += seen[k]++ > 0;
		for (r = 0; r < NR_RUNS; r++) {
			const struct rp_site_counters *c = &sr.c[i * sr.nr_runs + r];
			int has = in_run((unsigned int)k, r);

			if (c->faults != (has ? faults_of((unsigned int)k, r) : 0) ||
			    c->bloat != (has ? (uint64_t)k : 0) || c->zeroed != (has ? r : 0) ||
			    c->at_peak != (has ? (uint64_t)k * 4096 : 0) || c->rss)
				bad_cell++;
		}
		if (i && !ordered(sr.c[(i - 1) * sr.nr_runs + order_by].faults, sr.site[i - 1],
				  sr.module[i - 1], sr.c[i * sr.nr_runs + order_by].faults,
				  sr.site[i], sr.module[i]))
			bad_order++;
	}
	ok(sr.nr && !unknown && !dup, "no unknown or repeated pair (%ld unknown, %ld repeated)", unknown,
	   dup);
	ok(sr.nr && !bad_cell, "every cell holds its run's row, zero where the run has none (%ld wrong)",
	   bad_cell);
	ok(sr.nr && !bad_order, "by faults in run %u, then site, then module (%ld out of order)",
	   order_by, bad_order);
	rp_site_runs_release(&sr);

	/* run 4 (index 3) has no replay_site row */
	ok(rp_site_runs_load(db, 1, run, NR_RUNS + 1, 0, &sr) == -1 && !sr.nr &&
	   strstr(error_text(), "run 4 (") && strstr(error_text(), "no per-site metrics"),
	   "a run without per-site rows: %s", error_text());
	error_clear();
	ok(rp_site_runs_load(db, 2, run, 1, 0, &sr) == -1 &&
	   strstr(error_text(), "trace 2 was not recorded with --sites"),
	   "a trace without call sites: %s", error_text());
	error_clear();
	ftdb_exec(db, "DELETE FROM site_touch");
	ok(rp_site_runs_load(db, 1, run, NR_RUNS + 1, 0, &sr) == -1 &&
	   strstr(error_text(), "stored before per-site attribution"),
	   "sites stored before site_touch: %s", error_text());
	error_clear();
	ftdb_close(db);
	unlink(dbp);
	rmdir(path);
	free(seen);
	return done_testing();
}
