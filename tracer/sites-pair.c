// SPDX-License-Identifier: GPL-2.0
/*
 * sites-pair.c - a version 2 side file's calls paired with the trace's sys_exit rows; see
 * sites-int.h. Tuned for: tens of thousands of calls against as many exits (every
 * process's, traced or not): one binary search per call in the exits sorted by (tid, ts).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "tracer/sites-int.h"
#include "tracer/syscalls.h"

/* Index of the first exit of v[0, nr) after (tid, ts) in (tid, ts) order. */
static size_t exit_after(const struct ftdb_sys_exit *v, size_t nr, int tid, uint64_t ts)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct sf_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int ft_sites_pair_exits(struct sitefile *f, sqlite3 *h, int64_t trace_id)
{
	struct ftdb_sys_exit *v;
	struct idmap next;	/* tid -> index of its call after the one being paired */
	size_t nr, i, r;

	if (!f->nr_calls)
		return 0;
	if (ftdb_sys_exits(h, trace_id, ft_syscall_lookup, &v, &nr))
		return -1;
	if (!nr)
		return fail("the side file's calls need the trace's syscall exit events (sites "
			     "channel), which it does not have");
	ft_idmap_init(&next);
	for (i = f->nr_calls; i-- > 0; ) {
		struct sf_call *c = &f->calls[i];
		uint32_t n = ft_idmap_get(&next, (uint32_t)c->tid);
		uint64_t bound = n == IDMAP_NONE ? UINT64_MAX : f->calls[n].entry;
		size_t e;

		ft_idmap_set(&next, (uint32_t)c->tid, (uint32_t)i);
		c->dropped = 1;
		for (e = exit_after(v, nr, c->tid, c->entry);
		     e < nr && v[e].tid == c->tid && v[e].ts < bound; e++) {
			if (strcmp(v[e].call, c->name))
				continue;
			c->ts = v[e].ts;
			c->result = v[e].ret;
			c->dropped = 0;
			break;
		}
	}
	ft_idmap_release(&next);
	free(v);
	for (i = r = 0; i < f->nr_recs; i++) {
		struct sf_rec *rc = &f->recs[i];

		if (rc->type == 'C' && f->calls[rc->call].dropped)
			continue;
		if (rc->type == 'C')
			rc->ts = f->calls[rc->call].ts;
		f->recs[r++] = *rc;
	}
	f->nr_recs = r;
	qsort(f->recs, f->nr_recs, sizeof(*f->recs), rec_cmp);
	return 0;
}
