// SPDX-License-Identifier: GPL-2.0
/*
 * cost-refill.c - the per-cpu list term of the cost model (refill_ns, docs/cost-model.md
 * "Per-cpu list refills"): a SYNTHETIC icount trace whose 4K faults cost 1500 ns and COWs
 * 2000 ns, 9000 ns more each when the order-0 per-cpu list was empty, is fitted by
 * rp_cost_samples_add() and rp_cost_fit(); refill_ns, new_ns + 4096 byte_ns and cow_ns
 * must come back exactly. The refills are placed by this file's own count of the list (63
 * pages a refill, one page an allocation, one back a free; the stream stays far under the
 * high mark), through what the calibration must follow: a munmap's pages go back on the
 * list (the faults after it take them and do not refill), a fork shares the parent's
 * pages (a COW's old page stays the parent's; the child's exit frees its copies only), a
 * large folio's faults do not touch the list. The fit knows how many refilled, not which:
 * a follower that missed the frees, or freed the shared pages, counts another number and
 * the 9000 moves.
 * Then the trace on a median clock (tcg): no refill_ns, and the medians as before; and
 * the prediction prices each pcp_refills once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/cost.h"
#include "tests/unit/costfit.h"
#include "tests/unit/tap.h"

#define K 1024ULL
#define M (1024 * K)
#define S (256 * M)		/* 32 16K folios: the second size new_ns and byte_ns need */
#define A (512 * M)		/* 1300 4K pages, the first 500 unmapped */
#define B (768 * M)		/* 800 4K pages, 300 of them COWed by the child */
#define C (1024 * M)		/* 400 4K pages after the child's exit */

/* the model the latencies follow: ns */
#define FAULT_4K 1500
#define FAULT_16K 3000
#define COW 2000
#define REFILL 9000

/* The stream's order-0 list, counted here: pages on it. */
static unsigned int count;
static unsigned int refills_new, refills_cow;

/* One order-0 allocation. Return: 1 if it refilled the list. */
static int take(void)
{
	int refill = !count;

	if (refill)
		count = 63;
	count--;
	return refill;
}

static void fault(struct gen *g, uint32_t proc, uint64_t addr, unsigned int order)
{
	uint64_t ns = order ? FAULT_16K : FAULT_4K;

	if (!order && take()) {
		ns += REFILL;
		refills_new++;
	}
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE,
				       .proc_id = proc, .addr = addr, .order = (uint8_t)order,
				       .nr_ptes = (uint16_t)(1U << order), .aux = ns });
}

static void cow(struct gen *g, uint32_t proc, uint64_t addr)
{
	int refill = take();

	refills_cow += (unsigned int)refill;
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_COW, .proc_id = proc, .addr = addr,
				       .aux = COW + (refill ? REFILL : 0) });
}

static int make_db(const char *path)
{
	struct gen g;
	sqlite3 *db = gen_open(path, &g, 2);
	unsigned int i;

	if (!db)
		return -1;
	count = refills_new = refills_cow = 0;
	for (i = 0; i < 32; i++)
		fault(&g, 1, S + i * 16 * K, 2);
	for (i = 0; i < 1300; i++)
		fault(&g, 1, A + i * 4 * K, 0);
	gen_zap(&g, 1, A, A + 500 * 4 * K, FTDB_ZAP_MUNMAP);
	count += 500;
	for (i = 0; i < 800; i++)
		fault(&g, 1, B + i * 4 * K, 0);
	ev_add(&g, (struct ftdb_event){ .kind = FTDB_EV_MM_DUP, .proc_id = 2, .aux = 1 });
	for (i = 0; i < 300; i++)
		cow(&g, 2, B + i * 4 * K);
	gen_zap(&g, 2, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	count += 300;		/* the copies; every other page is still the parent's */
	for (i = 0; i < 400; i++)
		fault(&g, 1, C + i * 4 * K, 0);
	gen_zap(&g, 1, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	return gen_close(db, &g);
}

int main(void)
{
	char dir[] = "/tmp/ft-cost-refill-XXXXXX";
	struct strbuf a = STRBUF_INIT;
	struct rp_counters c;
	struct rp_cost m;
	double new4k;
	sqlite3 *db;

	plan(7);
	if (gen_tmp_db(dir, &a, make_db))
		return 1;
	diag("the stream: %u refills at 4K faults, %u at COWs", refills_new, refills_cow);

	if (!ok(!fit(a.buf, &m), "icount: fitted"))
		diag("%s", error_text());
	ok(m.has[RP_COST_REFILL] && fabs(m.c[RP_COST_REFILL] - REFILL) < 1e-6,
	   "refill_ns %.6f: the trace's 9000 (refills found in number through a munmap, a "
	   "fork's shared pages and its exit)", m.c[RP_COST_REFILL]);
	new4k = m.c[RP_COST_NEW] + 4096 * m.c[RP_COST_BYTE];
	ok(fabs(new4k - FAULT_4K) < 1e-6 &&
	   fabs(m.c[RP_COST_NEW] + 16384 * m.c[RP_COST_BYTE] - FAULT_16K) < 1e-6,
	   "a 4K fault %.6f, a 16K one %.6f without the refills: the trace's 1500 and 3000",
	   new4k, m.c[RP_COST_NEW] + 16384 * m.c[RP_COST_BYTE]);
	ok(m.has[RP_COST_COW] && fabs(m.c[RP_COST_COW] - COW) < 1e-6,
	   "cow_ns %.6f: the trace's 2000, its %u refills out", m.c[RP_COST_COW], refills_cow);

	/* a median clock: refills are in no term, the medians are the plain costs */
	if (ftdb_open(a.buf, FTDB_WRITE, &db) || ftdb_exec(db, "UPDATE trace SET clock = 'tcg'")) {
		diag("cannot set the clock: %s", error_text());
		return 1;
	}
	ftdb_close(db);
	ok(!fit(a.buf, &m) && !m.has[RP_COST_REFILL] && fabs(m.c[RP_COST_COW] - COW) < 1e-6 &&
	   fabs(m.c[RP_COST_NEW] + 4096 * m.c[RP_COST_BYTE] - FAULT_4K) < 1e-6,
	   "tcg: no refill_ns, cow_ns %.6f and a 4K fault %.6f (medians)", m.c[RP_COST_COW],
	   m.c[RP_COST_NEW] + 4096 * m.c[RP_COST_BYTE]);

	/* the prediction: 100 4K faults, 2 of them refilling */
	memset(&m, 0, sizeof(m));
	m.c[RP_COST_NEW] = FAULT_4K;
	m.has[RP_COST_NEW] = m.has[RP_COST_BYTE] = 1;
	memset(&c, 0, sizeof(c));
	c.v[RP_M_FAULTS] = 100;
	c.v[RP_M_ALLOC_0] = 100;
	c.v[RP_M_PTE_WRITES] = 100;
	c.v[RP_M_ZEROED] = 100 * 4096;
	c.v[RP_M_PCP_REFILLS] = 2;
	ok(rp_cost_predict(&m, &c) == 100 * FAULT_4K, "without refill_ns: 100 x 1500");
	m.c[RP_COST_REFILL] = REFILL;
	m.has[RP_COST_REFILL] = 1;
	ok(rp_cost_predict(&m, &c) == 100 * FAULT_4K + 2 * REFILL,
	   "with it: %lld, 2 refills priced once each", (long long)rp_cost_predict(&m, &c));

	unlink(a.buf);
	rmdir(dir);
	strbuf_release(&a);
	return done_testing();
}
