// SPDX-License-Identifier: GPL-2.0
/*
 * guest-measure.c - the guest replay measurement (replay/measure.h) on streams in memory:
 * hand-made guest streams with hand-computed answers (one table row each), the same
 * streams through the order0 simulator where every process is measured (the measurement
 * must use the simulator's accounting), SYNTHETIC streams against the simulator, and the
 * replay map parser.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/measure.h"
#include "tests/unit/steps.h"
#include "tests/unit/tap.h"

#define K 1024ULL
#define B 0x10000000ULL		/* the replayed range: [B, B + 1M) for family 0 */
#define OUT 0x50000000ULL	/* an address outside it (the replayer's own memory) */

struct want {
	unsigned int metric;
	uint64_t value;
};

struct tcase {
	const char *name;
	int32_t family[4];		/* by proc_id: family root index, -1 not measured */
	int all_measured;		/* 1: the simulator sees what is measured */
	struct step steps[16];		/* until op 0 */
	struct want want[8];		/* until value ~0 */
};

#define W(p, a) { 'W', p, a, 0, 0, 1 }
#define R(p, a) { 'R', p, a, 0, 0, 1 }
#define END { RP_NR_METRICS, ~0ULL }

static const struct tcase cases[] = {
	{ "3 writes, a read, a write on the zero page, munmap", { -1, 0 }, 1,
	  { W(1, B), W(1, B + 4 * K), W(1, B + 8 * K), R(1, B + 12 * K),
	    { 'Z', 1, B + 12 * K, 0, 0, 1 }, { 'U', 1, B, B + 16 * K, 0, 0 } },
	  /* zero_wp is a fault and allocates 4K; the zero page is not RSS until written */
	  { { RP_M_FAULTS, 5 }, { RP_M_ZERO_WP, 1 }, { RP_M_ZEROED, 16 * K },
	    { RP_M_ALLOC_0, 4 }, { RP_M_PEAK_RSS, 16 * K }, { RP_M_COW, 0 }, END } },
	{ "fork, a COW in each process, the child exits", { -1, 0, 0 }, 1,
	  { W(1, B), W(1, B + 4 * K), { 'K', 2, 1, 0, 0, 0 }, { 'C', 2, B, 0, 0, 1 },
	    { 'C', 1, B + 4 * K, 0, 0, 1 }, { 'X', 2, 0, 1ULL << 47, 0, 0 } },
	  /* the child maps the parent's 2 pages: 4 pages RSS; a COW copies, not zeroes */
	  { { RP_M_FAULTS, 2 }, { RP_M_COW, 2 }, { RP_M_ALLOC_0, 4 }, { RP_M_ZEROED, 8 * K },
	    { RP_M_PEAK_RSS, 16 * K }, END } },
	{ "MADV_FREE keeps the page, MADV_DONTNEED drops it", { -1, 0 }, 1,
	  { W(1, B), { 'F', 1, B, B + 4 * K, 0, 0 }, W(1, B + 4 * K),
	    { 'D', 1, B, B + 8 * K, 0, 0 }, W(1, B + 8 * K) },
	  { { RP_M_FAULTS, 3 }, { RP_M_PEAK_RSS, 8 * K }, { RP_M_ZEROED, 12 * K }, END } },
	{ "mremap moves pages, the munmap of the destination drops them", { -1, 0 }, 1,
	  { W(1, B), W(1, B + 4 * K), { 'M', 1, B, B + 8 * K, B + 64 * K, 0 },
	    W(1, B), { 'U', 1, B + 64 * K, B + 72 * K, 0, 0 }, W(1, B + 4 * K) },
	  /* 2 pages, moved (still 2), 1 more (3), 2 dropped (1), 1 more (2) */
	  { { RP_M_FAULTS, 4 }, { RP_M_PEAK_RSS, 12 * K }, END } },
	{ "only replayed processes, only inside their family's ranges", { -1, 0, -1 }, 0,
	  { W(1, B), W(1, OUT), W(2, B), W(2, B + 4 * K), W(1, B + 4 * K) },
	  { { RP_M_FAULTS, 2 }, { RP_M_PEAK_RSS, 8 * K }, { RP_M_ALLOC_0, 2 }, END } },
};

/* The metrics a guest trace shows (measure.h), compared with the simulator's. */
static const unsigned int shown[] = { RP_M_FAULTS, RP_M_ZERO_WP, RP_M_COW, RP_M_ZEROED,
				      RP_M_PEAK_RSS, RP_M_ALLOC_0 };

static void one_range_per_family(struct rp_replay_map *m, uint32_t n, uint64_t lo,
				 uint64_t hi)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->c = calloc(n, sizeof(*m->c));
	for (i = 0; i < n; i++)
		m->c[i] = (struct rp_replay_range){ i, lo, hi };
	m->nr_c = n;
}

