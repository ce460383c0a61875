// SPDX-License-Identifier: GPL-2.0
/*
 * latency-table.c - the RFC's latency table: every trace of a database measured
 * (measure.h) and pooled per condition; see latency-table.h.
 *
 * Tuned for: a database of one workload recorded once and guest-replayed under a handful
 * of policies and two conditions (bench/latency-table.sh): a dozen traces, a few hundred
 * thousand faults, 8 bytes kept per new-folio fault.
 */
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/latency-table.h"

/* The condition of (arch, policy, fragment, source), added at the end if new. */
static struct rp_lat_cond *cond_of(struct rp_lat_cond **conds, size_t *nr, size_t *cap,
				   const char *arch, const char *policy, const char *fragment,
				   const char *source, uint64_t page_size)
{
	struct rp_lat_cond *c;
	size_t i;

	for (i = 0; i < *nr; i++) {
		c = &(*conds)[i];
		if (!strcmp(c->arch, arch) && !strcmp(c->policy, policy) &&
		    !strcmp(c->fragment, fragment) && c->source == source)
			return c;
	}
	XGROW(*conds, *cap, *nr + 1);
	c = &(*conds)[(*nr)++];
	memset(c, 0, sizeof(*c));
	c->arch = xstrdup(arch);
	c->policy = xstrdup(policy);
	c->fragment = xstrdup(fragment);
	c->source = source;
	c->page_size = page_size;
	return c;
}

/* Move m's latencies and counts into c. */
static void pool(struct rp_lat_cond *c, const struct rp_measured *m)
{
	unsigned int k;

	for (k = 0; k < RP_MEASURE_ORDERS; k++) {
		const struct rp_latencies *l = &m->lat[k];
		struct rp_latencies *to = &c->lat[k];

		if (l->n) {
			XGROW(to->ns, to->cap, to->n + l->n);
			memcpy(to->ns + to->n, l->ns, l->n * sizeof(*l->ns));
			to->n += l->n;
		}
		c->fb_alloc_failed[k] += m->fb_alloc_failed[k];
		c->alloc_failed[k] += m->alloc_failed[k];
	}
	c->traces++;
}

struct table {
	sqlite3 *db;
	struct rp_lat_cond **conds;
	size_t *nr, cap;
	struct strbuf *notes;
};

/* One trace into its condition's row (or a note why it is left out). */
static int add_trace(const struct ftdb_trace_kind *k, void *arg)
{
	struct table *x = arg;
	int guest = k->replay_of != 0;
	struct rp_measured m;
	struct rp_lat_cond *c;

	if (!strcmp(k->clocksource, "jiffies") || !strcmp(k->clocksource, "refined-jiffies")) {
		strbuf_addf(x->notes, "trace %lld left out: recorded on the %s clocksource, "
			    "its latencies are ticks, not ns\n", (long long)k->trace_id,
			    k->clocksource);
		return 0;
	}
	if (guest && !k->has_replay_map) {
		strbuf_addf(x->notes, "trace %lld left out: a guest replay without replay_map "
			    "in trace_meta, its replayed processes are unknown\n",
			    (long long)k->trace_id);
		return 0;
	}
	if (guest ? rp_measure_db(x->db, k->replay_of, k->trace_id, NULL, &m)
		  : rp_measure_trace(x->db, k->trace_id, RP_MEASURE_WORKLOAD, &m))
		return fail("trace %lld", (long long)k->trace_id);
	c = cond_of(x->conds, x->nr, &x->cap, k->arch,
		    guest ? (*k->replay_policy ? k->replay_policy : "?") :
			    (*k->policy ? k->policy : "?"),
		    *k->fragment ? k->fragment : "none", guest ? "guest-replay" : "record",
		    k->page_size > 0 ? (uint64_t)k->page_size : 4096);
	pool(c, &m);
	rp_measured_release(&m);
	return 0;
}

int rp_latency_table(sqlite3 *db, struct rp_lat_cond **conds, size_t *nr,
		     struct strbuf *notes)
{
	struct table x = { .db = db, .conds = conds, .nr = nr, .notes = notes };
	size_t k;

	*conds = NULL;
	*nr = 0;
	if (ftdb_traces_each_kind(db, add_trace, &x)) {
		rp_latency_table_release(*conds, *nr);
		*conds = NULL;
		*nr = 0;
		return -1;
	}
	for (k = 0; k < *nr; k++) {
		unsigned int o;

		for (o = 0; o < RP_MEASURE_ORDERS; o++)
			rp_u64_sort((*conds)[k].lat[o].ns, (*conds)[k].lat[o].n);
	}
	return 0;
}

void rp_latency_table_release(struct rp_lat_cond *conds, size_t nr)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < nr; i++) {
		free(conds[i].arch);
		free(conds[i].policy);
		free(conds[i].fragment);
		for (k = 0; k < RP_MEASURE_ORDERS; k++)
			free(conds[i].lat[k].ns);
	}
	free(conds);
}
