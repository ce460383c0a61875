// SPDX-License-Identifier: GPL-2.0
/*
 * cost-cow.c - the COW term of the cost model for a page of a large folio (cow_large_ns,
 * docs/cost-model.md "COW of a large folio"): a SYNTHETIC trace whose COW latencies follow
 * a known model, 1500 ns a COW of a 4K folio's page and 400 ns more for a page of a folio
 * of order 2 and up (a 64K folio, a PMD-mapped THP), is fitted by rp_cost_samples_add()
 * and rp_cost_fit(); cow_ns and cow_large_ns must come back exactly. The stream has what
 * the labelling must follow: the pages of a fault of order k are its aligned 2^k (a THP's
 * 512 from one PMD entry), order 1 is not large (two 4K folios on 6.1's patch), a fork
 * gives the child its parent's folios, a COW leaves a 4K copy (a grandchild's COW of it is
 * small), MADV_DONTNEED drops the pages (refaulted at 4K, their COWs are small). Any of
 * them mislabelled moves one of the two off the model.
 * Then the same with only 8 large COWs: no cow_large_ns, and cow_ns is the mean of every
 * COW, as before the term.
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
#define A (256 * M)		/* 32 4K pages */
#define L (260 * M)		/* two 64K folios: 32 pages */
#define H (264 * M)		/* a THP */
#define S (268 * M)		/* 16 16K folios: a second size for new_ns and byte_ns */
#define O (272 * M)		/* 8 8K blocks: order 1, two 4K folios each (6.1's patch) */

/* the model the COW latencies follow: ns */
#define COW 1500
#define LARGE 400

static void fault(struct gen *g, uint32_t proc, uint64_t addr, unsigned int order,
		  unsigned int ptes)
{
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE,
				       .proc_id = proc, .addr = addr, .order = (uint8_t)order,
				       .nr_ptes = (uint16_t)ptes,
				       .aux = 1000 + (4096ULL << order) / 8 });
}

static void cow(struct gen *g, uint32_t proc, uint64_t addr, int large)
{
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_COW, .proc_id = proc, .addr = addr,
				       .aux = COW + (large ? LARGE : 0) });
}

static void fork_(struct gen *g, uint32_t child, uint32_t parent)
{
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_MM_DUP, .proc_id = child, .aux = parent });
}

/*
 * Process 1 maps 32 4K pages at A, two 64K folios at L, a THP at H and 8 blocks of order
 * 1 at O, and forks 2. 2 COWs 20 pages of A and the 16 of O (small: order 1 is not
 * large), nr_large pages of L and H (large), then forks 3, which COWs
 * the pages 2 copied from L (small: 4K copies). 1 drops its first 64K folio with
 * MADV_DONTNEED, faults it back at 4K and forks 4, which COWs those 16 pages (small) and,
 * when nr_large is over 8, 8 of the second folio (large).
 */
static int make_db(const char *path, unsigned int nr_large)
{
	struct gen g;
	sqlite3 *db = gen_open(path, &g, 4);
	unsigned int i;

	if (!db)
		return -1;
	for (i = 0; i < 32; i++)
		fault(&g, 1, A + i * 4 * K, 0, 1);
	fault(&g, 1, L + 8 * K, 4, 16);		/* any page of the folio: it maps all 16 */
	fault(&g, 1, L + 64 * K, 4, 16);
	fault(&g, 1, H + 12 * K, 9, 1);		/* a PMD: one entry, 512 pages */
	for (i = 0; i < 16; i++)
		fault(&g, 1, S + i * 16 * K, 2, 4);
	for (i = 0; i < 8; i++)
		fault(&g, 1, O + i * 8 * K, 1, 2);
	fork_(&g, 2, 1);
	for (i = 0; i < 20; i++)
		cow(&g, 2, A + i * 4 * K, 0);
	for (i = 0; i < 16; i++)
		cow(&g, 2, O + i * 4 * K, 0);
	for (i = 0; i < nr_large; i++)
		cow(&g, 2, i < 16 ? L + i * 4 * K : H + (i - 16) * 8 * K, 1);
	fork_(&g, 3, 2);
	for (i = 0; i < nr_large && i < 16; i++)
		cow(&g, 3, L + i * 4 * K, 0);
	ev_add(&g, (struct ftdb_event){ .kind = FTDB_EV_ZAP, .proc_id = 1, .addr = L,
					.end = L + 64 * K, .reason = FTDB_ZAP_DONTNEED });
	for (i = 0; i < 16; i++)
		fault(&g, 1, L + i * 4 * K, 0, 1);
	fork_(&g, 4, 1);
	for (i = 0; i < 16; i++)
		cow(&g, 4, L + i * 4 * K, 0);
	for (i = 0; nr_large > 8 && i < 8; i++)
		cow(&g, 4, L + 64 * K + i * 4 * K, 1);
	return gen_close(db, &g);
}

