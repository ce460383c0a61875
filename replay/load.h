/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h - the one trace loader of replay/: a trace's static tables as the engines index
 * them (VMAs by vma_id, processes by proc_id), its page size, and which processes a
 * selection (filter.h) keeps. Used by the simulator runs (run.c), the export for the guest
 * replayer (export-db.c) and the guest measurement (measure-db.c).
 */
#ifndef FT_REPLAY_LOAD_H
#define FT_REPLAY_LOAD_H

#include <stdint.h>
#include <sqlite3.h>

#include "replay/filter.h"
#include "replay/replay.h"

/* Events [first, end) of the stream (ordinals) whose touches belong to site slot. */
struct rp_touch_span {
	uint64_t first, end;
	uint32_t slot;
};

/* A process of a trace, indexed by proc_id. */
struct rp_proc_info {
	int64_t pid;			/* recorded tgid; 0 for an unused proc_id */
	char comm[16];			/* command name, "" if unknown */
	uint8_t present;		/* 1: the trace has a process with this proc_id */
	uint8_t selected;		/* 1: present and matches the selection */
	uint8_t shadow;			/* 1: not selected, forked (anon_mm_dup) from a
					 * selected or shadow process: replayed for the pages
					 * it shares with them, none of its metrics counted */
	uint8_t workload;		/* 1: present and of the recorded workload's tree, as
					 * the trace marks it (0 in a trace that marks none):
					 * a guest replay of the workload replays it under
					 * the policy */
};

/* What the trace row says of a trace. */
struct rp_trace_head {
	char policy[64];		/* trace.policy it was recorded under, "" if unknown */
	char arch[32];			/* trace.arch, "" if unknown */
	int64_t page_size;		/* trace.page_size, bytes (4096 if not recorded) */
	char clock[16];			/* trace.clock (tcg, kvm, icount), "" if unknown */
};

/* rp_load_head - trace_id's row. Return: 0, or -1 with fail() (no such trace, SQL). */
int rp_load_head(sqlite3 *db, int64_t trace_id, struct rp_trace_head *h);

struct rp_loaded {
	int64_t trace_id;
	struct rp_trace_head head;
	int64_t page_size;		/* head.page_size */
	unsigned int page_shift;	/* log2(page_size) if it is a power of two, else 0 */
	struct rp_vma *vmas;		/* indexed by vma_id; unused ids: start == end == 0 */
	uint32_t nr_vmas;		/* 1 + largest vma_id */
	struct rp_proc_info *procs;	/* indexed by proc_id */
	uint32_t nr_procs;		/* 1 + largest proc_id */
	/*
	 * Per-site accounting (a trace whose sites were ingested with schema 5's site_touch):
	 * slot i > 0 is the site (slot_site[i], slot_module[i]; `query sites`' grouping),
	 * slot 0 '[untraced]'; touch maps event ordinals to slots. nr_slots 0: none. The
	 * one attribution of touches to sites: per-site metrics charge it, persite decides
	 * by it.
	 */
	char **slot_site, **slot_module;	/* owned; module NULL if none */
	uint32_t nr_slots;
	struct rp_touch_span *touch;	/* by ev_first, disjoint */
	uint32_t nr_touch;
	int sites_without_touch;	/* 1: site_call rows but no site_touch (stored
					 * before schema 5: ingest again for per-site) */
	uint64_t nr_rows;		/* processes of the trace */
	uint64_t nr_selected;		/* of those, selected (all of them without a filter) */
	uint64_t nr_shadow;		/* of those, shadows of the selected */
};

/*
 * rp_load - load trace_id's processes and VMAs, marking the processes sel selects (NULL:
 * every one) and their shadows. Finding no selected process is not an error here: callers say it in their
 * own terms. Return: 0 with *t filled (rp_load_release() it), or -1 with fail() (no such
 * trace, SQL failure) and nothing to release.
 */
int rp_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel, struct rp_loaded *t);
void rp_load_release(struct rp_loaded *t);

/*
 * rp_touch_slot - the site slot of event ordinal ord, for ordinals asked in increasing
 * order; *cursor starts at 0. Return: the slot, 0 ('[untraced]') outside every span.
 */
uint32_t rp_touch_slot(const struct rp_loaded *l, uint32_t *cursor, uint64_t ord);

/* The engine's view of a loaded trace (free_blocks zero). */
void rp_load_trace(const struct rp_loaded *l, struct rp_trace *t);

#endif /* FT_REPLAY_LOAD_H */
