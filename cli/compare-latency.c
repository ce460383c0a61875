// SPDX-License-Identifier: GPL-2.0
/*
 * compare-latency.c - `foliotrace compare DB --latency`: one row per condition (arch,
 * policy, fragment, source) and mapped order, in the order of the conditions' first traces
 * then by order: new-folio faults, their latency percentiles (nearest rank, as `query
 * latency`), max and mean, and the allocation failures of that order. See
 * replay/latency-table.h; columns in docs/cli-json.md.
 */
#include <stdio.h>

#include "cli/compare-latency.h"
#include "cli/run-args.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/latency.h"
#include "replay/latency-table.h"

static const char *const cols[] = {
	"arch", "policy", "fragment", "source", "traces", "order", "folio_bytes", "faults",
	"p50_ns", "p90_ns", "p95_ns", "p99_ns", "max_ns", "mean_ns", "fallback_alloc_failed",
	"alloc_failed"
};

static void latency_cells(struct out_table *t, const struct rp_latencies *l)
{
	static const double pct[] = { 50, 90, 95, 99 };
	unsigned int i;

	if (!l->n) {
		for (i = 0; i < 6; i++)
			out_null(t);
		return;
	}
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		out_int(t, rp_latency_sat(rp_latency_rank(l->ns, l->n, pct[i])));
	out_int(t, rp_latency_sat(l->ns[l->n - 1]));
	out_int(t, rp_latency_sat(rp_latency_mean(l->ns, l->n)));
}

static void cond_rows(struct out_table *t, enum out_format f, const struct rp_lat_cond *c)
{
	unsigned int k;
	char buf[32];

	for (k = 0; k < RP_MEASURE_ORDERS; k++) {
		if (!c->lat[k].n && !c->fb_alloc_failed[k] && !c->alloc_failed[k])
			continue;
		out_text(t, c->arch);
		out_text(t, c->policy);
		out_text(t, c->fragment);
		out_text(t, c->source);
		out_int(t, c->traces);
		out_int(t, k);
		if (f == OUT_TABLE) {
			fmt_bytes(buf, sizeof(buf), c->page_size << k);
			out_text(t, buf);
		} else {
			out_int(t, (int64_t)(c->page_size << k));
		}
		out_int(t, (int64_t)c->lat[k].n);
		latency_cells(t, &c->lat[k]);
		out_int(t, (int64_t)c->fb_alloc_failed[k]);
		out_int(t, (int64_t)c->alloc_failed[k]);
	}
}

int latency_table(const char *dbpath, enum out_format format)
{
	struct strbuf notes = STRBUF_INIT;
	struct rp_lat_cond *conds;
	struct out_table t;
	size_t nr, i;
	sqlite3 *db;
	int ret;

	if (ftdb_open(dbpath, FTDB_READONLY, &db))
		return -1;
	ret = rp_latency_table(db, &conds, &nr, &notes);
	ftdb_close(db);
	cli_warn_lines(notes.buf);
	strbuf_release(&notes);
	if (ret)
		return -1;
	if (!nr)
		return fail("no trace with fault latencies in %s: record or guest-replay a "
			     "workload first", dbpath);
	if (format == OUT_TABLE)
		printf("new-folio fault latency (latency_ns) per condition and mapped order; "
		       "fallback_alloc_failed: faults mapped at this order because a larger "
		       "allocation failed; alloc_failed: allocations of this order that failed\n\n");
	out_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < nr; i++)
		cond_rows(&t, format, &conds[i]);
	out_print(&t, format, stdout);
	out_release(&t);
	rp_latency_table_release(conds, nr);
	return 0;
}