int main(void)
{
	char dir[] = "/tmp/ft-cost-cow-XXXXXX";
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct rp_counters c;
	struct rp_cost m;
	int64_t before;
	int rc;

	plan(6);
	if (!mkdtemp(dir))
		return 1;
	strbuf_addf(&a, "%s/many.db", dir);
	strbuf_addf(&b, "%s/few.db", dir);
	if (make_db(a.buf, 24) || make_db(b.buf, 0)) {
		diag("cannot make the traces: %s", error_text());
		return 1;
	}

	if (!ok(!fit(a.buf, &m), "24 + 8 large COWs: fitted"))
		diag("%s", error_text());
	ok(m.has[RP_COST_COW] && fabs(m.c[RP_COST_COW] - COW) < 1e-6 &&
	   m.has[RP_COST_COW_LARGE] && fabs(m.c[RP_COST_COW_LARGE] - LARGE) < 1e-6,
	   "cow_ns %.6f, cow_large_ns %.6f: the trace's 1500 and 400 (64K folios, a THP, a "
	   "fork's copy, DONTNEED followed)", m.c[RP_COST_COW], m.c[RP_COST_COW_LARGE]);

	ok(!fit(b.buf, &m), "no large COW: fitted");
	ok(m.has[RP_COST_COW] && fabs(m.c[RP_COST_COW] - COW) < 1e-6 &&
	   !m.has[RP_COST_COW_LARGE], "cow_ns %.6f and no cow_large_ns", m.c[RP_COST_COW]);

	/* under 16 large COWs: one cow_ns over all, as before the term */
	strbuf_reset(&b);
	strbuf_addf(&b, "%s/eight.db", dir);
	if (make_db(b.buf, 8)) {
		diag("cannot make the trace: %s", error_text());
		return 1;
	}
	rc = fit(b.buf, &m);
	ok(!rc && !m.has[RP_COST_COW_LARGE] &&
	   fabs(m.c[RP_COST_COW] - (60.0 * COW + 8 * (COW + LARGE)) / 68) < 1e-6,
	   "8 large COWs: no cow_large_ns, cow_ns %.6f the mean of all 68", m.c[RP_COST_COW]);

	/* the prediction: 3 large COWs of 5 cost 3 x cow_large_ns more */
	memset(&m, 0, sizeof(m));
	m.c[RP_COST_COW] = COW;
	m.has[RP_COST_COW] = 1;
	m.c[RP_COST_COW_LARGE] = LARGE;
	m.has[RP_COST_COW_LARGE] = 1;
	memset(&c, 0, sizeof(c));
	c.v[RP_M_COW] = 5;
	c.v[RP_M_PTE_WRITES] = 5;
	before = rp_cost_predict(&m, &c);
	c.v[RP_M_COW_LARGE] = 3;
	ok(before == 5 * COW && rp_cost_predict(&m, &c) - before == 3 * LARGE,
	   "5 COWs cost %lld, 3 of them large %lld more", (long long)before,
	   (long long)(rp_cost_predict(&m, &c) - before));

	unlink(a.buf);
	unlink(b.buf);
	strbuf_reset(&b);
	strbuf_addf(&b, "%s/few.db", dir);
	unlink(b.buf);
	rmdir(dir);
	strbuf_release(&a);
	strbuf_release(&b);
	return done_testing();
}
