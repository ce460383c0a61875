// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - the database side of replay: load the trace's static tables (processes, VMAs,
 * buddyinfo), decode the event stream once through ftdb_stream_foreach(), hand it in
 * batches to one simulator per policy, store the results. See run.h.
 *
 * Tuned for: hundreds of millions of events. Events are batched (RUN_BATCH, about 200K in
 * L2) so each simulator runs over a cache-resident batch with its own page tables hot,
 * instead of all simulators thrashing each other's state event by event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/ftdb.h"
#include "db/runs.h"
#include "db/series.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/calibrate-host.h"
#include "replay/cost.h"
#include "replay/load.h"
#include "replay/pcp-follow.h"
#include "replay/policy.h"
#include "replay/run.h"
#include "replay/series.h"

#define RUN_BATCH 4096

struct pass {
	const struct rp_run_opts *opts;
	struct rp_sim *sim[RP_MAX_POLICIES];
	struct rp_oracle *orc[RP_MAX_POLICIES];
	struct rp_series *ser[RP_MAX_POLICIES];	/* each simulator's, stored with its run */
	uint64_t ns[RP_MAX_POLICIES];	/* time in each simulator */
	/*
	 * by proc_id: 1 if fed to the engines: selected, a shadow, or of the workload (a
	 * bystander: the selection's neighbours in the workload, which a guest replay of
	 * the workload replays under the policy beside it); NULL = all
	 */
	uint8_t *keep;
	uint8_t *counted;		/* by proc_id: 1 if selected; NULL = all (no shadow,
					 * no bystander) */
	/*
	 * the processes keep leaves out (the guest's own, outside the workload), followed
	 * as recorded for what they do to the per-cpu list the kept ones share (NULL: none
	 * left out)
	 */
	struct rp_pcp_follow *outside;
	uint32_t nr_procs;
	const struct rp_loaded *l;	/* the trace: its site slots and touch spans */
	const struct rp_trace *t;	/* as the simulators are given it, for opts->tap */
	uint32_t touch_cursor;		/* rp_touch_slot()'s */
	struct ftdb_event batch[RUN_BATCH];
	uint32_t slots[RUN_BATCH];	/* site slot of each batched event (with slots) */
	size_t n;
	uint64_t events;
	uint64_t seen;			/* events decoded, filtered ones included */
	uint64_t total;			/* events in the stream (progress) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int rp_policy_records_all(const char *recorded)
{
	return recorded && !strcmp(recorded, "order0");
}

/* The batch into simulator or oracle i: a feed run under the policy's guard. */
struct feed_call {
	struct pass *ps;
	unsigned int i;
};

static void feed_sim(void *arg)
{
	struct feed_call *fc = arg;
	struct pass *ps = fc->ps;

	rp_sim_feed_sites(ps->sim[fc->i], ps->batch, ps->l->nr_slots ? ps->slots : NULL, ps->n);
}

static void feed_oracle(void *arg)
{
	struct feed_call *fc = arg;
	struct pass *ps = fc->ps;

	rp_oracle_feed_sites(ps->orc[fc->i], ps->batch, ps->l->nr_slots ? ps->slots : NULL,
			     ps->n);
}

/* Return: 0, or -1 with fail() when a policy's guard ended its feed (a plugin's crash). */
static int flush(struct pass *ps)
{
	struct feed_call fc = { .ps = ps };
	unsigned int i;

	if (ps->opts->tap)
		ps->opts->tap(ps->t, ps->batch, ps->l->nr_slots ? ps->slots : NULL, ps->n,
			      ps->opts->tap_arg);
	for (i = 0; i < ps->opts->nr_pol; i++) {
		uint64_t t0 = now_ns();

		fc.i = i;
		if (rp_policy_guard(&ps->opts->pol[i], feed_sim, &fc))
			return -1;
		ps->ns[i] += now_ns() - t0;
		if (ps->orc[i] && rp_policy_guard(&ps->opts->pol[i], feed_oracle, &fc))
			return -1;
	}
	ps->n = 0;
	return 0;
}

/*
 * An event of a process outside the workload, which the selection leaves out: its
 * allocation and frees, as recorded (no policy decides the guest's own processes), on
 * every engine's per-cpu lists, after the selection's events before it. So a selection's
 * faults take back the pages the processes before it freed, as they did in the recording
 * (docs/cost-model.md, "Per-cpu list refills"). The workload's other processes are fed
 * to the engines instead, uncounted (keep).
 */
static int outside_event(struct pass *ps, const struct ftdb_event *ev)
{
	struct rp_pcp_ops ops;
	unsigned int i;

	rp_pcp_follow_event(ps->outside, ev, &ops);
	if (!rp_pcp_ops_any(&ops))
		return 0;
	if (ps->n && flush(ps))
		return -1;
	for (i = 0; i < ps->opts->nr_pol; i++) {
		(void)rp_pcp_apply(rp_sim_pcp(ps->sim[i]), &ops);
		if (ps->orc[i])
			(void)rp_pcp_apply(rp_oracle_pcp(ps->orc[i]), &ops);
	}
	return 0;
}

static int on_event(const struct ftdb_event *ev, void *arg)
{
	struct pass *ps = arg;

	if (!(++ps->seen % RP_PROGRESS_EVENTS) && ps->opts->progress)
		ps->opts->progress(ps->seen, ps->total, ps->opts->progress_arg);
	if (ev->kind == FTDB_EV_ALLOC)
		return 0;
	if (ps->keep && (ev->proc_id >= ps->nr_procs || !ps->keep[ev->proc_id]))
		return outside_event(ps, ev);
	if (ps->l->nr_slots)	/* the ordinal of ev is seen - 1, as ingest counted it */
		ps->slots[ps->n] = rp_touch_slot(ps->l, &ps->touch_cursor, ps->seen - 1);
	ps->batch[ps->n++] = *ev;
	ps->events++;
	if (ps->n == RUN_BATCH)
		return flush(ps);
	return 0;
}

/*
 * The compaction pool of the buddyinfo model: the LRU pages of vmstat.before (taken after
 * a --fragment guest's fragmenter, as buddyinfo.fragmented). A trace without it: 0, no
 * compaction, as before the model had it.
 */
static int load_movable(sqlite3 *db, int64_t trace_id, uint64_t mem_pages, uint64_t *pages)
{
	char *vmstat;
	int rc = 0;

	*pages = 0;
	if (ftdb_trace_meta(db, trace_id, "vmstat.before", &vmstat))
		return -1;
	if (vmstat)
		rc = rp_vmstat_movable(vmstat, mem_pages, pages);
	free(vmstat);
	return rc;
}

/* The selection (keep), buddyinfo; the rest comes from the trace loader. */
static int load_trace(sqlite3 *db, int64_t trace_id, const struct rp_run_opts *o,
		      const struct rp_loaded *l, struct rp_trace *t, struct pass *ps,
		      struct rp_trace_info *info)
{
	struct ftdb_trace tr;
	char *bi = NULL;
	uint32_t id;
	uint64_t uncounted = l->nr_shadow;	/* kept, not selected */
	int rc;

