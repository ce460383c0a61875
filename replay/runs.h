/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs.h - stored replay runs read back (replay_run, replay_metric): the one loader of
 * "the latest run of each policy" with its total metrics, for compare, report and the
 * simulation-against-reality comparison.
 */
#ifndef FT_REPLAY_RUNS_H
#define FT_REPLAY_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "replay/filter.h"
#include "replay/replay.h"

struct rp_stored_run {
	int64_t run_id;
	char policy[64];		/* canonical spec */
	char frag[16];			/* frag model */
	char filter[RP_FILTER_LEN];	/* replay_run.filter, "" for none */
	char created_at[40];
	int64_t elapsed_ns;		/* 0 if not recorded */
	int64_t guest_trace_id;		/* kind guest: the guest's trace; else 0 */
	struct rp_counters c;		/* totals (replay_metric rows with proc_id NULL) */
};

/*
 * rp_runs_latest - the latest run (largest run_id) of each policy among the runs of
 * trace_id of this kind ("sim" or "guest") made with frag (NULL: any), selection sel
 * (compared parsed, filter.h; NULL: any) and policy (NULL: any), in run_id order, with
 * their total metrics. Return: 0 with *runs (free() it, NULL if none) and *nr, or -1 with
 * fail().
 */
int rp_runs_latest(sqlite3 *db, int64_t trace_id, const char *kind, const char *frag,
		   const struct rp_filter *sel, const char *policy, struct rp_stored_run **runs,
		   size_t *nr);

/* A replay_site row: what one site took in a stored run (docs/sites.md). */
struct rp_stored_site {
	char *site;			/* owned */
	char *module;			/* owned, NULL if none */
	struct rp_site_counters c;	/* faults, zeroed, bloat, at_peak (bytes); rss 0 */
};

/*
 * rp_runs_sites - the replay_site rows of run_id, by site and module. Return: 0 with
 * *sites (rp_runs_sites_free() it; NULL if none) and *nr, or -1 with fail().
 */
int rp_runs_sites(sqlite3 *db, int64_t run_id, struct rp_stored_site **sites, size_t *nr);
void rp_runs_sites_free(struct rp_stored_site *sites, size_t nr);

#endif /* FT_REPLAY_RUNS_H */
