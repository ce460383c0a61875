/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - replay a trace database's event stream against several policies in one pass and
 * store the runs (replay_run, replay_metric). The part of replay/ that knows SQL.
 */
#ifndef FT_REPLAY_RUN_H
#define FT_REPLAY_RUN_H

#include <stdint.h>
#include <sqlite3.h>

#include "replay/replay.h"

#define RP_MAX_POLICIES 32

struct rp_run_opts {
	const struct rp_policy *pol;	/* policies to replay */
	unsigned int nr_pol;		/* 1..RP_MAX_POLICIES */
	enum rp_frag_kind frag;
	const char *comm;		/* only processes with this comm, or NULL */
	int64_t pid;			/* only processes with this tgid, or -1 */
	int check_oracle;		/* also run the oracle and fail unless it agrees */
	int cost_native;		/* fault_time_ns from the host model of the trace's
					 * arch (replay/calibrate-host.h), not the trace's key */
	sqlite3 *cost_db;		/* with cost_native: the model's database, NULL: the
					 * replayed one */
	int store;			/* write replay_run + replay_metric */
	int sites;			/* fill res[].sites (rp_run_result_release() them) */
	/*
	 * Optional: called every RP_PROGRESS_EVENTS events decoded and once at the end, with
	 * the events decoded so far and the stream's total (the library prints nothing).
	 */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	void *progress_arg;
	/*
	 * Optional: each batch of events as the simulators are fed it, with its site slots
	 * (NULL for a trace without) and the trace as they were given it (valid during the
	 * call only). advise probes over the stream so decoded (replay/advise-probe.c).
	 */
	void (*tap)(const struct rp_trace *t, const struct ftdb_event *ev, const uint32_t *slots,
		    size_t n, void *arg);
	void *tap_arg;
};

#define RP_PROGRESS_EVENTS (1U << 18)

/* What one site slot took in a run: a replay_site row (docs/sites.md, "Per-site metrics"). */
struct rp_run_site {
	char *site;			/* replay_site.site, as compare --by site names it */
	char *module;			/* replay_site.site_module, NULL if none */
	struct rp_site_counters c;
};

struct rp_run_result {
	int64_t run_id;			/* replay_run.run_id, 0 if not stored */
	struct rp_policy pol;
	struct rp_counters total;	/* all selected processes */
	uint64_t elapsed_ns;		/* time spent in this policy's simulator, ns */
	/* opts->sites: by site slot (none for a trace without them), owned; else NULL */
	struct rp_run_site *sites;
	uint32_t nr_sites;
};

/* Free r's sites (the rest is plain data). */
void rp_run_result_release(struct rp_run_result *r);

/* What the run learned about the trace. */
struct rp_trace_info {
	int64_t trace_id;
	char policy[64];		/* trace.policy, "" if unknown */
	char arch[32];			/* trace.arch, "" if unknown */
	uint64_t events;		/* events replayed (after the filter) */
	uint64_t procs;			/* processes selected */
	uint64_t wall_ns;		/* whole pass, decoding included, ns */
	char filter[160];		/* replay_run.filter, "" for none */
};

/*
 * rp_replay_db - decode the trace's stream once, feed every policy's simulator batch by
 * batch, and (opts->store) store one replay_run per policy in one transaction.
 * Return: 0 with res[0..nr_pol) and *info filled, or -1 with fail() set (and no
 * res[].sites to release).
 */
int rp_replay_db(sqlite3 *db, int64_t trace_id, const struct rp_run_opts *opts,
		 struct rp_run_result *res, struct rp_trace_info *info);

/* 1 if a trace recorded under this policy holds every first touch. */
int rp_policy_records_all(const char *recorded);

#endif /* FT_REPLAY_RUN_H */
