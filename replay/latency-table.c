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
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/latency-table.h"

static const char *col(sqlite3_stmt *st, int i, const char *dflt)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s && *s ? s : dflt;
}

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

/*
 * Every trace with what it is: a guest replay has a replay_run of kind guest naming it
 * (the original trace and the replayed policy), a recording has none.
 */
static const char sql_traces[] =
	"SELECT t.trace_id, coalesce(t.arch, '?'), t.page_size, t.policy, t.clocksource, "
	"f.value, r.trace_id, r.policy, EXISTS (SELECT 1 FROM trace_meta m WHERE m.trace_id = "
	"t.trace_id AND m.key = 'replay_map') FROM trace t "
	"LEFT JOIN trace_meta f ON f.trace_id = t.trace_id AND f.key = 'fragment' "
	"LEFT JOIN replay_run r ON r.run_id = (SELECT max(run_id) FROM replay_run "
	"WHERE kind = 'guest' AND guest_trace_id = t.trace_id) ORDER BY t.trace_id";

int rp_latency_table(sqlite3 *db, struct rp_lat_cond **conds, size_t *nr,
		     struct strbuf *notes)
{
	sqlite3_stmt *st;
	size_t cap = 0, k;
	int rc, ret = -1;

	*conds = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(db, sql_traces, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read traces: %s", sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), ps = sqlite3_column_int64(st, 2);
		const char *cs = col(st, 4, ""), *policy;
		int guest = sqlite3_column_type(st, 6) != SQLITE_NULL;
		struct rp_measured m;
		struct rp_lat_cond *c;

		if (!strcmp(cs, "jiffies") || !strcmp(cs, "refined-jiffies")) {
			strbuf_addf(notes, "trace %lld left out: recorded on the %s clocksource, "
				    "its latencies are ticks, not ns\n", (long long)id, cs);
			continue;
		}
		if (guest && !sqlite3_column_int(st, 8)) {
			strbuf_addf(notes, "trace %lld left out: a guest replay without replay_map "
				    "in trace_meta, its replayed processes are unknown\n",
				    (long long)id);
			continue;
		}
		policy = guest ? col(st, 7, "?") : col(st, 3, "?");
		if (guest ? rp_measure_db(db, sqlite3_column_int64(st, 6), id, NULL, &m)
			  : rp_measure_trace(db, id, &m)) {
			fail("trace %lld", (long long)id);
			goto out;
		}
		c = cond_of(conds, nr, &cap, col(st, 1, "?"), policy, col(st, 5, "none"),
			    guest ? "guest-replay" : "record", ps > 0 ? (uint64_t)ps : 4096);
		pool(c, &m);
		rp_measured_release(&m);
	}
	if (rc != SQLITE_DONE) {
		fail("cannot read traces: %s", sqlite3_errmsg(db));
		goto out;
	}
	for (k = 0; k < *nr; k++) {
		unsigned int o;

		for (o = 0; o < RP_MEASURE_ORDERS; o++)
			rp_u64_sort((*conds)[k].lat[o].ns, (*conds)[k].lat[o].n);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	if (ret) {
		rp_latency_table_release(*conds, *nr);
		*conds = NULL;
		*nr = 0;
	}
	return ret;
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
