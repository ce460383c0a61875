/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - the HTML page of `foliotrace report`: one self-contained page (inline CSS
 * and SVG, a one-line script, no network) with the latest replay run of each policy of a
 * trace, or of every recording of a database; drawn from the stored runs (replay/runs.h)
 * and the trace (db/traces.h), never from the command line.
 */
#ifndef FT_REPORT_REPORT_H
#define FT_REPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/runs.h"

/* What a page holds, for the caller's one line. */
struct report_info {
	size_t traces;			/* several recordings: how many; 0 for one trace */
	unsigned int shown;		/* several: the traces with a baseline run, drawn */
	int64_t trace_id;		/* one trace: which; a comparison: A's */
	int64_t against_id;		/* a comparison: B's trace */
	unsigned int policies;		/* one trace: its policies; a comparison: both sides' */
};

/*
 * report_build - append to sb the page of q's runs in db: with no q->want and several
 * recordings, all of them (the workloads x policies tables first, then a section per
 * trace; a trace without a baseline run gets a note); else the one trace q picks.
 * Return: 0 with *info, or -1 with fail() (no replay run of the baseline, several
 * selections and none given).
 */
int report_build(sqlite3 *db, const struct rp_run_query *q, struct strbuf *sb,
		 struct report_info *info);

#endif /* FT_REPORT_REPORT_H */
