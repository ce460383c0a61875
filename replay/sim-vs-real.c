// SPDX-License-Identifier: GPL-2.0
/* sim-vs-real.c - the simulator against real guests; see sim-vs-real.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/load.h"
#include "replay/measure.h"
#include "replay/mthp-stats.h"
#include "replay/policy.h"
#include "replay/runs.h"
#include "replay/sim-vs-real.h"

static void row(struct rp_svr *o, const char *policy, const char *metric, int has_sim,
		uint64_t sim, int has_real, uint64_t real, const char *kind)
{
	struct rp_svr_row *r;

	XGROW(o->rows, o->cap, o->n + 1);
	r = &o->rows[o->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->policy, sizeof(r->policy), "%s", policy);
	snprintf(r->metric, sizeof(r->metric), "%s", metric);
	r->has_sim = has_sim;
	r->sim = sim;
	r->has_real = has_real;
	r->real = real;
	r->kind = kind;
	if (has_sim && has_real && sim) {
		r->has_error = 1;
		r->error_pct = (double)llround(((double)real - (double)sim) * 1e5 /
					       (double)sim) / 1e3;
	} else if (has_sim && has_real && !real) {
		r->has_error = 1;
	}
}

/* The metrics the table marks as measured in a guest trace, then latencies per order. */
static void guest_rows(struct rp_svr *o, const char *policy, const struct rp_counters *s,
		       const struct rp_measured *r)
{
	const struct rp_metric_info *t;
	char name[64];
	size_t nr, i;
	unsigned int k, m;

	t = rp_metric_table(&nr);
	for (i = 0; i < nr; i++) {
		m = t[i].id;
		if (!(t[i].show & RP_SHOW_REAL))
			continue;
		if ((t[i].show & RP_SHOW_REAL_NONZERO) && !s->v[m] && !r->c.v[m])
			continue;
		/* a prediction (fault_time_ns) exists only for runs replayed with a cost model */
		row(o, policy, t[i].name, !(t[i].show & RP_SHOW_ZERO_UNKNOWN) || s->v[m] > 0,
		    s->v[m], 1, r->c.v[m], "guest");
	}
	for (k = 0; k < RP_MEASURE_ORDERS; k++) {
		const struct rp_latencies *l = &r->lat[k];

		if (!l->n)
			continue;
		snprintf(name, sizeof(name), "fault_latency_p50_ns_order_%u", k);
		row(o, policy, name, 0, 0, 1, rp_latency_rank(l->ns, l->n, 50), "guest");
		snprintf(name, sizeof(name), "fault_latency_p99_ns_order_%u", k);
		row(o, policy, name, 0, 0, 1, rp_latency_rank(l->ns, l->n, 99), "guest");
	}
}

/*
 * The kernel's own per-size counters of a 6.12 guest replay (kind "kernel"), against the
 * simulator's. The counters are the whole guest's, read by init just inside the trace
 * around the replayer: what our trace gives to the guest's processes (every address)
 * beyond what is measured (other processes of the replay than the selection's, the
 * replayer's own start-up and buffers outside the replayed ranges, ft-launch and its
 * child before the exec) is taken off them, so that they count what the simulation
 * counts; the rest of each figure is the kernel's alone. LTTng's and init's own faults fall outside
 * the reads (tests/guest/anon-touch-612.sh measured the kernel's count equal to the
 * trace's without them), so they are not taken off. Per size:
 * anon_fault_alloc against the simulated allocations of that order. In total:
 * anon_fault_fallback against the simulated refusals of a large order (alloc_fails less
 * the order-0 ones, oom); the simulator does not keep refusals per order. And
 * anon_fault_fallback_charge, which the simulator cannot produce (no memory cgroup).
 */
_Static_assert(RP_PMD_ORDER < RP_MEASURE_ORDERS, "a measurement keeps every mTHP order");

