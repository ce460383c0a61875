/* SPDX-License-Identifier: GPL-2.0 */
/*
 * series.h - a run's memory and faults against trace time, downsampled to a fixed number
 * of intervals while the simulator runs (report's "memory over time" and "fault rate"
 * charts; stored in replay_run.series, docs/schema.md).
 *
 * The event stream's span (its first and last event) is cut into RP_SERIES_POINTS equal intervals; the
 * simulator closes an interval when the first event at or past its end arrives (and the
 * rest at rp_sim_finish()), so the series costs one compare per event and a few words per
 * interval whatever the trace's length. RSS is read from the simulator's own total (every
 * change to it, whatever mechanism makes it, is in the series); rss_max is the largest it
 * was inside the interval, so a peak between two samples is never lost.
 */
#ifndef FT_REPLAY_SERIES_H
#define FT_REPLAY_SERIES_H

#include <stdint.h>

#include "db/series.h"

#define RP_SERIES_POINTS 240	/* intervals per run: about one per 3 px of a chart */

struct rp_series {
	uint64_t first_ts;	/* trace clock, ns: start of interval 0 */
	uint64_t width;		/* ns per interval, >= 1 */
	uint64_t next;		/* trace clock, ns: end of the open interval */
	uint64_t faults_before;	/* cumulative faults when the open interval began */
	uint32_t n;		/* intervals closed so far, <= RP_SERIES_POINTS */
	struct ftdb_series_point pt[RP_SERIES_POINTS];	/* rss of the counted processes */
};

/* Intervals for a trace whose events span [first_ts, last_ts] (ns of the trace clock). */
void rp_series_init(struct rp_series *s, uint64_t first_ts, uint64_t last_ts);

/*
 * rp_series_close - close every open interval that ends at or before ts (all of them for
 * ts UINT64_MAX), each with the RSS now (rss, bytes), the most inside it (rss_max,
 * bytes; intervals closed after the first in one call saw no event: their max is rss)
 * and the cumulative faults now. Return: the end of the interval now open, UINT64_MAX
 * after the last one.
 */
uint64_t rp_series_close(struct rp_series *s, uint64_t ts, uint64_t rss, uint64_t rss_max,
			 uint64_t faults);

struct rp_sim;
/*
 * rp_sim_series - have simulator s fill ser (rp_series_init()ed) as it is fed; call before
 * the first event. ser must outlive s's rp_sim_finish(), which closes the last intervals.
 */
void rp_sim_series(struct rp_sim *s, struct rp_series *ser);

#endif /* FT_REPLAY_SERIES_H */
