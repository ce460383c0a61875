/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeline.h - the report's charts against trace time: anonymous RSS per policy ("memory
 * over time") and faults per second per policy ("fault rate over time"), drawn from the
 * stored series of the runs (replay_run.series, db/series.h).
 */
#ifndef FT_REPORT_TIMELINE_H
#define FT_REPORT_TIMELINE_H

#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/runs.h"

/*
 * report_timeline - append both charts (ids "<prefix>rss-time", "<prefix>fault-rate") of
 * the nr run sets rs (1, or 2 for a comparison: the second's lines dashed, each name
 * suffixed with its set's label[k]; labels NULL for one set), each set's time from its
 * own stream's first event. Runs without a series (stored before schema 8) are left out
 * and named in a note. db[k] is the database of rs[k].
 * Return: 0, or -1 with fail() (the database cannot be read).
 */
int report_timeline(struct strbuf *sb, sqlite3 *const *db, const struct rp_run_set *rs,
		    const char *const *label, unsigned int nr, const char *prefix);

/* The color of the i-th policy of a page's charts. */
const char *report_policy_color(unsigned int i);

#endif /* FT_REPORT_TIMELINE_H */