static int kernel_rows(struct rp_svr *o, sqlite3 *db, const char *policy,
		       const struct rp_counters *s, const struct rp_measured *r,
		       int64_t guest_id)
{
	struct rp_mthp_stats k;
	struct rp_trace_head h;
	struct rp_measured all;
	uint64_t fb = 0, fb_other = 0, charge = 0;
	char name[64];
	unsigned int ord;

	if (rp_load_head(db, guest_id, &h) || rp_mthp_stats_load(db, guest_id, h.page_size, &k))
		return -1;
	if (!k.present)
		return 0;
	if (rp_measure_trace(db, guest_id, RP_MEASURE_UNTRACING, &all))
		return -1;
	for (ord = 1; ord <= RP_PMD_ORDER; ord++) {
		uint64_t ka, other;

		if (!k.has[ord])
			continue;
		ka = k.delta[ord][RP_MTHP_ANON_FAULT_ALLOC];
		other = all.c.v[RP_M_ALLOC_0 + ord] - r->c.v[RP_M_ALLOC_0 + ord];
		fb += k.delta[ord][RP_MTHP_ANON_FAULT_FALLBACK];
		charge += k.delta[ord][RP_MTHP_ANON_FAULT_FALLBACK_CHARGE];
		fb_other += all.alloc_failed[ord] - r->alloc_failed[ord];
		if (!ka && !s->v[RP_M_ALLOC_0 + ord])
			continue;
		snprintf(name, sizeof(name), "kernel_anon_fault_alloc_%llukB",
			 (unsigned long long)(h.page_size << ord) / 1024);
		row(o, policy, name, 1, s->v[RP_M_ALLOC_0 + ord], 1, ka > other ? ka - other : 0,
		    "kernel");
	}
	row(o, policy, "kernel_anon_fault_fallback", 1,
	    s->v[RP_M_ALLOC_FAILS] - s->v[RP_M_OOM], 1, fb > fb_other ? fb - fb_other : 0,
	    "kernel");
	row(o, policy, "kernel_anon_fault_fallback_charge", 0, 0, 1, charge, "kernel");
	rp_measured_release(&all);
	return 0;
}

/* A simulation-only policy's rows: the metrics the table marks RP_SHOW_SIM_ONLY. */
static void sim_only_rows(struct rp_svr *o, const char *policy, const struct rp_counters *c)
{
	const struct rp_metric_info *t;
	size_t nr, i;

	t = rp_metric_table(&nr);
	for (i = 0; i < nr; i++)
		if (t[i].show & RP_SHOW_SIM_ONLY)
			row(o, policy, t[i].name, 1, c->v[t[i].id], 0, 0, "sim-only");
}

