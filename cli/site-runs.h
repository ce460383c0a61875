/* SPDX-License-Identifier: GPL-2.0 */
/*
 * site-runs.h - the per-site metrics (replay_site) of a run set, one row per site and one
 * column per run: what `compare --by site` prints and `report`'s per-site section draws
 * from (docs/sites.md, "Per-site metrics").
 */
#ifndef FT_CLI_SITE_RUNS_H
#define FT_CLI_SITE_RUNS_H

#include <stddef.h>
#include <sqlite3.h>

#include "cli/runs.h"

struct site_runs {
	size_t nr;			/* sites */
	unsigned int nr_runs;		/* runs of the run set, in its order */
	char **site, **module;		/* owned; module NULL if none */
	struct rp_site_counters *c;	/* c[i * nr_runs + r]: site i in run r; zero if absent */
};

/*
 * site_runs_has_sites - 1 if trace_id was recorded with --sites (has site_call rows),
 * 0 if not, -1 with error().
 */
int site_runs_has_sites(sqlite3 *db, int64_t trace_id);

/*
 * site_runs_load - the replay_site rows of every run of rs, sites ordered by faults in the
 * baseline run (rs->base, else the first), most first, then by name. Return: 0, or -1 with
 * error() naming what is missing: a trace without sites, a run without per-site rows (made
 * before schema 5, or sites ingested before it).
 */
int site_runs_load(sqlite3 *db, const struct run_set *rs, struct site_runs *sr);
void site_runs_release(struct site_runs *sr);

/* Share of v in whole as a fraction, -1 if whole is 0. */
double site_share(uint64_t v, uint64_t whole);

#endif /* FT_CLI_SITE_RUNS_H */
