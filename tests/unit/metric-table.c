// SPDX-License-Identifier: GPL-2.0
/*
 * metric-table.c - the invariants of the metric table (replay/metrics.c) that compare,
 * replay and report rely on: every metric has one row, names are unique and look up to
 * their metric, a group's rows are adjacent and have their own field names, and the
 * flags are coherent.
 */
#include <string.h>

#include "replay/replay.h"
#include "tests/unit/tap.h"

int main(void)
{
	const struct rp_metric_info *mt;
	unsigned int seen[RP_NR_METRICS] = { 0 }, m;
	size_t n, i, k;
	int once = 1, names = 1, groups = 1, flags = 1, internal = 0;

	plan(6);
	mt = rp_metric_table(&n);
	for (i = 0; i < n; i++) {
		if (mt[i].id < RP_NR_METRICS)
			seen[mt[i].id]++;
		if (rp_metric_lookup(mt[i].name) != (int)mt[i].id ||
		    rp_metric_info(mt[i].id) != &mt[i])
			names = 0;
		for (k = 0; k < i; k++) {
			if (!strcmp(mt[k].name, mt[i].name))
				names = 0;
			/* a group's rows: adjacent, distinct keys */
			if (mt[i].group && mt[k].group && !strcmp(mt[i].group, mt[k].group) &&
			    (!mt[i - 1].group || strcmp(mt[i - 1].group, mt[i].group) ||
			     !strcmp(mt[k].key, mt[i].key)))
				groups = 0;
		}
		if (mt[i].group && !mt[i].key)
			groups = 0;
		if ((mt[i].show & RP_SHOW_VS_BASE) && (mt[i].group || !(mt[i].show &
							     (RP_SHOW_COLUMN | RP_SHOW_JSON))))
			flags = 0;
		if ((mt[i].show & RP_SHOW_TOTAL) && !mt[i].group)
			flags = 0;
		if (mt[i].show & RP_SHOW_INTERNAL) {
			internal++;
			if (mt[i].show != RP_SHOW_INTERNAL)
				flags = 0;
		}
	}
	for (m = 0; m < RP_NR_METRICS; m++)
		if (seen[m] != 1)
			once = 0;
	ok(n == RP_NR_METRICS && once, "every metric has exactly one row (%zu rows)", n);
	ok(names, "names are unique and look up to their own row");
	ok(groups, "a group's rows are adjacent, each with its own key");
	ok(flags, "a change against the baseline is shown only with its value, a total only "
	   "for a group, an internal metric nowhere");
	ok(internal == 1 && !rp_metric_public(RP_M_FB_0 + FTDB_FB_NONE),
	   "one internal metric: fallback_none");
	ok(rp_metric_is_bytes(RP_M_PEAK_RSS) && rp_metric_is_bytes(RP_M_FREE_BYTES) &&
	   !rp_metric_is_bytes(RP_M_FAULTS) && !strcmp(rp_metric_name(RP_NR_METRICS), "?"),
	   "byte metrics are flagged; an unknown id is named \"?\"");
	return done_testing();
}
