/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs.h - what compare and report read back from replay_run/replay_metric: the latest
 * stored simulator run of each policy for one trace, selection (frag model, filter) and
 * formatting helpers shared by the replay, compare and report commands.
 */
#ifndef FT_CLI_RUNS_H
#define FT_CLI_RUNS_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/replay.h"
#include "replay/runs.h"

struct run_set {
	int64_t trace_id;
	char recorded_policy[64];	/* trace.policy, "" if unknown */
	char frag[16];			/* frag model of the runs selected */
	char filter[160];		/* filter of the runs selected, "" for none */
	struct rp_stored_run *run;	/* one per policy, baseline first, then by run_id */
	unsigned int nr;
	int base;			/* index of the baseline run, -1 if none */
};

/*
 * runs_load - the latest sim run of every policy for trace_id with the selection sel and
 * frag model (NULL: that of the most recent run with sel). The baseline, if run, is moved
 * first. Return: 0 (rs->nr may be 0), or -1 with fail().
 */
int runs_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel, const char *frag,
	      const char *baseline, struct run_set *rs);
void runs_release(struct run_set *rs);

/*
 * runs_default_sel - the selection compare and report read when given no --comm/--pid:
 * none (the workload's processes) if trace_id has such sim runs (of frag, NULL: any), else
 * the one other selection its runs were made with. Return: 0 with *sel set (none when
 * there are no runs at all), or -1 with fail() naming the selections when there are
 * several and none is the default.
 */
int runs_default_sel(sqlite3 *db, int64_t trace_id, const char *frag, struct rp_filter *sel);

/* Which stored runs compare and report read: their options -b -F -c -p -t. */
struct runs_opts {
	struct rp_policy base;		/* --baseline, order0 unless given */
	const char *frag;		/* --frag model name, NULL: that of the newest run */
	const char *comm;		/* --comm, NULL for any */
	int64_t pid;			/* --pid tgid, -1 for any */
	int64_t want;			/* --trace id, 0: the only or newest trace */
};

void runs_opts_init(struct runs_opts *ro);
/*
 * runs_option - take option c (one of 'b', 'F', 'c', 'p', 't') with its value arg for
 * foliotrace cmd. Return: 0, or 2 (usage error) after printing the cause, and for a bad
 * number the usage text, on stderr.
 */
int runs_option(struct runs_opts *ro, int c, const char *arg, const char *cmd,
		const char *usage);
/*
 * runs_read - runs_load() of trace_id with ro's frag and baseline, and ro's --comm/--pid
 * selection or, without one, runs_default_sel()'s. Return: 0, or -1 with fail().
 */
int runs_read(sqlite3 *db, int64_t trace_id, const struct runs_opts *ro, struct run_set *rs);
/*
 * runs_open - open the database at path read-only, pick the trace ro->want and load its
 * runs as runs_load() does with ro's filter, frag and baseline. Return: 0 with *db open
 * (the caller closes it) and rs loaded, or -1 with fail() and nothing left open.
 */
int runs_open(const char *path, const struct runs_opts *ro, sqlite3 **db, struct run_set *rs);

/* "12.3M", "512K", "17" for a byte count (binary units). */
void fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* "-70.1%" change of v against base; "-" if base is 0. */
void fmt_delta(char *buf, size_t len, uint64_t v, uint64_t base);

#endif /* FT_CLI_RUNS_H */
