// SPDX-License-Identifier: GPL-2.0
/*
 * compare-real.c - foliotrace compare DB --sim-vs-real printed: the rows of
 * replay/sim-vs-real.h as a table, CSV or JSON (docs/cli-json.md).
 */
#include <stdio.h>

#include "cli/compare-real.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/sim-vs-real.h"

int sim_vs_real(const char *dbpath, int64_t want_trace, const char *comm, int64_t pid,
		enum out_format format)
{
	static const char *const cols[] = { "policy", "metric", "sim", "real", "error_pct",
					    "kind" };
	struct out_table t;
	struct rp_svr s;
	sqlite3 *db;
	size_t i;
	int ret;

	if (ftdb_open(dbpath, FTDB_READONLY, &db))
		return -1;
	ret = rp_sim_vs_real(db, dbpath, want_trace, comm, pid, &s);
	ftdb_close(db);
	if (ret)
		return -1;
	cli_warn_lines(s.left_out.buf);
	out_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < s.n; i++) {
		const struct rp_svr_row *r = &s.rows[i];

		out_text(&t, r->policy);
		out_text(&t, r->metric);
		if (r->has_sim)
			out_int(&t, (int64_t)r->sim);
		else
			out_null(&t);
		if (r->has_real)
			out_int(&t, (int64_t)r->real);
		else
			out_null(&t);
		if (r->has_error)
			out_real(&t, r->error_pct);
		else
			out_null(&t);
		out_text(&t, r->kind);
	}
	if (format == OUT_TABLE)
		printf("trace %lld%s%s: simulation (frag none) against guest replays; error_pct = "
		       "(real - sim) / sim * 100; kind kernel: the 6.12 guest's own per-size "
		       "counters; kind sim-only: the guest knob cannot express the policy\n\n", (long long)s.trace_id, s.filter[0] ? ", " : "", s.filter);
	out_print(&t, format, stdout);
	out_release(&t);
	rp_svr_release(&s);
	return 0;
}
