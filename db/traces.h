/* SPDX-License-Identifier: GPL-2.0 */
/*
 * traces.h - the trace table read and linked: which trace a command works on, what one
 * trace is (its header row with its totals), the recordings of a database, and a guest
 * replay's trace linked to the trace it replays. The one place that says what a recording
 * is: a trace with no parent (parent_trace_id IS NULL); a guest replay's trace has the
 * replayed trace as its parent (docs/schema.md).
 *
 * tracer/ writes the rows (ingest); every other reader of `trace` goes through here.
 */
#ifndef FT_DB_TRACES_H
#define FT_DB_TRACES_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* One trace row and the totals of its processes. Strings owned ("" for SQL NULL). */
struct ftdb_trace {
	int64_t trace_id;
	int64_t parent_trace_id;	/* 0 for a recording */
	char *uuid, *path, *arch, *kernel, *policy, *workload, *clocksource;
	char *clock;			/* the guest clock (schema 7): tcg, icount, ...; "" if unknown */
	int64_t page_size;		/* bytes, 0 if unknown */
	int64_t mem_bytes;		/* guest memory, bytes, 0 if unknown */
	int workload_status;		/* -1 if unknown */
	int partial;			/* 1: the guest died before the trace was closed */
	int64_t events;			/* events read from the CTF trace */
	int64_t discarded_events;	/* events LTTng dropped */
	int64_t processes;		/* process rows */
	int64_t anon_faults;		/* summed over its processes */
};

/*
 * ftdb_pick_trace - resolve which trace a command works on: the given id if >0, else the
 * newest recording, else (a database of guest replays only) the newest trace.
 * Return: 0 and *trace_id set, or -1 (no trace, unknown id).
 */
int ftdb_pick_trace(sqlite3 *db, int64_t want, int64_t *trace_id);

/* ftdb_trace_get - trace_id's row into *t (ftdb_trace_release() it). Return: 0 or -1. */
int ftdb_trace_get(sqlite3 *db, int64_t trace_id, struct ftdb_trace *t);
void ftdb_trace_release(struct ftdb_trace *t);

/*
 * ftdb_recordings - the recordings of db, oldest first; with all, every trace (guest
 * replays too). Return: 0 with *ids (free() it, NULL if none) and *nr, or -1.
 */
int ftdb_recordings(sqlite3 *db, int all, int64_t **ids, size_t *nr);

/*
 * ftdb_trace_meta - the trace header's value of key (trace_meta: buddyinfo.before,
 * vmstat.before, replay_map...). Return: 0 with *value (free() it; NULL if the trace has
 * no such key), or -1 with fail().
 */
int ftdb_trace_meta(sqlite3 *db, int64_t trace_id, const char *key, char **value);

/*
 * ftdb_trace_site_rows - a trace's site_call rows (*calls; 0: recorded without --sites)
 * and site_touch rows (*touches; 0 with calls: stored before schema 5's attribution).
 * Return: 0 or -1 with fail().
 */
int ftdb_trace_site_rows(sqlite3 *db, int64_t trace_id, int64_t *calls, int64_t *touches);

/*
 * ftdb_trace_sites - a trace's memory calls (site_call rows that are a call), their
 * distinct stacks, and the calls whose stack did not unwind to the end.
 * Return: 0 or -1.
 */
int ftdb_trace_sites(sqlite3 *db, int64_t trace_id, int64_t *calls, int64_t *stacks,
		     int64_t *unwind_failed);

/*
 * Every trace with what it is (the latency table's rows, replay/latency-table.h): a guest
 * replay has a replay_run of kind guest naming it (the trace it replays and the policy it
 * replayed), a recording has none. Strings valid during the callback, never NULL.
 */
struct ftdb_trace_kind {
	int64_t trace_id;
	const char *arch;		/* "?" if unknown */
	int64_t page_size;		/* bytes, 0 if unknown */
	const char *policy;		/* the header's policy, "" if unknown */
	const char *clocksource;	/* "" if unknown */
	const char *fragment;		/* the header's --fragment spec, "" without */
	int64_t replay_of;		/* a guest replay: the trace it replays; else 0 */
	const char *replay_policy;	/* a guest replay: the policy it replayed */
	int has_replay_map;		/* the header's replay_map is stored */
};

/* fn for every trace, by trace_id; stops at fn's non-zero. Return: 0, fn's, or -1. */
int ftdb_traces_each_kind(sqlite3 *db, int (*fn)(const struct ftdb_trace_kind *k, void *arg),
			  void *arg);

/* A process row (strings valid during the callback). */
struct ftdb_proc_row {
	int64_t proc_id, pid;
	int64_t parent_proc_id;		/* 0: none */
	const char *comm;		/* "" if unknown */
	int workload;			/* 1 the workload's, 0 not, -1 unknown (not marked) */
};

/* A VMA shape seen by faults. */
struct ftdb_vma_row {
	int64_t vma_id;
	uint64_t start, end, flags;	/* bytes, bytes (exclusive), vm_flags */
};

/* The largest proc_id and vma_id of trace_id (0: none). Return: 0 or -1 with fail(). */
int ftdb_trace_max_ids(sqlite3 *db, int64_t trace_id, int64_t *max_proc, int64_t *max_vma);
/* fn for each process / VMA of trace_id; stops at fn's non-zero. Return: 0, fn's, or -1. */
int ftdb_procs_each(sqlite3 *db, int64_t trace_id,
		    int (*fn)(const struct ftdb_proc_row *p, void *arg), void *arg);
int ftdb_vmas_each(sqlite3 *db, int64_t trace_id,
		   int (*fn)(const struct ftdb_vma_row *v, void *arg), void *arg);

#endif /* FT_DB_TRACES_H */
