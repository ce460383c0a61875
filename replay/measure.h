/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure.h - the measurement of a guest replay (docs/guest-replay.md): the metrics a
 * guest's own trace shows for the replayed processes, counted with the accounting the
 * simulator uses (docs/metrics.md), so that `compare --sim-vs-real` can put them next to
 * the simulation of the same policy.
 *
 * Which guest events are measured: those of the processes the replayer started (the pids
 * it printed, FTREPLAY lines kept as trace_meta replay_map) inside the address ranges it
 * placed for their family (recorded range + offset). The replayer's own faults lie
 * outside them.
 *
 * Use: rp_measure_db() for a database; or, for a stream in memory (tests), parse a map
 * with rp_replay_map_parse(), rp_measure_new(), rp_measure_feed() each event in recorded
 * order, rp_measure_finish().
 */
#ifndef FT_REPLAY_MEASURE_H
#define FT_REPLAY_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "db/stream.h"
#include "replay/filter.h"
#include "replay/replay.h"

#define RP_MEASURE_ORDERS 16		/* latencies are kept for orders 0..15 */

/* One replayed process: "FTREPLAY proc=I proc_id=R pid=G parent=P". */
struct rp_replay_proc {
	uint32_t index;			/* position in the replay file */
	uint32_t proc_id;		/* recorded process (of the original trace) */
	int64_t pid;			/* guest tgid that replayed it */
	int32_t parent;			/* index of the process forking it, -1 for a root */
	uint32_t root;			/* index of its family's root */
};

/* An address range a family's processes use: "FTREPLAY_CLUSTER proc=I start= end= offset=". */
struct rp_replay_range {
	uint32_t root;			/* family: index of its root */
	uint64_t start, end;		/* guest addresses, bytes, end exclusive */
};

struct rp_replay_map {
	struct rp_replay_proc *p;
	size_t nr_p, cap_p;
	struct rp_replay_range *c;
	size_t nr_c, cap_c;
};

/*
 * rp_replay_map_parse - the replayer's FTREPLAY lines (other lines are skipped); parents
 * must precede their children, as the replayer prints them.
 * Return: 0, or fail() naming a malformed line (*m is then to be released all the same).
 */
int rp_replay_map_parse(const char *text, struct rp_replay_map *m);
void rp_replay_map_release(struct rp_replay_map *m);

/* Latencies of one order, ns, sorted ascending after rp_measure_finish(). */
struct rp_latencies {
	uint64_t *ns;
	size_t n, cap;
};

/* Nearest rank: the value at 1-based rank ceil(pct / 100 * n) of n sorted values (n > 0). */
uint64_t rp_latency_rank(const uint64_t *sorted, size_t n, double pct);

/* Mean of n values (n > 0): exact (128-bit sum), rounded half up, at most the largest. */
uint64_t rp_latency_mean(const uint64_t *v, size_t n);

/* Sort n u64 values ascending (the one comparator of replay/ latencies and costs). */
void rp_u64_sort(uint64_t *v, size_t n);

struct rp_measured {
	/*
	 * Metrics by enum rp_metric, those a guest trace shows: faults, zero_wp_faults,
	 * cow_faults, zeroed_bytes, peak_rss_bytes, alloc_order_N, fallback_*, and
	 * fault_time_ns (the sum of the measured records' latency_ns); the others 0.
	 */
	struct rp_counters c;
	struct rp_latencies lat[RP_MEASURE_ORDERS];	/* new-folio faults' latency_ns */
	/* new-folio faults mapped at order k because the allocation of a larger one failed */
	uint64_t fb_alloc_failed[RP_MEASURE_ORDERS];
	uint64_t alloc_failed[RP_MEASURE_ORDERS];	/* anon_alloc attempts of order k that failed */
};

void rp_measured_release(struct rp_measured *r);

struct rp_measure;

/*
 * rp_measure_new - measure the processes of a guest trace: family[proc_id] (proc_id <
 * nr_procs of the guest trace) is the index of the root of the replayed family the process
 * belongs to, -1 for a process not measured; page_shift is the guest's page size. m NULL:
 * no address ranges, every address of a measured process counts (a recording).
 */
struct rp_measure *rp_measure_new(const struct rp_replay_map *m, const int32_t *family,
				  uint32_t nr_procs, unsigned int page_shift);
void rp_measure_feed(struct rp_measure *w, const struct ftdb_event *ev);
/* The result into *out (rp_measured_release() it); frees w. */
void rp_measure_finish(struct rp_measure *w, struct rp_measured *out);

/*
 * rp_measure_db - measure guest trace guest_id, the guest replay of trace_id: the replayed
 * processes whose recorded process sel selects (NULL: all of them).
 * Return: 0 with *out filled, or -1 with fail() (no replay_map, bad map, SQL).
 */
int rp_measure_db(sqlite3 *db, int64_t trace_id, int64_t guest_id, const struct rp_filter *sel,
		  struct rp_measured *out);

enum rp_measure_who {
	RP_MEASURE_WORKLOAD,	/* the processes a replay selects by default (filter.h) */
	RP_MEASURE_UNTRACING,	/* every process but the guest's init (pid 1) and LTTng's
				 * own (comm lttng*): what falls between init's reads of a
				 * 6.12 guest's per-size counters (mthp-stats.h) */
};

/*
 * rp_measure_trace - measure a recording as it is: the processes of trace_id who names,
 * every address (the same accounting as a guest replay's, without a replay map).
 * Return: 0 with *out filled, or -1 with fail().
 */
int rp_measure_trace(sqlite3 *db, int64_t trace_id, enum rp_measure_who who,
		     struct rp_measured *out);

#endif /* FT_REPLAY_MEASURE_H */
