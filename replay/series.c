// SPDX-License-Identifier: GPL-2.0
/*
 * series.c - the intervals of a run's series; see series.h. The simulator's side (what
 * RSS and faults are at a boundary) is in sim.c, rp_sim_series().
 */
#include <string.h>

#include "replay/series.h"

void rp_series_init(struct rp_series *s, uint64_t first_ts, uint64_t last_ts)
{
	uint64_t span = last_ts > first_ts ? last_ts - first_ts + 1 : 1;

	memset(s, 0, sizeof(*s));
	s->first_ts = first_ts;
	/* ceil: the last event falls in the last interval, never past it */
	s->width = (span + RP_SERIES_POINTS - 1) / RP_SERIES_POINTS;
	s->next = first_ts + s->width;
}

uint64_t rp_series_close(struct rp_series *s, uint64_t ts, uint64_t rss, uint64_t rss_max,
			 uint64_t faults)
{
	while (s->n < RP_SERIES_POINTS && ts >= s->next) {
		struct ftdb_series_point *p = &s->pt[s->n++];

		p->t_ns = s->next - s->first_ts;
		p->rss = rss;
		p->rss_max = rss_max > rss ? rss_max : rss;
		p->faults = faults - s->faults_before;
		s->faults_before = faults;
		rss_max = rss;	/* the next intervals saw no event */
		s->next += s->width;
	}
	return s->n < RP_SERIES_POINTS ? s->next : UINT64_MAX;
}
