/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ingest.h - store a CTF trace directory in a trace database: what `foliotrace ingest`,
 * `record` and `guest replay` call.
 *
 * Steps: check the trace's files (tracer/ctfcheck.h); refuse damage, and an incomplete
 * trace unless allow_partial; then decode it with babeltrace2 (tracer/graph.h) in a child
 * process, so that an abort or a hang inside babeltrace2 on input the checks did not catch
 * becomes an error here instead of taking the caller down.
 *
 * Watchdog: the child bumps a heartbeat per event decoded, per row written and per 10 ms
 * spent waiting for another writer's lock (tracer/store.c). It is killed when the
 * heartbeat stands still for longer than FT_INGEST_STALL_MS (60 s) plus 1 s per 16 MiB of
 * trace (babeltrace2 indexes every stream before the first event, and the commit's fsync
 * writes the whole trace): progress, not wall-clock time, so a long ingest is never cut.
 * FT_TEST_INGEST_STALL_MS in the environment replaces the limit (tests only).
 *
 * A guest run's directory holding the call-site tracer's side file (FT_SITES_FILE, written
 * by `record --sites`) has it stored with the trace (tracer/sites.h), by the sink in the
 * trace's transaction: a trace is never stored without its call sites. A trace already
 * stored without them (an older ingest stopped between its two transactions) gets them
 * on the next run.
 *
 * On any failure nothing is stored: the trace's transaction is rolled back (by the child,
 * or by the journal when the child died), an existing database is left byte for byte as it
 * was, and one that did not exist (or was empty) is removed (or emptied) again. SIGINT,
 * SIGTERM and SIGHUP (unless ignored) are held while the child runs: the child is stopped,
 * the same cleanup is done, then the signal is raised again.
 */
#ifndef FT_TRACER_INGEST_H
#define FT_TRACER_INGEST_H

#include <stdint.h>

#define FT_INGEST_STALL_MS	60000		/* ms without progress before the kill */
#define FT_INGEST_STALL_BYTES	(16u << 20)	/* trace bytes per extra second */

struct ft_ingest_opts {
	const char *db;		/* trace database, created if missing */
	const char *dir;	/* CTF directory: a guest run's share or a CTF trace */
	int allow_partial;	/* store a trace missing per-CPU streams, marked partial */
	const char *site_skip;	/* call-site skip regex (tracer/sites.h), NULL: default */
	/*
	 * Optional: called about every 100 ms while the trace is decoded, with the events read
	 * so far (the total is known only at the end); the library prints nothing.
	 */
	void (*progress)(uint64_t events, void *arg);
	void *progress_arg;
	/*
	 * Optional: told what went wrong while cleaning up after a failure (one line, no
	 * newline), which the failure's own causes do not say; NULL: not told.
	 */
	void (*warn)(const char *msg, void *arg);
	void *warn_arg;
};

struct ft_ingest_result {
	int64_t trace_id;	/* trace row written, or the one already holding the trace */
	int duplicate;		/* 1: the trace was already stored, nothing written */
	uint64_t events;	/* events read, all types */
	uint64_t anon_records;	/* records in the event stream */
	unsigned int missing;	/* streams missing (allow_partial): stored marked partial */
	double seconds;		/* wall-clock time of the whole ingest */
};

/* ft_ingest - see above. Return: 0 (res filled), or -1 (error set, nothing stored). */
int ft_ingest(const struct ft_ingest_opts *o, struct ft_ingest_result *res);

#endif /* FT_TRACER_INGEST_H */
