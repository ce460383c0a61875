/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs.h - stored replay runs read back (replay_run, replay_metric through db/runs.h): the
 * one loader of "the latest run of each policy" with its total metrics, and the rules for
 * which stored runs compare, report and the simulation-against-reality comparison read.
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

/*
 * The runs compare and report read: the latest simulated run of each policy of one trace,
 * made with one selection and frag model, the baseline first.
 */
struct rp_run_set {
	int64_t trace_id;
	char recorded_policy[64];	/* trace.policy, "" if unknown */
	char frag[16];			/* frag model of the runs selected */
	char filter[RP_FILTER_LEN];	/* filter of the runs selected, "" for none */
	struct rp_stored_run *run;	/* one per policy, baseline first, then by run_id */
	unsigned int nr;
	int base;			/* index of the baseline run, -1 if none */
};

/*
 * rp_run_set_load - the latest sim run of every policy for trace_id with the selection sel
 * and frag model (NULL: that of the most recent run with sel). The baseline, if run, is
 * moved first. Return: 0 (rs->nr may be 0), or -1 with fail().
 */
int rp_run_set_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel,
		    const char *frag, const char *baseline, struct rp_run_set *rs);
void rp_run_set_release(struct rp_run_set *rs);

/*
 * rp_runs_default_sel - the selection compare and report read when given no --comm/--pid:
 * none (the workload's processes) if trace_id has such sim runs (of frag, NULL: any), else
 * the one other selection its runs were made with. Return: 0 with *sel set (none when
 * there are no runs at all), or -1 with fail() naming the selections when there are
 * several and none is the default.
 */
int rp_runs_default_sel(sqlite3 *db, int64_t trace_id, const char *frag,
			struct rp_filter *sel);

/* Which stored runs compare and report read: their options -b -F -c -p -t. */
struct rp_run_query {
	char base[64];			/* --baseline's canonical spec, order0 unless given */
	const char *frag;		/* --frag model name, NULL: that of the newest run */
	const char *comm;		/* --comm, NULL for any */
	int64_t pid;			/* --pid tgid, -1 for any */
	int64_t want;			/* --trace id, 0: the only or newest trace */
};

void rp_run_query_init(struct rp_run_query *q);
/*
 * rp_run_set_read - rp_run_set_load() of trace_id with q's frag and baseline, and q's
 * --comm/--pid selection or, without one, rp_runs_default_sel()'s. Return: 0, or -1.
 */
int rp_run_set_read(sqlite3 *db, int64_t trace_id, const struct rp_run_query *q,
		    struct rp_run_set *rs);
/*
 * rp_run_set_open - open the database at path read-only, pick the trace q->want and load
 * its runs as rp_run_set_read() does. Return: 0 with *db open (the caller closes it) and
 * rs loaded, or -1 with fail() and nothing left open.
 */
int rp_run_set_open(const char *path, const struct rp_run_query *q, sqlite3 **db,
		    struct rp_run_set *rs);

#endif /* FT_REPLAY_RUNS_H */