	rp_load_trace(l, t);
	info->procs = l->nr_rows;
	ps->nr_procs = t->nr_procs;
	if (o->comm || o->pid >= 0 || l->nr_selected < l->nr_rows) { /* or the workload */
		ps->keep = xcalloc(t->nr_procs, 1);
		for (id = 0; id < l->nr_procs; id++) {
			const struct rp_proc_info *p = &l->procs[id];

			ps->keep[id] = p->selected || p->shadow || p->workload;
			uncounted += !p->selected && !p->shadow && p->workload;
		}
		info->procs = l->nr_selected;
		if (!info->procs)
			return fail("no process matches %s", info->filter);
		ps->outside = xcalloc(1, sizeof(*ps->outside));
		rp_pcp_follow_init(ps->outside, RP_PAGE_SIZE);
	}
	if (uncounted) {	/* shadows and bystanders: fed, not counted */
		ps->counted = xcalloc(t->nr_procs, 1);
		for (id = 0; id < l->nr_procs; id++)
			ps->counted[id] = l->procs[id].selected;
		t->counted = ps->counted;
	}

	if (o->frag == RP_FRAG_BUDDYINFO) {
		uint64_t mem_pages = 0;	/* recorded memory bounds the seed; 0 unknown */

		/* a --fragment recording's buddyinfo.fragmented first (docs/guest.md) */
		if (ftdb_trace_get(db, trace_id, &tr))
			return -1;
		if (tr.mem_bytes > 0)
			mem_pages = (uint64_t)tr.mem_bytes / (tr.page_size ? (uint64_t)tr.page_size :
							       4096);
		ftdb_trace_release(&tr);
		if (ftdb_trace_meta(db, trace_id, "buddyinfo.fragmented", &bi) ||
		    (!bi && ftdb_trace_meta(db, trace_id, "buddyinfo.before", &bi)))
			return -1;
		if (!bi)
			return fail("frag model buddyinfo: trace %lld has no buddyinfo.before "
				    "in trace_meta", (long long)trace_id);
		rc = rp_buddyinfo_parse(bi, mem_pages, t->free_blocks);
		free(bi);
		if (rc)
			return fail("frag model buddyinfo: trace %lld", (long long)trace_id);
		if (load_movable(db, trace_id, mem_pages, &t->movable_pages))
			return fail("frag model buddyinfo: trace %lld", (long long)trace_id);
	}
	return 0;
}

/* The empty series of trace_id's event stream's span, copied per simulator. */
static int load_span(sqlite3 *db, int64_t trace_id, struct rp_series *s)
{
	uint64_t first, last;

	if (ftdb_stream_span(db, trace_id, &first, &last))
		return -1;
	rp_series_init(s, first, last);
	return 0;
}

/* Counters c of a run, with the fault time cm predicts (none without a model). */
static void with_time(const struct rp_counters *c, const struct rp_cost *cm,
		      struct rp_counters *out)
{
	*out = *c;
	out->v[RP_M_FAULT_TIME] = cm ? (uint64_t)rp_cost_predict(cm, c) : 0;
}

/*
 * The per-site counters of run i must sum to its totals (every fault, zeroed and bloated
 * byte and resident page at the peak has one slot): checked on every run with slots.
 */
static int sites_agree(struct pass *ps, unsigned int i)
{
	const struct rp_counters *tot = rp_sim_total(ps->sim[i]);
	const struct rp_site_counters *sc = rp_sim_sites(ps->sim[i], &(uint32_t){ 0 });
	uint64_t f = 0, z = 0, b = 0, r = 0;
	uint32_t k;

	for (k = 0; k < ps->l->nr_slots; k++) {
		f += sc[k].faults;
		z += sc[k].zeroed;
		b += sc[k].bloat;
		r += sc[k].at_peak;
	}
	if (f != tot->v[RP_M_FAULTS] || z != tot->v[RP_M_ZEROED] || b != tot->v[RP_M_BLOAT] ||
	    r != tot->v[RP_M_PEAK_RSS])
		return fail("per-site metrics do not sum to the totals (faults %llu/%llu, "
			     "zeroed %llu/%llu, bloat %llu/%llu, peak RSS %llu/%llu)",
			     (unsigned long long)f, (unsigned long long)tot->v[RP_M_FAULTS],
			     (unsigned long long)z, (unsigned long long)tot->v[RP_M_ZEROED],
			     (unsigned long long)b, (unsigned long long)tot->v[RP_M_BLOAT],
			     (unsigned long long)r, (unsigned long long)tot->v[RP_M_PEAK_RSS]);
	return 0;
}

/* replay_site rows of run_id: the slots of simulator i with anything to show. */
static int store_sites(struct ftdb_run_writer *w, const struct pass *ps, unsigned int i,
		       int64_t run_id)
{
	const struct rp_site_counters *sc;
	uint32_t k, n;

	sc = rp_sim_sites(ps->sim[i], &n);
	for (k = 0; k < n; k++) {
		if (!sc[k].faults && !sc[k].zeroed && !sc[k].bloat && !sc[k].at_peak)
			continue;
		if (ftdb_run_add_site(w, run_id, ps->l->slot_site[k], ps->l->slot_module[k],
				      (int64_t)sc[k].faults, (int64_t)sc[k].bloat,
				      (int64_t)sc[k].zeroed, (int64_t)sc[k].at_peak))
			return -1;
	}
	return 0;
}

static int store_runs(sqlite3 *db, int64_t trace_id, const struct rp_run_opts *o,
		      struct pass *ps, struct rp_run_result *res, const char *filter,
		      const struct rp_cost *cm)
{
	struct ftdb_run_writer w;
	unsigned int i, m;
	uint32_t pid;

	if (ftdb_run_writer_begin(db, &w))
		return -1;
	for (i = 0; i < o->nr_pol; i++) {
		struct ftdb_run r = {
			.trace_id = trace_id, .policy = res[i].pol.spec,
			.frag = rp_frag_name(o->frag), .kind = "sim", .filter = filter,
			.elapsed_ns = (int64_t)res[i].elapsed_ns,
		};

		if (ftdb_run_add(&w, &r, &res[i].run_id) ||
		    store_sites(&w, ps, i, res[i].run_id) ||
		    ftdb_run_add_series(&w, res[i].run_id, ps->ser[i]->pt, ps->ser[i]->n))
			goto fail;
		/* totals: every metric; per process: the non-zero ones (absent row = 0) */
		for (pid = 0; pid <= ps->nr_procs; pid++) {
			const struct rp_counters *sc = pid == ps->nr_procs ?
							       rp_sim_total(ps->sim[i]) :
							       rp_sim_proc(ps->sim[i], pid);
			struct rp_counters cc, *c = &cc;

			if (!sc)
				continue;
			with_time(sc, cm, &cc);
			for (m = 0; m < RP_NR_METRICS; m++) {
				if (!rp_metric_public(m) || (m == RP_M_FAULT_TIME && !cm))
					continue;
				if (pid != ps->nr_procs && !c->v[m])
					continue;
				if (ftdb_run_add_metric(&w, res[i].run_id,
							pid == ps->nr_procs ? -1 : (int64_t)pid,
							rp_metric_name(m), (int64_t)c->v[m]))
					goto fail;
			}
		}
	}
	return ftdb_run_writer_commit(&w);
fail:
	ftdb_run_writer_abort(&w);
	return -1;
}

void rp_run_result_release(struct rp_run_result *r)
{
	uint32_t k;

	for (k = 0; k < r->nr_sites; k++) {
		free(r->sites[k].site);
		free(r->sites[k].module);
	}
	free(r->sites);
	r->sites = NULL;
	r->nr_sites = 0;
}

/* res->sites: the slots of simulator i, named as replay_site names them. */
static void copy_sites(const struct pass *ps, unsigned int i, struct rp_run_result *res)
{
	const struct rp_site_counters *sc;
	uint32_t k, n;

	sc = rp_sim_sites(ps->sim[i], &n);
	if (!n)
		return;
	res->sites = xcalloc(n, sizeof(*res->sites));
	res->nr_sites = n;
	for (k = 0; k < n; k++) {
		res->sites[k].site = xstrdup(ps->l->slot_site[k]);
		res->sites[k].module = ps->l->slot_module[k] ? xstrdup(ps->l->slot_module[k]) :
							       NULL;
		res->sites[k].c = sc[k];
	}
}

static int oracle_agrees(struct pass *ps, unsigned int i)
{
	const struct rp_site_counters *sa, *sb;
	uint32_t pid, na, nb, k;
	unsigned int m;

	for (pid = 0; pid <= ps->nr_procs; pid++) {
		const struct rp_counters *a, *b;

		a = pid == ps->nr_procs ? rp_sim_total(ps->sim[i]) : rp_sim_proc(ps->sim[i], pid);
		b = pid == ps->nr_procs ? rp_oracle_total(ps->orc[i]) :
					  rp_oracle_proc(ps->orc[i], pid);
		if (!a != !b)
			return fail("oracle disagrees: process %u seen by one engine only", pid);
		if (!a)
			continue;
		for (m = 0; m < RP_NR_METRICS; m++)
			if (a->v[m] != b->v[m])
				return fail("oracle disagrees on %s for %s: engine %llu, oracle "
					     "%llu", rp_metric_name(m),
					     pid == ps->nr_procs ? "the total" : "a process",
					     (unsigned long long)a->v[m],
					     (unsigned long long)b->v[m]);
	}
	sa = rp_sim_sites(ps->sim[i], &na);
	sb = rp_oracle_sites(ps->orc[i], &nb);
	for (k = 0; na == nb && k < na; k++)
		if (memcmp(&sa[k], &sb[k], sizeof(sa[k])))
			return fail("oracle disagrees on site %s (faults %llu/%llu, bloat "
				     "%llu/%llu, zeroed %llu/%llu, rss at the peak %llu/%llu, "
				     "pages at the end %llu/%llu)",
				     ps->l->slot_site[k], (unsigned long long)sa[k].faults,
				     (unsigned long long)sb[k].faults,
				     (unsigned long long)sa[k].bloat,
				     (unsigned long long)sb[k].bloat,
				     (unsigned long long)sa[k].zeroed,
				     (unsigned long long)sb[k].zeroed,
				     (unsigned long long)sa[k].at_peak,
				     (unsigned long long)sb[k].at_peak,
				     (unsigned long long)sa[k].rss,
				     (unsigned long long)sb[k].rss);
	if (na != nb)
		return fail("oracle disagrees on the number of site slots");
	return 0;
}

int rp_replay_db(sqlite3 *db, int64_t trace_id, const struct rp_run_opts *o,
		 struct rp_run_result *res, struct rp_trace_info *info)
{
	struct pass *ps;
	struct rp_trace t;
	struct rp_loaded l;
	struct rp_filter sel;
	struct rp_cost cost;
	struct rp_series span;
	unsigned int i;
	uint64_t t0;
	int ret = -1, has_cost;

