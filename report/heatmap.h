/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heatmap.h - where the faults land: per process (the busiest few, or the --pid/--comm
 * selection), recorded faults binned by address band and trace time, with the VMAs named
 * (address, size, permissions) and, for a trace with call sites, each band's busiest
 * site; a density column shows how much of each band the faults touched, so a sparse
 * region that a large order would bloat stands out.
 */
#ifndef FT_REPORT_HEATMAP_H
#define FT_REPORT_HEATMAP_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"

#define HM_PROCS	3	/* processes drawn, the busiest first */
#define HM_COLS		120	/* time columns */
#define HM_ROWS		64	/* address bands per process, at most */
#define HM_REGION_ROWS	8	/* bands per VMA region, at most (one per 2M below that) */

/*
 * report_heatmaps - one chart per process (ids "<prefix>heat-<proc_id>": a
 * re-exec keeps the pid) of trace_id in db,
 * from one pass over its event stream; pid >= 0 or comm non-NULL restricts the processes
 * as replay's selection does. Return: 0, or -1 with fail().
 */
int report_heatmaps(struct strbuf *sb, sqlite3 *db, int64_t trace_id, int64_t pid,
		    const char *comm, const char *prefix);

#endif /* FT_REPORT_HEATMAP_H */