static void measure(const struct rp_stream *s, const struct rp_replay_map *m,
		    const int32_t *family, struct rp_measured *out)
{
	struct rp_measure *w = rp_measure_new(m, family, s->nr_procs, 12);
	size_t k;

	for (k = 0; k < s->nr; k++)
		rp_measure_feed(w, &s->ev[k]);
	rp_measure_finish(w, out);
}

static const struct rp_counters *simulate(const struct rp_stream *s, struct rp_sim **sim)
{
	struct rp_policy p;
	struct rp_trace t;

	rp_policy_parse("order0", &p);
	rp_stream_trace(s, &t);
	*sim = rp_sim_new(&p, RP_FRAG_NONE, &t);
	rp_sim_feed(*sim, s->ev, s->nr);
	rp_sim_finish(*sim);
	return rp_sim_total(*sim);
}

/* 1 if the measured metrics in shown[] equal the simulator's, diagnostics if not. */
static int same_as_sim(const char *what, const struct rp_counters *real,
		       const struct rp_counters *sim, const unsigned int *ms, size_t n)
{
	size_t i;
	int good = 1;

	for (i = 0; i < n; i++) {
		if (real->v[ms[i]] == sim->v[ms[i]])
			continue;
		diag("  %s: %s measured %llu, simulated %llu", what, rp_metric_name(ms[i]),
		     (unsigned long long)real->v[ms[i]], (unsigned long long)sim->v[ms[i]]);
		good = 0;
	}
	return good;
}

static void hand_cases(void)
{
	size_t i, nc = sizeof(cases) / sizeof(cases[0]);

	for (i = 0; i < nc; i++) {
		const struct tcase *c = &cases[i];
		struct rp_stream s = { 0 };
		struct rp_replay_map m;
		struct rp_measured r;
		struct rp_sim *sim;
		const struct step *st;
		const struct want *w;
		int good = 1;

		rp_stream_add_vma(&s, 0, 0, 0);
		rp_stream_add_vma(&s, B, B + 2048 * K, 3);
		for (st = c->steps; st->op; st++) {
			struct ftdb_event e = step_event(st);

			rp_stream_add(&s, &e);
		}
		s.nr_procs = 4;
		one_range_per_family(&m, 1, B, B + 1024 * K);
		measure(&s, &m, c->family, &r);
		for (w = c->want; w->value != ~0ULL; w++) {
			if (r.c.v[w->metric] == w->value)
				continue;
			diag("  %s = %llu, want %llu", rp_metric_name(w->metric),
			     (unsigned long long)r.c.v[w->metric], (unsigned long long)w->value);
			good = 0;
		}
		ok(good, "%s", c->name);
		if (c->all_measured) {
			ok(same_as_sim(c->name, &r.c, simulate(&s, &sim), shown,
				       sizeof(shown) / sizeof(shown[0])),
			   "%s: the order0 simulator counts the same", c->name);
			rp_sim_free(sim);
		}
		rp_measured_release(&r);
		rp_replay_map_release(&m);
		rp_stream_release(&s);
	}
}

static void latency(void)
{
	static const uint64_t ns[] = { 900, 100, 300, 200, 500, 400, 800, 700, 600, 1000 };
	struct rp_stream s = { 0 };
	struct rp_replay_map m;
	struct rp_measured r;
	int32_t family[2] = { -1, 0 };
	size_t i;

	rp_stream_add_vma(&s, 0, 0, 0);
	rp_stream_add_vma(&s, B, B + 2048 * K, 3);
	for (i = 0; i < 10; i++) {
		struct step st = W(1, B + i * 4 * K);
		struct ftdb_event e = step_event(&st);

		e.aux = ns[i];
		rp_stream_add(&s, &e);
	}
	s.nr_procs = 2;
	one_range_per_family(&m, 1, B, B + 1024 * K);
	measure(&s, &m, family, &r);
	/* nearest rank of 100..1000: p50 is the 5th value, p99 the 10th */
	ok(r.lat[0].n == 10 && rp_latency_rank(r.lat[0].ns, 10, 50) == 500 &&
	   rp_latency_rank(r.lat[0].ns, 10, 99) == 1000 && !r.lat[1].n,
	   "latency of new-folio faults kept per order, p50 500 ns and p99 1000 ns");
	/* 100 + 200 + ... + 1000 */
	ok(r.c.v[RP_M_FAULT_TIME] == 5500, "fault_time_ns: the sum of the latencies, 5500 ns");
	rp_measured_release(&r);
	rp_replay_map_release(&m);
	rp_stream_release(&s);
}

/*
 * Allocation failures per order (compare --latency): a fault that fell back to order 0
 * because its order-4 allocation failed, the failed anon_alloc before it, and the same
 * pair outside the replayed range; a successful order-2 allocation and its fault. With the
 * map only the pair inside counts; without a map (a recording) both do.
 */
