// SPDX-License-Identifier: GPL-2.0
/*
 * sim-vs-real.c - the simulator against real guests: for each policy replayed in a guest
 * (`foliotrace guest replay`), the stored simulation of that policy against what the
 * guest's own trace measured (replay/measure.h), with the error in percent. See
 * sim-vs-real.h and docs/guest-replay.md.
 *
 * Only reads the database: the simulated runs are stored by `guest replay` (for the
 * selection it replayed) or `foliotrace replay` (for any other); when one is missing the
 * command says which `foliotrace replay` to run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sim-vs-real.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/filter.h"
#include "replay/measure.h"
#include "replay/policy.h"
#include "replay/runs.h"

/* ---- output ---- */

static void row(struct out_table *t, const char *policy, const char *metric, int have_sim,
		uint64_t sim, int have_real, uint64_t real, const char *kind)
{
	out_text(t, policy);
	out_text(t, metric);
	if (have_sim)
		out_int(t, (int64_t)sim);
	else
		out_null(t);
	if (have_real)
		out_int(t, (int64_t)real);
	else
		out_null(t);
	if (have_sim && have_real && sim)
		out_real(t, (double)llround(((double)real - (double)sim) * 1e5 / (double)sim) /
			    1e3);
	else if (have_sim && have_real && !real)
		out_real(t, 0);
	else
		out_null(t);
	out_text(t, kind);
}

/* The metrics a guest trace shows, in this order, then alloc_order_N and latencies. */
static const unsigned int guest_metrics[] = { RP_M_FAULTS, RP_M_PEAK_RSS, RP_M_ZEROED,
					      RP_M_ZERO_WP, RP_M_COW };

static void guest_rows(struct out_table *t, const char *policy, const struct rp_counters *s,
		       const struct rp_measured *r)
{
	char name[64];
	unsigned int k, m;

	for (k = 0; k < sizeof(guest_metrics) / sizeof(guest_metrics[0]); k++) {
		m = guest_metrics[k];
		row(t, policy, rp_metric_name(m), 1, s->v[m], 1, r->c.v[m], "guest");
	}
	/* the prediction exists only for runs replayed with a cost model (replay/cost.h) */
	row(t, policy, rp_metric_name(RP_M_FAULT_TIME), s->v[RP_M_FAULT_TIME] > 0,
	    s->v[RP_M_FAULT_TIME], 1, r->c.v[RP_M_FAULT_TIME], "guest");
	for (k = 1; k < FTDB_FB_NR; k++)
		row(t, policy, rp_metric_name(RP_M_FB_0 + k), 1, s->v[RP_M_FB_0 + k], 1,
		    r->c.v[RP_M_FB_0 + k], "guest");
	for (k = 0; k <= RP_PMD_ORDER; k++) {
		m = RP_M_ALLOC_0 + k;
		if (s->v[m] || r->c.v[m])
			row(t, policy, rp_metric_name(m), 1, s->v[m], 1, r->c.v[m], "guest");
	}
	for (k = 0; k < RP_MEASURE_ORDERS; k++) {
		const struct rp_latencies *l = &r->lat[k];

		if (!l->n)
			continue;
		snprintf(name, sizeof(name), "fault_latency_p50_ns_order_%u", k);
		row(t, policy, name, 0, 0, 1, rp_latency_rank(l->ns, l->n, 50), "guest");
		snprintf(name, sizeof(name), "fault_latency_p99_ns_order_%u", k);
		row(t, policy, name, 0, 0, 1, rp_latency_rank(l->ns, l->n, 99), "guest");
	}
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

int sim_vs_real(const char *dbpath, int64_t want_trace, const char *comm, int64_t pid,
		enum out_format format)
{
	static const char *const cols[] = { "policy", "metric", "sim", "real", "error_pct",
					    "kind" };
	struct rp_stored_run *runs = NULL, *sims = NULL;
	struct strbuf missing = STRBUF_INIT, names = STRBUF_INIT;
	size_t nr = 0, nr_sims = 0, i;
	struct rp_counters *sim = NULL;
	struct rp_filter sel;
	char filter[RP_FILTER_LEN];
	int64_t trace_id;
	struct out_table t;
	sqlite3 *db;
	int ret = -1, rc;

	if (ftdb_open(dbpath, FTDB_READONLY, &db))
		return -1;
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
	rp_filter_format(&sel, filter, sizeof(filter));

	/* a replay of more processes covers a narrower selection, not the reverse */
	sim = xcalloc(nr, sizeof(*sim));
	for (i = 0; i < nr; i++) {
		struct rp_filter f;

		if (rp_filter_parse(runs[i].filter, &f))
			goto out_db;
		if (!rp_filter_none(&f) && !rp_filter_equal(&f, &sel)) {
			warning("guest replay run %lld (%s) replayed only %s, not %s: left out",
				(long long)runs[i].run_id, runs[i].policy, runs[i].filter,
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

	out_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < nr; i++) {
		struct rp_measured real;

		if (!runs[i].guest_trace_id)
			continue;
		if (rp_measure_db(db, trace_id, runs[i].guest_trace_id, &sel, &real))
			goto out_table;
		guest_rows(&t, runs[i].policy, &sim[i], &real);
		rp_measured_release(&real);
	}

	/* simulation-only policies: their latest run with this selection, no real value */
	if (rp_runs_latest(db, trace_id, "sim", "none", &sel, NULL, &sims, &nr_sims))
		goto out_table;
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
		row(&t, sims[i].policy, "faults", 1, c->v[RP_M_FAULTS], 0, 0, "sim-only");
		row(&t, sims[i].policy, "peak_rss_bytes", 1, c->v[RP_M_PEAK_RSS], 0, 0,
		    "sim-only");
		row(&t, sims[i].policy, "zeroed_bytes", 1, c->v[RP_M_ZEROED], 0, 0, "sim-only");
	}

	if (format == OUT_TABLE)
		printf("trace %lld%s%s: simulation (frag none) against guest replays; error_pct = "
		       "(real - sim) / sim * 100; kind sim-only: the 6.1 guest knob cannot express "
		       "the policy\n\n", (long long)trace_id, filter[0] ? ", " : "", filter);
	out_print(&t, format, stdout);
	ret = 0;
out_table:
	out_release(&t);
out_db:
	free(sims);
	free(sim);
	free(runs);
	strbuf_release(&missing);
	strbuf_release(&names);
	ftdb_close(db);
	return ret;
}
