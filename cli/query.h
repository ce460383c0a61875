/* SPDX-License-Identifier: GPL-2.0 */
/*
 * query.h - the views of `foliotrace query`, shared by cmd-query.c (option parsing, the
 * views backed by plain tables) and query-stream.c (the views that decode the event stream).
 * Column names are part of the JSON contract in docs/cli-json.md.
 */
#ifndef FT_CLI_QUERY_H
#define FT_CLI_QUERY_H

#include <stdint.h>
#include <sqlite3.h>

#include "cli/output.h"

struct query_opts {
	sqlite3 *db;		/* read-only connection */
	int64_t trace_id;	/* resolved trace */
	enum out_format format;
	int64_t limit;		/* --limit: rows at most, -1 for all */
	int64_t pid;		/* --pid: only this tgid, -1 for all */
	int workload;		/* --workload: only the workload's processes */
};

/* Each fills t (already empty); Return: 0 or -1 (error set). */
int query_faults(const struct query_opts *o, struct out_table *t);
int query_latency(const struct query_opts *o, struct out_table *t);

#endif /* FT_CLI_QUERY_H */