static void fallbacks(void)
{
	static const uint64_t at[] = { B, OUT };
	struct rp_stream s = { 0 };
	struct rp_replay_map m;
	struct rp_measured r, all;
	int32_t family[2] = { -1, 0 };
	struct ftdb_event e;
	size_t i;

	rp_stream_add_vma(&s, 0, 0, 0);
	for (i = 0; i < 2; i++) {
		struct step st = W(1, at[i]);

		e = (struct ftdb_event){ .kind = FTDB_EV_ALLOC, .proc_id = 1, .addr = at[i],
				       .order = 4 };
		rp_stream_add(&s, &e);
		e = step_event(&st);
		e.reason = FTDB_FB_ALLOC_FAILED;
		rp_stream_add(&s, &e);
	}
	e = (struct ftdb_event){ .kind = FTDB_EV_ALLOC, .proc_id = 1, .addr = B + 64 * K, .order = 2,
			       .flags = FTDB_EVF_SUCCESS };
	rp_stream_add(&s, &e);
	{
		struct step st = W(1, B + 64 * K);

		e = step_event(&st);
		e.order = 2;
		e.nr_ptes = 4;
		rp_stream_add(&s, &e);
	}
	s.nr_procs = 2;
	one_range_per_family(&m, 1, B, B + 1024 * K);
	measure(&s, &m, family, &r);
	ok(r.fb_alloc_failed[0] == 1 && r.alloc_failed[4] == 1 && !r.alloc_failed[2] &&
	   !r.fb_alloc_failed[2] && r.lat[0].n == 1 && r.lat[2].n == 1,
	   "replay map: 1 order-0 fault fell back from a failed allocation, 1 failed order-4 "
	   "allocation, none of order 2");
	measure(&s, NULL, family, &all);
	ok(all.fb_alloc_failed[0] == 2 && all.alloc_failed[4] == 2 && all.lat[0].n == 2,
	   "no map (a recording): every address counts, 2 and 2");
	rp_measured_release(&r);
	rp_measured_release(&all);
	rp_replay_map_release(&m);
	rp_stream_release(&s);
}

/*
 * SYNTHETIC streams, every process measured: peak RSS and COW equal the simulator's, as
 * tests/cli/guest-replay-host.sh checks through the database. Only the kernel-shaped
 * generators: "random" puts zero_wp and COW records on random pages, mapped or not, which
 * no kernel emits.
 */
static void synthetic(void)
{
	static const char *const gens[] = { "kbuild-like", "seq", "realloc" };
	static const unsigned int ms[] = { RP_M_PEAK_RSS, RP_M_COW };
	size_t g, seed;

	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		int good = 1;

		for (seed = 1; seed <= 3; seed++) {
			struct rp_stream s = { 0 };
			struct rp_replay_map m;
			struct rp_measured r;
			struct rp_sim *sim;
			int32_t *family;
			uint32_t p;

			if (rp_synth(gens[g], seed, 20000, &s)) {
				diag("%s", error_text());
				error_clear();
				good = 0;
				continue;
			}
			family = malloc(s.nr_procs * sizeof(*family));
			for (p = 0; p < s.nr_procs; p++)
				family[p] = (int32_t)p;
			one_range_per_family(&m, s.nr_procs, 0, 1ULL << 47);
			measure(&s, &m, family, &r);
			good &= same_as_sim(gens[g], &r.c, simulate(&s, &sim), ms, 2);
			good &= r.c.v[RP_M_PEAK_RSS] > 0;
			rp_sim_free(sim);
			rp_measured_release(&r);
			rp_replay_map_release(&m);
			free(family);
			rp_stream_release(&s);
		}
		ok(good, "SYNTHETIC %s x 3 seeds: measured peak RSS and COW equal the simulator's",
		   gens[g]);
	}
}

static void map_parse(void)
{
	static const char text[] =
		"RESULT something else\n"
		"FTREPLAY proc=0 proc_id=5 pid=100 parent=-1\n"
		"FTREPLAY proc=1 proc_id=6 pid=101 parent=0\n"
		"FTREPLAY proc=2 proc_id=7 pid=102 parent=1\n"
		"FTREPLAY proc=3 proc_id=9 pid=103 parent=-1\n"
		"FTREPLAY_CLUSTER proc=0 start=1000 end=3000 offset=4096\n";
	struct rp_replay_map m = { 0 };
	int r;

	r = rp_replay_map_parse(text, &m);
	ok(!r && m.nr_p == 4 && m.nr_c == 1 && m.p[2].root == 0 && m.p[2].pid == 102 &&
	   m.p[2].proc_id == 7 && m.p[3].root == 3 && m.c[0].start == 0x2000 &&
	   m.c[0].end == 0x4000, "replay map: a grandchild's root is its family's, ranges "
	   "are offset");
	rp_replay_map_release(&m);
	r = rp_replay_map_parse("FTREPLAY proc=0 pid=100\n", &m);
	ok(r < 0 && strstr(error_text(), "bad replay_map line"), "a malformed line: error");
	error_clear();
	rp_replay_map_release(&m);
}

int main(void)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		n += 1 + cases[i].all_measured;
	plan((int)n + 2 + 2 + 3 + 2);
	hand_cases();
	latency();
	fallbacks();
	synthetic();
	map_parse();
	return done_testing();
}
