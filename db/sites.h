/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites.h - the call-site tables' writer (site_stack, site_frame, site_call, site_touch
 * and trace_meta's sites.skip: schema/003-sites.sql, 005-site-metrics.sql, docs/schema.md)
 * and what the call-site attribution (tracer/sites.c) reads of a stored trace: its clock
 * offset, page size and end, its processes' pids, its sys_exit rows. Typed rows; the SQL
 * is here only.
 *
 * Writing is one transaction (a savepoint of the caller's, when it has one open: the
 * sink stores the sites in the trace's transaction): ftdb_sites_begin(), the rows (stacks before the frames and
 * calls naming them, calls before the touches naming them), then ftdb_sites_commit(), or
 * ftdb_sites_abort() on a failure, which leaves the database as it was.
 */
#ifndef FT_DB_SITES_H
#define FT_DB_SITES_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* What the attribution needs of a stored trace (trace, trace_meta). */
struct ftdb_sites_trace {
	uint64_t clock_offset;	/* ns: trace clock minus the guest's CLOCK_MONOTONIC */
	uint64_t page_size;	/* bytes; 4096 when the trace has none */
	uint64_t last_ts;	/* ns, trace clock: the trace's last event */
};

/*
 * ftdb_sites_trace - trace_id's clock offset, page size and end.
 * Return: 0, or -1 (error: no such trace, no clock offset, SQLite error).
 */
int ftdb_sites_trace(sqlite3 *h, int64_t trace_id, struct ftdb_sites_trace *t);

struct ftdb_sites_pid {
	int64_t proc_id;	/* process.proc_id */
	int pid;		/* its tgid */
};

/*
 * ftdb_sites_pids - the trace's processes, by proc_id, into *v (malloc'd), *nr of them.
 * Return: 0, or -1 (error set, *v freed).
 */
int ftdb_sites_pids(sqlite3 *h, int64_t trace_id, struct ftdb_sites_pid **v, size_t *nr);

/* A system call's exit (sys_exit). */
struct ftdb_sys_exit {
	int tid;
	uint64_t ts;		/* trace clock, ns */
	int64_t ret;
	const char *call;	/* intern()'s pointer */
};

/*
 * ftdb_sys_exits - the trace's sys_exit rows by thread then time, into *v (malloc'd), *nr
 * of them; only those whose call intern() maps to a pointer (which the row keeps: text
 * that outlives the rows, as tracer/syscalls.h's names), the others skipped.
 * Return: 0, or -1 (error set, *v freed).
 */
int ftdb_sys_exits(sqlite3 *h, int64_t trace_id, const char *(*intern)(const char *call),
		   struct ftdb_sys_exit **v, size_t *nr);

/*
 * ftdb_sites_stored - whether trace_id has site_call rows; db names the file in messages.
 * Return: 1, 0, or -1 (error set).
 */
int ftdb_sites_stored(sqlite3 *h, int64_t trace_id, const char *db);

/* A site_stack row. */
struct ftdb_site_stack {
	int nr_frames;
	const char *status;	/* "ok" or why unwinding stopped */
	int site_depth;		/* the site frame's depth; -1: none (NULL, site [unknown]) */
};

/* A site_frame row. */
struct ftdb_site_frame {
	int depth;		/* 0: innermost */
	uint64_t ip;		/* address */
	const char *module;	/* NULL: no file mapping */
	uint64_t module_offset;	/* bytes */
	const char *proc;	/* NULL: no symbol */
	uint64_t proc_offset;	/* bytes */
};

