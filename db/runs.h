/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs.h - replay runs and their metrics (replay_run, replay_metric, replay_site): the one
 * writer of each and their readers. A run is a simulation (kind "sim", written by replay/
 * run.c) or a guest replay (kind "guest": the guest's trace linked to the trace it
 * replays, written by vm/guest-replay.c). Metric names are replay/metrics.c's; db/ stores
 * them as names and knows none of them (docs/schema.md).
 */
#ifndef FT_DB_RUNS_H
#define FT_DB_RUNS_H

#include <stdint.h>
#include <sqlite3.h>

/* A run to store. */
struct ftdb_run {
	int64_t trace_id;		/* the trace replayed */
	const char *policy;		/* canonical policy spec */
	const char *frag;		/* allocation failure model ("none", ...) */
	const char *kind;		/* "sim" or "guest" */
	const char *filter;		/* the selection's stored form; NULL or "" for none */
	int64_t guest_trace_id;		/* kind guest: the guest's trace; else 0 */
	int64_t elapsed_ns;		/* wall time of the run, ns */
};

/*
 * A transaction that stores runs with their metrics and sites: begun by
 * ftdb_run_writer_begin(), ended by _commit() or _abort(); nothing is visible before the
 * commit, and an abort (or a crash) leaves the database as it was.
 */
struct ftdb_run_writer {
	sqlite3 *db;
	sqlite3_stmt *run, *metric, *site;
};

/* BEGIN IMMEDIATE and the statements. Return: 0, or -1 with fail() (nothing begun). */
int ftdb_run_writer_begin(sqlite3 *db, struct ftdb_run_writer *w);
/* A replay_run row; Return: 0 with *run_id, or -1 with fail(). */
int ftdb_run_add(struct ftdb_run_writer *w, const struct ftdb_run *r, int64_t *run_id);
/* A replay_metric row: proc_id < 0 for the run's total. Return: 0 or -1. */
int ftdb_run_add_metric(struct ftdb_run_writer *w, int64_t run_id, int64_t proc_id,
			const char *name, int64_t value);
/* A replay_site row (module NULL for none; byte counts). Return: 0 or -1. */
int ftdb_run_add_site(struct ftdb_run_writer *w, int64_t run_id, const char *site,
		      const char *module, int64_t faults, int64_t bloat_bytes,
		      int64_t zeroed_bytes, int64_t rss_at_peak_bytes);
/* Return: 0, or -1 with fail() after rolling back. Either way w is finished. */
int ftdb_run_writer_commit(struct ftdb_run_writer *w);
void ftdb_run_writer_abort(struct ftdb_run_writer *w);

/*
 * ftdb_run_link_guest - in one transaction, make the guest trace r->guest_trace_id a guest
 * replay of r->trace_id (its parent) and store its run r (kind "guest").
 * Return: 0 with *run_id, or -1 with fail() and nothing changed.
 */
int ftdb_run_link_guest(sqlite3 *db, const struct ftdb_run *r, int64_t *run_id);

/* A stored run, as read back. Strings are cut to their buffers. */
struct ftdb_run_row {
	int64_t run_id;
	char policy[64];		/* canonical spec */
	char frag[16];			/* frag model */
	char filter[160];		/* replay_run.filter, "" for none */
	char created_at[40];		/* UTC, ISO 8601 */
	int64_t elapsed_ns;		/* 0 if not recorded */
	int64_t guest_trace_id;		/* kind guest: the guest's trace; else 0 */
};

/*
 * ftdb_runs_each - call fn for each run of trace_id of this kind, made with frag (NULL:
 * any) and policy (NULL: any), in run_id order; stops at fn's first non-zero return.
 * Return: 0, fn's value, or -1 with fail().
 */
int ftdb_runs_each(sqlite3 *db, int64_t trace_id, const char *kind, const char *frag,
		   const char *policy, int (*fn)(const struct ftdb_run_row *r, void *arg),
		   void *arg);

/*
 * ftdb_run_totals - call fn(name, value) for each total metric of run_id (replay_metric
 * rows with proc_id NULL). Return: 0, fn's value, or -1 with fail().
 */
int ftdb_run_totals(sqlite3 *db, int64_t run_id,
		    int (*fn)(const char *name, int64_t value, void *arg), void *arg);

/* A replay_site row as read back: strings valid during the callback only. */
struct ftdb_site_row {
	const char *site;
	const char *module;		/* NULL if none */
	int64_t faults, bloat_bytes, zeroed_bytes, rss_at_peak_bytes;
};

/* fn for each replay_site row of run_id, by site and module. Return: 0, fn's, or -1. */
int ftdb_run_sites(sqlite3 *db, int64_t run_id,
		   int (*fn)(const struct ftdb_site_row *s, void *arg), void *arg);

/*
 * ftdb_run_filters - fn for each distinct stored selection (filter, "" for none) of the
 * simulated runs of trace_id made with frag (NULL: any), in the order of their first run.
 * Return: 0, fn's value, or -1 with fail().
 */
int ftdb_run_filters(sqlite3 *db, int64_t trace_id, const char *frag,
		     int (*fn)(const char *filter, void *arg), void *arg);

#endif /* FT_DB_RUNS_H */
