/* SPDX-License-Identifier: GPL-2.0 */
/*
 * site-runs.h - the per-site metrics (replay_site) of a set of stored runs, one row per
 * site and one column per run: what `compare --by site` prints and `report`'s per-site
 * section draws from (docs/sites.md, "Per-site metrics").
 */
#ifndef FT_REPLAY_SITE_RUNS_H
#define FT_REPLAY_SITE_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "replay/replay.h"
#include "replay/runs.h"

struct rp_site_runs {
	size_t nr;			/* sites, each (site, module) once */
	unsigned int nr_runs;		/* runs, in the order they were given */
	char **site, **module;		/* owned; module NULL if none */
	struct rp_site_counters *c;	/* c[i * nr_runs + r]: site i in run r; zero if absent */
};

/*
 * rp_site_runs_has_sites - 1 if trace_id was recorded with --sites (has site_call rows),
 * 0 if not, -1 with fail().
 */
int rp_site_runs_has_sites(sqlite3 *db, int64_t trace_id);

/*
 * rp_site_runs_load - the replay_site rows of the nr runs run[] of trace_id, sites ordered
 * by their faults in run[order_by] (order_by < nr), most first, then by site and module.
 * Return: 0, or -1 with fail() naming what is missing: a trace without sites, a run
 * without per-site rows (made before schema 5, or sites ingested before it); nothing is
 * left allocated then.
 */
int rp_site_runs_load(sqlite3 *db, int64_t trace_id, const struct rp_stored_run *run,
		      unsigned int nr, unsigned int order_by, struct rp_site_runs *sr);
void rp_site_runs_release(struct rp_site_runs *sr);

/* Share of v in whole as a fraction, -1 if whole is 0. */
static inline double rp_site_share(uint64_t v, uint64_t whole)
{
	return whole ? (double)v / (double)whole : -1.0;
}

#endif /* FT_REPLAY_SITE_RUNS_H */
