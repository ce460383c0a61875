// SPDX-License-Identifier: GPL-2.0
/* latency.c - recorded fault latency per mapped order; see latency.h. */
#include <stdint.h>
#include <stdlib.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/latency.h"
#include "replay/load.h"
#include "replay/measure.h"

/* Latencies of one (order, zero_page) group. */
struct group {
	uint64_t *v;		/* ns */
	size_t n, cap;
};

struct ctx {
	const struct rp_loaded *t;
	int64_t pid;
	struct group g[256][2];	/* [order][zero_page] */
};

static int add(const struct ftdb_event *ev, void *arg)
{
	struct ctx *c = arg;
	struct group *g;

	if (ev->kind != FTDB_EV_FAULT)
		return 0;
	if (c->pid >= 0 && (ev->proc_id >= c->t->nr_procs || !c->t->procs[ev->proc_id].present ||
			    c->t->procs[ev->proc_id].pid != c->pid))
		return 0;
	g = &c->g[ev->order][!!(ev->flags & FTDB_EVF_ZERO_PAGE)];
	XGROW(g->v, g->cap, g->n + 1);
	g->v[g->n++] = ev->aux;
	return 0;
}

int rp_latency_rows(sqlite3 *db, int64_t trace_id, int64_t pid, struct rp_latency_row **rows,
		    size_t *nr)
{
	struct ctx *c = xcalloc(1, sizeof(*c));
	struct rp_loaded t;
	size_t cap = 0;
	int order, z, ret = -1;

	*rows = NULL;
	*nr = 0;
	if (rp_load(db, trace_id, NULL, &t)) {
		free(c);
		return -1;
	}
	c->t = &t;
	c->pid = pid;
	if (ftdb_stream_foreach(db, trace_id, add, c))
		goto out;
	for (order = 0; order < 256; order++) {
		for (z = 0; z < 2; z++) {
			struct group *g = &c->g[order][z];
			struct rp_latency_row *r;

			if (!g->n)
				continue;
			rp_u64_sort(g->v, g->n);
			XGROW(*rows, cap, *nr + 1);
			r = &(*rows)[(*nr)++];
			r->order = (unsigned int)order;
			r->zero_page = z;
			r->faults = (int64_t)g->n;
			r->p50_ns = rp_latency_sat(rp_latency_rank(g->v, g->n, 50));
			r->p90_ns = rp_latency_sat(rp_latency_rank(g->v, g->n, 90));
			r->p99_ns = rp_latency_sat(rp_latency_rank(g->v, g->n, 99));
			r->max_ns = rp_latency_sat(g->v[g->n - 1]);
			r->mean_ns = rp_latency_sat(rp_latency_mean(g->v, g->n));
		}
	}
	ret = 0;
out:
	for (order = 0; order < 256; order++)
		for (z = 0; z < 2; z++)
			free(c->g[order][z].v);
	free(c);
	rp_load_release(&t);
	if (ret) {
		free(*rows);
		*rows = NULL;
		*nr = 0;
	}
	return ret;
}
