// SPDX-License-Identifier: GPL-2.0
/*
 * replay-plugin.c - policies loaded from shared objects (plugin:PATH.so[:ARGS],
 * replay/policy-plugin.c): contrib/policies/dense-first.so on hand-computed streams through
 * both engines, mthp-like.so against the built-in mthp, and the guard: a plugin's crash or
 * bad answer ends the feed with one error, and leaves the process able to go on.
 * The plugins are those of the build under test ($FT_BUILD, default build).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "replay/policy.h"
#include "replay/replay.h"
#include "tests/unit/steps.h"
#include "tests/unit/tap.h"

#define K 1024ULL
#define B 0x10000000ULL		/* 2M-aligned base of the first VMA */
#define B2 (B + 0x200000ULL)	/* of the second */

static char spec_buf[512];

/* "plugin:$FT_BUILD/DIR/NAME.so[:ARGS]" */
static const char *plugin(const char *dir, const char *name, const char *args)
{
	const char *b = getenv("FT_BUILD");

	snprintf(spec_buf, sizeof(spec_buf), "plugin:%s/%s/%s.so%s%s", b && *b ? b : "build",
		 dir, name, args ? ":" : "", args ? args : "");
	return spec_buf;
}

/*
 * VMA 1, 256K at B: pages 0..63 written in order (dense). VMA 2, 1M at B2: pages 0, 2, ..,
 * 46 written (sparse: never the page after the last block).
 */
static void stream(struct rp_stream *s)
{
	uint64_t pg;

	memset(s, 0, sizeof(*s));
	rp_stream_add_vma(s, B, B + 256 * K, 3);
	rp_stream_add_vma(s, B2, B2 + 1024 * K, 3);
	for (pg = 0; pg < 64; pg++) {
		struct step st = { 'W', 1, B + pg * 4 * K, 0, 0, 1 };
		struct ftdb_event e = step_event(&st);

		rp_stream_add(s, &e);
	}
	for (pg = 0; pg < 48; pg += 2) {
		struct step st = { 'W', 1, B2 + pg * 4 * K, 0, 0, 2 };
		struct ftdb_event e = step_event(&st);

		rp_stream_add(s, &e);
	}
}

struct feed {
	void *engine;
	const struct rp_stream *s;
};

static void feed_sim(void *arg)
{
	struct feed *f = arg;

	rp_sim_feed(f->engine, f->s->ev, f->s->nr);
}

static void feed_oracle(void *arg)
{
	struct feed *f = arg;

	rp_oracle_feed(f->engine, f->s->ev, f->s->nr);
}

/* Both engines' totals for spec over s, fed through the guard. Return: 0, or -1. */
static int run(const char *spec, const struct rp_stream *s, struct rp_counters *sim,
	       struct rp_counters *orc)
{
	struct rp_policy p;
	struct rp_trace t;
	struct rp_sim *e;
	struct rp_oracle *o;
	struct feed f = { .s = s };
	int rc;

	rp_stream_trace(s, &t);
	if (rp_policy_parse(spec, &p))
		return -1;
	e = rp_sim_new(&p, RP_FRAG_NONE, &t);
	o = rp_oracle_new(&p, RP_FRAG_NONE, &t);
	f.engine = e;
	rc = rp_policy_guard(&p, feed_sim, &f);
	f.engine = o;
	rc = rc ? rc : rp_policy_guard(&p, feed_oracle, &f);
	if (!rc) {
		rp_sim_finish(e);
		rp_oracle_finish(o);
		*sim = *rp_sim_total(e);
		*orc = *rp_oracle_total(o);
	}
	rp_sim_free(e);
	rp_oracle_free(o);
	return rc;
}

struct want {
	const char *metric;
	uint64_t value;
};

/* ok() that spec gives the wanted totals, and that the oracle gives the same. */
static void check(const char *name, const char *spec, const struct rp_stream *s,
		  const struct want *w)
{
	struct rp_counters a, b;
	int good = 1;

	if (run(spec, s, &a, &b)) {
		diag("%s", error_text());
		error_clear();
		ok(0, "%s", name);
		ok(0, "%s: oracle agrees", name);
		return;
	}
	for (; w->metric; w++) {
		int m = rp_metric_lookup(w->metric);

		if (m < 0 || a.v[m] != w->value) {
			diag("  %s = %llu, want %llu", w->metric,
			     m < 0 ? 0ULL : (unsigned long long)a.v[m], (unsigned long long)w->value);
			good = 0;
		}
	}
	ok(good, "%s", name);
	ok(!memcmp(&a, &b, sizeof(a)), "%s: oracle agrees", name);
}

/* A guarded feed of spec fails with an error holding want. */
static void check_fails(const char *name, const char *spec, const struct rp_stream *s,
			const char *want)
{
	struct rp_counters a, b;
	int rc = run(spec, s, &a, &b);

	if (rc && !strstr(error_text(), want))
		diag("error: %s", error_text());
	ok(rc && strstr(error_text(), want), "%s", name);
	error_clear();
}

static int *volatile wild = (int *)8;	/* never mapped */

static void on_segv(int sig)
{
	_exit(42);
}