/* A site_call row of a traced call. */
struct ftdb_site_call {
	uint64_t ts;		/* trace clock, ns: when it returned */
	int pid, tid;
	const char *call;	/* "mmap" */
	uint64_t arg[6];
	int64_t result;
	uint64_t start, end;	/* bytes: the anonymous range; start >= end: none (NULL) */
	uint64_t end_ts;	/* ns: when the range went (stored with a range only) */
	int64_t stack_id;
	const char *site;	/* the site frame's name, "[unnamed]", "[unknown]" */
	const char *site_module;	/* NULL: none */
	int has_site_offset;	/* site_offset is stored (a site frame exists) */
	uint64_t site_offset;	/* bytes into site_module */
	uint64_t faults;	/* anon_fault events in its range */
	uint64_t touched_pages;	/* distinct pages they mapped */
};

/* The open transaction and its statements. */
struct ftdb_sites_writer {
	sqlite3 *h;
	int64_t trace_id;
	sqlite3_stmt *stack, *frame, *call, *touch;
	int nested;		/* inside the caller's transaction: a savepoint of it */
};

/*
 * Begin the transaction (a savepoint when h is already in one: the sink's, which stores
 * the trace, so the two are committed together), prepare the statements; Return: 0, or
 * -1 (nothing to abort).
 */
int ftdb_sites_begin(struct ftdb_sites_writer *w, sqlite3 *h, int64_t trace_id);

/* Return: 0 and *stack_id, or -1 (error set). */
int ftdb_site_stack_add(struct ftdb_sites_writer *w, const struct ftdb_site_stack *s,
			int64_t *stack_id);
/* Return: 0, or -1 (error set). */
int ftdb_site_frame_add(struct ftdb_sites_writer *w, int64_t stack_id,
			const struct ftdb_site_frame *f);
/* Return: 0 and *call_id, or -1 (error set). */
int ftdb_site_call_add(struct ftdb_sites_writer *w, const struct ftdb_site_call *c,
		       int64_t *call_id);
/*
 * ftdb_site_nocall_add - the `none` row of a traced process (site "[no call]": its touches
 * outside every call's range); Return: 0 and *call_id, or -1 (error set).
 */
int ftdb_site_nocall_add(struct ftdb_sites_writer *w, int pid, uint64_t faults,
			 uint64_t touched_pages, int64_t *call_id);
/* A site_touch row: events [ev_first, ev_end) of the stream; Return: 0, or -1. */
int ftdb_site_touch_add(struct ftdb_sites_writer *w, uint64_t ev_first, uint64_t ev_end,
			int64_t call_id);

/*
 * ftdb_sites_commit - store skip (the site skip regex) as trace_meta sites.skip and commit.
 * Return: 0, or -1 (error set; rolled back, w finished either way).
 */
int ftdb_sites_commit(struct ftdb_sites_writer *w, const char *skip);

/* Roll back and finish w (after a failed add). */
void ftdb_sites_abort(struct ftdb_sites_writer *w);

/*
 * ftdb_sites_touched - fn(site, pages) for each site of trace_id's calls with the pages
 * its calls' ranges had touched, by site name (advise's budget, replay/advise.h).
 * Return: 0, fn's non-zero, or -1 with fail().
 */
int ftdb_sites_touched(sqlite3 *h, int64_t trace_id,
		       int (*fn)(const char *site, int64_t pages, void *arg), void *arg);

/*
 * ftdb_site_slots_each - fn(site, module) for each distinct (site, site_module) of
 * trace_id's calls, sorted as ORDER BY site, site_module (module NULL first).
 * ftdb_site_touch_each - fn(ev_first, ev_end, site, module) for each site_touch run of
 * trace_id, by ev_first: events [ev_first, ev_end) of the stream owned by that call's
 * site. Strings valid during the callback. Return: 0, fn's non-zero, or -1 with fail().
 */
int ftdb_site_slots_each(sqlite3 *h, int64_t trace_id,
			 int (*fn)(const char *site, const char *module, void *arg), void *arg);
int ftdb_site_touch_each(sqlite3 *h, int64_t trace_id,
			 int (*fn)(uint64_t ev_first, uint64_t ev_end, const char *site,
				   const char *module, void *arg), void *arg);

#endif /* FT_DB_SITES_H */