/* s as one shell word. */
static void shell_word(struct strbuf *sb, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		     "_-.,:/=+@%") == strlen(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/*
 * The simulations missing (names: "p1, p2", flags: " --policy p1 --policy p2"): fail()
 * naming the one command that stores them.
 */
static int missing_sims(const char *dbpath, int64_t trace_id, const struct rp_filter *sel,
			const char *what, const char *names, const char *flags)
{
	struct strbuf cmd = STRBUF_INIT;
	char pid[32];

	strbuf_addstr(&cmd, "foliotrace replay ");
	shell_word(&cmd, dbpath);
	strbuf_addf(&cmd, " --trace %lld%s", (long long)trace_id, flags);
	if (sel->has_comm) {
		strbuf_addstr(&cmd, " --comm ");
		shell_word(&cmd, sel->comm);
	}
	if (sel->pid >= 0) {
		snprintf(pid, sizeof(pid), " --pid %lld", (long long)sel->pid);
		strbuf_addstr(&cmd, pid);
	}
	fail("no stored simulation of %s (frag none%s%s) to set against the guest replay: run "
	      "%s", names, *what ? ", " : "", what, cmd.buf);
	strbuf_release(&cmd);
	return -1;
}

static int by_policy(const void *a, const void *b)
{
	return strcmp(((const struct rp_stored_run *)a)->policy,
		      ((const struct rp_stored_run *)b)->policy);
}

/* Latest sim run of policy with frag none and selection sel; 1 if there is none. */
static int load_sim(sqlite3 *db, int64_t trace_id, const char *policy,
		    const struct rp_filter *sel, struct rp_counters *c)
{
	struct rp_stored_run *r;
	size_t n;

	if (rp_runs_latest(db, trace_id, "sim", "none", sel, policy, &r, &n))
		return -1;
	if (n)
		*c = r[0].c;
	free(r);
	return n ? 0 : 1;
}

int rp_sim_vs_real(sqlite3 *db, const char *dbpath, int64_t want_trace, const char *comm,
		   int64_t pid, struct rp_svr *out)
{
	struct rp_stored_run *runs = NULL, *sims = NULL;
	struct strbuf missing = STRBUF_INIT, names = STRBUF_INIT;
	size_t nr = 0, nr_sims = 0, i;
	struct rp_counters *sim = NULL;
	struct rp_filter sel;
	char *filter = out->filter;
	int64_t trace_id;
	int ret = -1, rc;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->left_out);
	if (ftdb_pick_trace(db, want_trace, &trace_id) ||
	    rp_runs_latest(db, trace_id, "guest", NULL, NULL, NULL, &runs, &nr))
		goto out_db;
	/* a guest run without its trace (none is stored so) cannot be measured */
	for (i = 0, rc = 0; i < nr; i++)
		if (runs[i].guest_trace_id)
			runs[rc++] = runs[i];
	nr = (size_t)rc;
	if (!nr) {
		fail("no guest replay of trace %lld: run foliotrace guest replay DB --policy P "
		      "first", (long long)trace_id);
		goto out_db;
	}
	/* the selection compared: the one asked for, else that of the newest guest replay */
	if (comm || pid >= 0)
		rp_filter_set(&sel, comm, pid);
	else if (rp_filter_parse(runs[nr - 1].filter, &sel))
		goto out_db;
	out->trace_id = trace_id;
	rp_filter_format(&sel, filter, sizeof(out->filter));

	/* a replay of more processes covers a narrower selection, not the reverse */
	sim = xcalloc(nr, sizeof(*sim));
	for (i = 0; i < nr; i++) {
		struct rp_filter f;

		if (rp_filter_parse(runs[i].filter, &f))
			goto out_db;
		if (!rp_filter_none(&f) && !rp_filter_equal(&f, &sel)) {
			strbuf_addf(&out->left_out, "guest replay run %lld (%s) replayed only "
				    "%s, not %s: left out\n", (long long)runs[i].run_id,
				    runs[i].policy, runs[i].filter,
				    filter[0] ? filter : "every process");
			runs[i].guest_trace_id = 0;
			continue;
		}
		rc = load_sim(db, trace_id, runs[i].policy, &sel, &sim[i]);
		if (rc < 0)
			goto out_db;
		if (rc > 0) {
			strbuf_addf(&missing, " --policy %s", runs[i].policy);
			strbuf_addf(&names, "%s%s", names.len ? ", " : "", runs[i].policy);
		}
	}
	if (missing.len) {
		missing_sims(dbpath, trace_id, &sel, filter, names.buf, missing.buf);
		goto out_db;
	}

	for (i = 0; i < nr; i++) {
		struct rp_measured real;

		if (!runs[i].guest_trace_id)
			continue;
		if (rp_measure_db(db, trace_id, runs[i].guest_trace_id, &sel, &real))
			goto out_db;
		guest_rows(out, runs[i].policy, &sim[i], &real);
		rc = kernel_rows(out, db, runs[i].policy, &sim[i], &real, runs[i].guest_trace_id);
		rp_measured_release(&real);
		if (rc)
			goto out_db;
	}

	/* simulation-only policies: their latest run with this selection, no real value */
	if (rp_runs_latest(db, trace_id, "sim", "none", &sel, NULL, &sims, &nr_sims))
		goto out_db;
	qsort(sims, nr_sims, sizeof(*sims), by_policy);
	for (i = 0; i < nr_sims; i++) {
		const struct rp_counters *c = &sims[i].c;
		struct rp_policy p;

		if (rp_policy_parse(sims[i].policy, &p)) {
			error_clear();
			continue;
		}
		if (rp_policy_in_guest(&p))
			continue;
		sim_only_rows(out, sims[i].policy, c);
	}
	ret = 0;
out_db:
	free(sims);
	free(sim);
	free(runs);
	strbuf_release(&missing);
	strbuf_release(&names);
	if (ret)
		rp_svr_release(out);
	return ret;
}

void rp_svr_release(struct rp_svr *s)
{
	free(s->rows);
	strbuf_release(&s->left_out);
	s->rows = NULL;
	s->n = s->cap = 0;
}