int main(void)
{
	struct rp_stream s;
	struct rp_counters a, b, c, d;
	struct rp_policy p;
	char mthp_like[512];
	unsigned int m;
	pid_t pid;
	int st, same;

	plan(18);
	stream(&s);

	/*
	 * dense-first (window 16): VMA 1's first 16 faults 4K, 15 of them sequential >= 3/4
	 * of 15, then 64K at pages 16, 32, 48: 19 faults; VMA 2's 24 faults all 4K (none
	 * sequential): 43 faults, 40 of 4K, 3 of 64K, nothing untouched
	 */
	check("dense-first: dense VMA grows after 16 faults, sparse one stays 4K",
	      plugin("policies", "dense-first", NULL), &s, (const struct want[]){
		      { "faults", 43 }, { "alloc_order_0", 40 }, { "alloc_order_4", 3 },
		      { "bloat_bytes", 0 }, { "zeroed_bytes", (40 + 3 * 16) * 4 * K },
		      { "fallback_pte_populated", 0 }, { NULL, 0 } });
	/*
	 * faults=4: VMA 1's pages 0..3 4K, then dense: page 4 gets 16K (64K and 32K hold
	 * pages 0..3: pte_populated), page 8 32K (64K holds 0..7), pages 16, 32, 48 64K
	 */
	check("dense-first:faults=4: 16K and 32K beside the first pages, then 64K",
	      plugin("policies", "dense-first", "faults=4"), &s, (const struct want[]){
		      { "faults", 9 + 24 }, { "alloc_order_0", 4 + 24 }, { "alloc_order_2", 1 },
		      { "alloc_order_3", 1 }, { "alloc_order_4", 3 },
		      { "fallback_pte_populated", 2 }, { "bloat_bytes", 0 }, { NULL, 0 } });
	/* the built-in mthp on the same stream: 4 + 3 faults, 24 untouched pages in VMA 2 */
	check("mthp:16K,32K,64K on the same stream (the sparse VMA's bloat)", "mthp:16K,32K,64K",
	      &s, (const struct want[]){ { "faults", 7 }, { "alloc_order_4", 7 },
					 { "bloat_bytes", 24 * 4 * K }, { NULL, 0 } });

	/* mthp-like.so against the built-in: every metric, both engines */
	snprintf(mthp_like, sizeof(mthp_like), "%s", plugin("policies", "mthp-like",
							    "64K,16K,32K"));
	same = !run("mthp:16K,32K,64K", &s, &a, &b) && !run(mthp_like, &s, &c, &d);
	for (m = 0; same && m < RP_NR_METRICS; m++)
		if (a.v[m] != c.v[m] || b.v[m] != d.v[m]) {
			diag("%s: mthp %llu, mthp-like %llu", rp_metric_name(m),
			     (unsigned long long)a.v[m], (unsigned long long)c.v[m]);
			same = 0;
		}
	ok(same, "mthp-like.so:64K,16K,32K equals mthp:16K,32K,64K on every metric");
	if (!rp_policy_parse(mthp_like, &p))
		ok(!strcmp(p.spec, "plugin:mthp-like:16K,32K,64K"), "its run name is the "
		   "plugin's name and canonical args: %s", p.spec);
	else
		ok(0, "its run name: %s", error_text());

	/* the guard */
	check_fails("a SIGSEGV in get_order ends the feed with its cause",
		    plugin("testprogs/plugins", "misbehave", "segv:3"), &s,
		    "policy plugin:misbehave:segv:3: the plugin crashed in get_order "
		    "(Segmentation fault)");
	check_fails("and again: the signal is not left blocked",
		    plugin("testprogs/plugins", "misbehave", "segv:5"), &s,
		    "crashed in get_order (Segmentation fault)");
	check_fails("a SIGFPE", plugin("testprogs/plugins", "misbehave", "fpe:2"), &s,
		    "crashed in get_order (Floating point exception)");
	check_fails("an abort()", plugin("testprogs/plugins", "misbehave", "abort:2"), &s,
		    "crashed in get_order (Aborted)");
	check_fails("an order outside the allowed mask",
		    plugin("testprogs/plugins", "misbehave", "order:7"), &s,
		    "get_order returned orders 0x200, outside the allowed 0x1fe");
	check("after those, a healthy plugin runs as before",
	      plugin("policies", "dense-first", NULL), &s,
	      (const struct want[]){ { "faults", 43 }, { NULL, 0 } });
	ok(rp_policy_parse(plugin("testprogs/plugins", "misbehave", "init"), &p) &&
	   strstr(error_text(), "the plugin crashed in init (Segmentation fault)"),
	   "a crash in init: a failed parse");
	error_clear();

	/* a run name parses (compare --baseline) but cannot be replayed */
	ok(!rp_policy_parse("plugin:dense-first:faults=16", &p) &&
	   !strcmp(p.spec, "plugin:dense-first:faults=16") && rp_policy_guard(&p, NULL, NULL) &&
	   strstr(error_text(), "names stored runs"), "plugin:NAME:ARGS names runs, never replays");
	error_clear();

	/* a SIGSEGV outside a plugin hook goes to the handler that was there before */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		signal(SIGSEGV, on_segv);
		run(plugin("policies", "dense-first", NULL), &s, &a, &b);	/* handlers on */
		*wild = 1;
		_exit(0);
	}
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 42,
	   "a crash outside the plugin reaches the previous SIGSEGV handler");
	rp_stream_release(&s);
	return done_testing();
}