	if (!o->nr_pol || o->nr_pol > RP_MAX_POLICIES)
		return fail("between 1 and %d policies per run", RP_MAX_POLICIES);
	memset(info, 0, sizeof(*info));
	info->trace_id = trace_id;
	rp_filter_set(&sel, o->comm, o->pid);
	rp_filter_format(&sel, info->filter, sizeof(info->filter));
	t0 = now_ns();
	if (rp_load(db, trace_id, &sel, &l))
		return -1;
	snprintf(info->policy, sizeof(info->policy), "%s", l.head.policy);
	snprintf(info->arch, sizeof(info->arch), "%s", l.head.arch);
	ps = xcalloc(1, sizeof(*ps));
	ps->opts = o;
	ps->l = &l;
	has_cost = o->cost_native ? rp_cost_lookup_native(o->cost_db ? o->cost_db : db, db,
							   trace_id, &cost) :
				    rp_cost_lookup(db, trace_id, &cost);
	if (has_cost < 0)
		goto out;
	if (load_trace(db, trace_id, o, &l, &t, ps, info) || load_span(db, trace_id, &span))
		goto out;
	ps->t = &t;
	for (i = 0; i < o->nr_pol; i++) {
		/* a policy deciding by site needs the touches' sites, not only the calls */
		if ((o->pol[i].ops->flags & RP_POL_SITES) && l.sites_without_touch) {
			fail("policy %s: trace %lld's call sites were stored before per-site "
			      "attribution (schema 5): ingest its run directory again",
			      o->pol[i].spec, (long long)trace_id);
			goto out;
		}
		if (rp_policy_guard(&o->pol[i], NULL, NULL))	/* can it be replayed? */
			goto out;
		ps->sim[i] = rp_sim_new(&o->pol[i], o->frag, &t);
		if (!ps->sim[i])
			goto out;
		ps->ser[i] = xmalloc(sizeof(*ps->ser[i]));
		*ps->ser[i] = span;
		rp_sim_series(ps->sim[i], ps->ser[i]);
		if (o->check_oracle)
			ps->orc[i] = rp_oracle_new(&o->pol[i], o->frag, &t);
	}
	if (o->progress && ftdb_stream_events(db, trace_id, &ps->total))
		goto out;
	if (ftdb_stream_foreach(db, trace_id, on_event, ps))
		goto out;
	if (ps->n && flush(ps))
		goto out;
	if (o->progress)
		o->progress(ps->seen, ps->total, o->progress_arg);
	for (i = 0; i < o->nr_pol; i++) {
		rp_sim_finish(ps->sim[i]);
		res[i].pol = o->pol[i];
		with_time(rp_sim_total(ps->sim[i]), has_cost ? &cost : NULL, &res[i].total);
		res[i].elapsed_ns = ps->ns[i];
		res[i].run_id = 0;
		res[i].sites = NULL;
		res[i].nr_sites = 0;
		if (l.nr_slots && sites_agree(ps, i)) {
			fail("policy %s", o->pol[i].spec);
			goto out;
		}
		if (ps->orc[i]) {
			rp_oracle_finish(ps->orc[i]);
			if (oracle_agrees(ps, i)) {
				fail("policy %s", o->pol[i].spec);
				goto out;
			}
		}
	}
	info->events = ps->events;
	info->wall_ns = now_ns() - t0;
	if (o->store && store_runs(db, trace_id, o, ps, res, info->filter,
					 has_cost ? &cost : NULL))
		goto out;
	for (i = 0; o->sites && i < o->nr_pol; i++)
		copy_sites(ps, i, &res[i]);
	ret = 0;
out:
	for (i = 0; i < o->nr_pol; i++) {
		rp_sim_free(ps->sim[i]);
		rp_oracle_free(ps->orc[i]);
		free(ps->ser[i]);
	}
	free(ps->keep);
	free(ps->counted);
	if (ps->outside)
		rp_pcp_follow_release(ps->outside);
	free(ps->outside);
	free(ps);
	rp_load_release(&l);
	return ret;
}
