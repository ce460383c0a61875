/* SPDX-License-Identifier: GPL-2.0 */
/*
 * filter.h - the process selection of a replay (--comm NAME, --pid N) and its one text
 * form, stored in replay_run.filter: "comm=NAME pid=N", "comm=NAME", "pid=N", or none
 * (NULL in the database, "" here). rp_filter_format() writes it, rp_filter_parse() reads
 * it back; runs are matched by comparing parsed selections (rp_filter_equal()), never by
 * string.
 *
 * No filter is the default selection: the workload's processes (process.workload = 1) when
 * the trace marks them, else every process. The guest's own setup (init, the launcher,
 * lttng) is then left out of a replay without --comm/--pid.
 */
#ifndef FT_REPLAY_FILTER_H
#define FT_REPLAY_FILTER_H

#include <stddef.h>
#include <stdint.h>

#define RP_FILTER_LEN 160		/* a formatted filter fits (comm is at most 127) */

struct rp_filter {
	char comm[128];			/* command name, meaningful if has_comm */
	int has_comm;			/* 0: any command name */
	int64_t pid;			/* tgid, -1 for any */
};

/*
 * rp_filter_selects - 1 if f selects a process with this comm, pid and workload mark (1
 * the workload's), in a trace that marks its workload's processes (marked: one has
 * workload 1) or not; the one reading of a selection.
 */
int rp_filter_selects(const struct rp_filter *f, const char *comm, int64_t pid,
		      int workload, int marked);

/* Select comm (NULL: any) and pid (< 0: any). */
void rp_filter_set(struct rp_filter *f, const char *comm, int64_t pid);
/* The command name selected, or NULL for any. */
static inline const char *rp_filter_comm(const struct rp_filter *f)
{
	return f->has_comm ? f->comm : NULL;
}
/* 1 if f selects every process. */
static inline int rp_filter_none(const struct rp_filter *f)
{
	return !f->has_comm && f->pid < 0;
}
/* The stored text of f into buf ("" for none). */
void rp_filter_format(const struct rp_filter *f, char *buf, size_t len);
/*
 * rp_filter_parse - a stored filter (NULL or "" for none) back into *f.
 * Return: 0, or fail() naming the text that is not a filter.
 */
int rp_filter_parse(const char *text, struct rp_filter *f);
/* 1 if a and b select the same processes. */
int rp_filter_equal(const struct rp_filter *a, const struct rp_filter *b);

#endif /* FT_REPLAY_FILTER_H */
