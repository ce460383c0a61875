// SPDX-License-Identifier: GPL-2.0
/*
 * replay-series.c - a run's series (replay/series.h) on a hand-made stream whose answer is
 * worked out below by hand: intervals closed on the first event past their end, RSS at
 * the end and the most inside, faults per interval, empty intervals carried, the last
 * ones closed by rp_sim_finish().
 */
#include <string.h>

#include "replay/replay.h"
#include "replay/series.h"
#include "tests/unit/tap.h"

#define B 0x10000000ULL	/* 2M-aligned start of the one VMA */
#define PG 4096ULL

static struct ftdb_event ev(uint64_t ts, uint8_t kind, uint64_t addr, uint64_t end)
{
	struct ftdb_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.kind = kind;
	e.addr = addr;
	e.end = end;
	e.proc_id = 1;
	if (kind == FTDB_EV_FAULT) {
		e.vma_id = 1;
		e.flags = FTDB_EVF_WRITE;
		e.nr_ptes = 1;
	} else {
		e.reason = FTDB_ZAP_MUNMAP;
	}
	return e;
}

int main(void)
{
	/*
	 * Span [1000, 3399]: 2400 ns in 240 intervals of 10 ns; interval i ends at 1000 +
	 * 10 (i + 1), t_ns 10 (i + 1). Under order0 each write fault maps one page:
	 *   ts 1000, 1005: 2 faults                  -> interval 0: rss 2, max 2, faults 2
	 *   (nothing in 1010..1019)                  -> interval 1: rss 2, max 2, faults 0
	 *   ts 1025: a fault, ts 1026 another        -> interval 2: rss 4, max 4, faults 2
	 *   ts 1031: munmap of 3 pages               -> interval 3: rss 1, max 4, faults 0
	 *   intervals 4..238 empty                   -> rss 1, max 1, faults 0
	 *   ts 3399: a fault (the last event)        -> interval 239: rss 2, max 2, faults 1
	 */
	const struct ftdb_event e[] = {
		ev(1000, FTDB_EV_FAULT, B, 0), ev(1005, FTDB_EV_FAULT, B + PG, 0),
		ev(1025, FTDB_EV_FAULT, B + 2 * PG, 0), ev(1026, FTDB_EV_FAULT, B + 3 * PG, 0),
		ev(1031, FTDB_EV_ZAP, B, B + 3 * PG), ev(3399, FTDB_EV_FAULT, B + 5 * PG, 0),
	};
	struct rp_vma vmas[2] = { { 0, 0, 0 }, { B, B + 2 * 1024 * 1024, 0x3 } };
	struct rp_trace t;
	struct rp_policy p;
	struct rp_series ser;
	struct rp_sim *s;
	uint64_t faults = 0, bad = 0;
	unsigned int i;

	plan(9);
	memset(&t, 0, sizeof(t));
	t.vmas = vmas;
	t.nr_vmas = 2;
	t.nr_procs = 2;
	ok(!rp_policy_parse("order0", &p), "order0 parses");
	s = rp_sim_new(&p, RP_FRAG_NONE, &t);
	rp_series_init(&ser, 1000, 3399);
	ok(ser.width == 10, "2400 ns in 240 intervals: 10 ns each (%llu)",
	   (unsigned long long)ser.width);
	rp_sim_series(s, &ser);
	rp_sim_feed(s, e, 3);	/* in two batches: the series spans them */
	rp_sim_feed(s, e + 3, sizeof(e) / sizeof(e[0]) - 3);
	ok(ser.n == 239, "before finish, 239 intervals closed (%u)", ser.n);
	rp_sim_finish(s);
	ok(ser.n == RP_SERIES_POINTS, "finish closes the last (%u)", ser.n);
	ok(ser.pt[0].t_ns == 10 && ser.pt[0].rss == 2 * PG && ser.pt[0].rss_max == 2 * PG &&
	   ser.pt[0].faults == 2 && ser.pt[1].rss == 2 * PG && ser.pt[1].faults == 0,
	   "intervals 0 and 1: 2 pages, 2 faults then none");
	ok(ser.pt[2].rss == 4 * PG && ser.pt[2].faults == 2 && ser.pt[3].rss == PG &&
	   ser.pt[3].rss_max == 4 * PG && ser.pt[3].faults == 0,
	   "interval 3: the munmap leaves 1 page, the max inside it is the 4 before");
	for (i = 4; i < 239; i++)
		bad += ser.pt[i].rss != PG || ser.pt[i].rss_max != PG || ser.pt[i].faults ||
		       ser.pt[i].t_ns != 10ULL * (i + 1);
	ok(!bad, "intervals 4..238 empty: 1 page, no fault, t_ns 10 (i + 1)");
	ok(ser.pt[239].t_ns == 2400 && ser.pt[239].rss == 2 * PG && ser.pt[239].faults == 1,
	   "the last interval holds the last event");
	for (i = 0; i < RP_SERIES_POINTS; i++)
		faults += ser.pt[i].faults;
	ok(faults == rp_sim_total(s)->v[RP_M_FAULTS] && faults == 5 &&
	   ser.pt[239].rss == rp_sim_total(s)->v[RP_M_FINAL_RSS] &&
	   4 * PG == rp_sim_total(s)->v[RP_M_PEAK_RSS],
	   "faults sum to the metric (5), the last RSS is final_rss, the max peak_rss");
	rp_sim_free(s);
	return done_testing();
}
