/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites-int.h - what the parts of the call-site attribution share (not an API: include
 * only from tracer/sites*.c). The side file is parsed (sitefile.h), a version 2 file's
 * calls get their exits (sites-pair.c), the calls, forks and execs are replayed in time
 * order with the trace's events over each process's address map, charging every touch to
 * the owner of its address (sites-owner.c), and sites.c finds the calls' sites and stores
 * it all through db/sites.h.
 */
#ifndef FT_TRACER_SITES_INT_H
#define FT_TRACER_SITES_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "db/sites.h"
#include "db/stream.h"
#include "lib/ivmap.h"
#include "tracer/idmap.h"
#include "tracer/sitefile.h"

/*
 * sites_pair_exits - version 2: give each call of f (entry time in ts) the time and result
 * of its exit, the first sys_exit row of the same thread and call after its entry and
 * before the thread's next call's entry (a thread is in one system call at a time); mark
 * dropped a call that has none (its thread died in it: the range never reached the
 * program). Then f's records are put in time order again, stably: forks and execs keep
 * their times; a dropped call's record goes.
 * Return: 0, or -1 (error set: SQLite error, calls but no sys_exit row at all).
 */
int ft_sites_pair_exits(struct sitefile *f, sqlite3 *h, int64_t trace_id);

/*
 * An address map, shared copy-on-write by the processes a fork made from one another until
 * one of them changes it: a fork costs a reference, not a copy of the map.
 */
struct owner_map {
	struct ivmap m;			/* addresses (bytes) -> index in calls of their owner */
	size_t refs;			/* processes sharing it */
};

/* A traced process's address map. */
struct owner_proc {
	int pid;
	struct owner_map *map;		/* NULL: empty; shared (refs > 1) until changed */
	int64_t brk;			/* current break, bytes; -1 unknown */
	uint64_t nocall_faults;		/* anon_fault events outside every call's range */
	uint64_t nocall_touched;	/* distinct pages they mapped */
};

/* Consecutive events [first, end) whose touches all have one owner (site_touch). */
struct owner_span {
	uint64_t first, end;	/* event ordinals */
	size_t owner;		/* call index, or nr_calls + process index ('none' row) */
};

struct site_owners {
	struct sitefile *f;
	struct owner_proc *procs;
	size_t nr_procs, cap_procs;
	struct idmap proc_index;	/* pid -> index in procs */
	const struct ftdb_sites_pid *pm;	/* proc_id -> pid, by proc_id */
	size_t nr_pm;
	uint64_t page_size;		/* bytes */
	struct idmap seen;		/* set of owner << 40 | page number (values unused) */
	struct owner_span *spans;	/* in event order */
	size_t nr_spans, cap_spans;
	uint64_t ev_seq;		/* ordinal of the event ft_owners_event() sees */
	int span_open;			/* the last span may grow: no foreign touch since */
	size_t next_rec;		/* f's next record to apply */
};

/*
 * owners_init - the maps of the processes f names (in its order: their '[no call]' rows
 * follow it), for a trace of page_size bytes pages whose processes' pids are pm.
 */
void ft_owners_init(struct site_owners *o, struct sitefile *f, uint64_t page_size,
		 const struct ftdb_sites_pid *pm, size_t nr_pm);

/*
 * owners_event - ftdb_stream_foreach()'s callback (arg: the site_owners): apply the
 * records up to the event's time, then charge a touch (anon_fault, anon_zero_wp, anon_cow)
 * of a traced process to the owner of its address: a span, and for anon_fault the call's
 * (or process's) fault and touched-page counts. Return: 0.
 */
int ft_owners_event(const struct ftdb_event *ev, void *arg);

/* Apply the records after the last event (ranges that end after it). */
void ft_owners_finish(struct site_owners *o);

void ft_owners_release(struct site_owners *o);

#endif /* FT_TRACER_SITES_INT_H */
