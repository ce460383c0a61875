/* SPDX-License-Identifier: GPL-2.0 */
/*
 * against.h - the comparison page of `foliotrace report A.db B.db` (or `--against ID`):
 * one trace's latest runs against another's, the same workload before and after a
 * change: both headers, per policy the faults, peak RSS and bloat of each side and the
 * change from A to B, those as bar charts, and memory and fault rate over time with both
 * sides on one time axis (B dashed).
 */
#ifndef FT_REPORT_AGAINST_H
#define FT_REPORT_AGAINST_H

#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/runs.h"
#include "report/report.h"

/*
 * report_against - append to sb the page of trace qa->want of da (its newest recording
 * if 0) against trace qb->want of db_b (db_b may be da); each side's runs read as for a
 * one-trace page with its own query (the same baseline, frag and selection). names[2]
 * are how the page names the databases. Return: 0 with info->policies (the policies
 * both sides have) and info->trace_id (A's), or -1 with fail() (no baseline run on a
 * side, the same trace twice, what rp_run_set_read() refuses).
 */
int report_against(sqlite3 *da, const struct rp_run_query *qa, sqlite3 *db_b,
		   const struct rp_run_query *qb, const char *const *names, struct strbuf *sb,
		   struct report_info *info);

#endif /* FT_REPORT_AGAINST_H */
