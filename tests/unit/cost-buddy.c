// SPDX-License-Identifier: GPL-2.0
/*
 * cost-buddy.c - the buddy allocator's term of the cost model (buddy_ns,
 * docs/cost-model.md "The buddy allocator"): a SYNTHETIC icount trace of new-folio faults
 * whose latencies follow new 1000 + byte 0.125 * bytes + pte 50 * PTEs + large 200 (order
 * 2 and up) + buddy 400 (orders 4-8, no per-cpu list) exactly, 4K, 16K, 32K and 64K folios
 * and PMD-mapped 2M ones, is fitted by rp_cost_samples_add() and rp_cost_fit(): the five
 * come back. Without the 32K faults the shapes are four and the unknowns five: buddy_ns
 * is not fitted (64K's buddy cannot be told from the cost per page) and the others still
 * are, 64K's buddy then spread over them. And the prediction prices buddy_ns once per
 * folio of order 4 to 8, not of 2, 3 (per-cpu lists) or 9 (the THP list).
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
#define G (1024 * M)

/* the model the latencies follow: ns */
#define NEW 1000
#define BYTE 0.125
#define PTE 50
#define LARGE 200
#define BUDDY 400

static int with_32k;

/* n faults of order, one after another from addr (a PMD map for order 9) */
static void faults(struct gen *g, uint64_t addr, unsigned int order, unsigned int n)
{
	uint64_t bytes = 4 * K << order;
	unsigned int ptes = order == 9 ? 1 : 1U << order, i;
	double ns = NEW + BYTE * (double)bytes + PTE * ptes + (order >= 2 ? LARGE : 0) +
		    (order >= 4 && order < 9 ? BUDDY : 0);

	for (i = 0; i < n; i++)
		ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE,
					       .proc_id = 1, .addr = addr + i * bytes,
					       .order = (uint8_t)order, .nr_ptes = (uint16_t)ptes,
					       .aux = (uint64_t)ns });
}

static int make_db(const char *path)
{
	struct gen g;
	sqlite3 *db = gen_open(path, &g, 1);

	if (!db)
		return -1;
	faults(&g, 1 * G, 0, 64);
	faults(&g, 2 * G, 2, 64);
	if (with_32k)
		faults(&g, 3 * G, 3, 64);
	faults(&g, 4 * G, 4, 64);
	faults(&g, 5 * G, 9, 16);
	gen_zap(&g, 1, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	return gen_close(db, &g);
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

int main(void)
{
	char dir[] = "/tmp/ft-cost-buddy-XXXXXX", dir2[] = "/tmp/ft-cost-buddy-XXXXXX";
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct rp_counters c;
	struct rp_cost m;

	plan(5);
	with_32k = 1;
	if (gen_tmp_db(dir, &a, make_db))
		return 1;
	if (!ok(!fit(a.buf, &m), "4K, 16K, 32K, 64K and 2M: fitted"))
		diag("%s", error_text());
	ok(m.has[RP_COST_BUDDY] && near(m.c[RP_COST_BUDDY], BUDDY) &&
	   near(m.c[RP_COST_LARGE], LARGE) && near(m.c[RP_COST_NEW], NEW) &&
	   near(m.c[RP_COST_BYTE], BYTE) && near(m.c[RP_COST_PTE], PTE),
	   "buddy_ns %.6f, large_ns %.6f, new_ns %.6f, byte_ns %.6f, pte_ns %.6f: the trace's "
	   "400, 200, 1000, 0.125, 50", m.c[RP_COST_BUDDY], m.c[RP_COST_LARGE],
	   m.c[RP_COST_NEW], m.c[RP_COST_BYTE], m.c[RP_COST_PTE]);

	with_32k = 0;
	if (gen_tmp_db(dir2, &b, make_db))
		return 1;
	ok(!fit(b.buf, &m) && !m.has[RP_COST_BUDDY] && m.has[RP_COST_LARGE],
	   "without 32K: fitted, no buddy_ns (four shapes, five unknowns)");
	if (!m.has[RP_COST_LARGE])
		diag("%s", error_text());

	/* the prediction: only buddy_ns, folios of orders 2, 3, 4 and 9 */
	memset(&m, 0, sizeof(m));
	m.c[RP_COST_BUDDY] = BUDDY;
	m.has[RP_COST_NEW] = m.has[RP_COST_BYTE] = m.has[RP_COST_BUDDY] = 1;
	memset(&c, 0, sizeof(c));
	c.v[RP_M_FAULTS] = 22;
	c.v[RP_M_ALLOC_0 + 2] = 3;
	c.v[RP_M_ALLOC_0 + 3] = 5;
	c.v[RP_M_ALLOC_0 + 4] = 10;
	c.v[RP_M_ALLOC_0 + 9] = 4;
	ok(rp_cost_predict(&m, &c) == 10 * BUDDY,
	   "buddy_ns priced for the 10 folios of order 4 only: %lld",
	   (long long)rp_cost_predict(&m, &c));
	c.v[RP_M_ALLOC_0 + 8] = 1;
	ok(rp_cost_predict(&m, &c) == 11 * BUDDY, "and for one of order 8 (1M): %lld",
	   (long long)rp_cost_predict(&m, &c));

	unlink(a.buf);
	unlink(b.buf);
	rmdir(dir);
	rmdir(dir2);
	strbuf_release(&a);
	strbuf_release(&b);
	return done_testing();
}
