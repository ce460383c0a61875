// SPDX-License-Identifier: GPL-2.0
/*
 * scale-pages.c - distinct pages a replay touches: the (process, page) pairs of the FAULT,
 * ZERO_WP and COW records of the newest trace of a database, in the processes replay
 * selects by default (the workload's). Built and run by bench/scale.sh, which divides
 * replay's peak RSS by it.
 *
 *	scale-pages DB		prints "distinct_pages=N touches=T"
 *
 * A process's pages are counted and forgotten at its exit (the first EXIT zap: proc ids
 * are never reused), so the set holds the pages of live processes only.
 */
#include <stdio.h>
#include <stdlib.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "replay/load.h"
#include "replay/pageset.h"

struct count {
	const struct rp_loaded *l;
	struct rp_pageset set;
	struct rp_page_val *out;	/* scratch of rp_pageset_take() */
	size_t cap;
	uint64_t distinct, touches;
};

static int on_event(const struct ftdb_event *ev, void *arg)
{
	struct count *c = arg;
	uint64_t key = rp_ps_key(ev->proc_id, ev->addr >> 12);

	if (ev->proc_id >= c->l->nr_procs || !c->l->procs[ev->proc_id].selected)
		return 0;
	switch (ev->kind) {
	case FTDB_EV_FAULT:
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		c->touches++;
		if (rp_pageset_slot(&c->set, key) < 0) {
			rp_pageset_add(&c->set, key, 1);
			c->distinct++;
		}
		break;
	case FTDB_EV_ZAP:
		if (ev->reason == FTDB_ZAP_EXIT)
			rp_pageset_take(&c->set, ev->proc_id, 0, RP_PS_ALL_PAGES, &c->out, &c->cap);
		break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct count c = { 0 };
	struct rp_filter sel;
	struct rp_loaded l;
	int64_t id;
	sqlite3 *db;

	if (argc != 2) {
		fprintf(stderr, "usage: scale-pages DB\n");
		return 2;
	}
	rp_filter_set(&sel, NULL, -1);
	if (ftdb_open(argv[1], FTDB_READONLY, &db) || ftdb_pick_trace(db, 0, &id) ||
	    rp_load(db, id, &sel, &l)) {
		error_print("scale-pages");
		return 1;
	}
	c.l = &l;
	if (ftdb_stream_foreach(db, id, on_event, &c)) {
		error_print("scale-pages");
		return 1;
	}
	printf("distinct_pages=%llu touches=%llu\n", (unsigned long long)c.distinct,
	       (unsigned long long)c.touches);
	rp_pageset_release(&c.set);
	free(c.out);
	rp_load_release(&l);
	ftdb_close(db);
	return 0;
}
