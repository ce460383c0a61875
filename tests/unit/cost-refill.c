// SPDX-License-Identifier: GPL-2.0
/*
 * cost-refill.c - the per-cpu list terms of the cost model (refill_ns, refill_block_ns;
 * docs/cost-model.md "Per-cpu list refills"): a SYNTHETIC icount trace whose 4K faults
 * cost 1500 ns, 16K faults 3000 ns and COWs 2000 ns, and 960 ns more each when their
 * per-cpu list was empty, plus 140 ns per block the refill took (63 for order 0: 9780;
 * 15 for order 2: 3060), is fitted by rp_cost_samples_add() and rp_cost_fit(); 960 and
 * 140, new_ns + 4096 byte_ns, new_ns + 16384 byte_ns + large_ns and cow_ns must come
 * back exactly. The refills are placed by this file's own count of the two lists (a
 * refill of 63 pages or 15 blocks, one taken an allocation, one back a free; the stream
 * stays far under the high mark), through what the calibration must follow: a munmap's
 * pages and 16K folios go back on their lists (the faults after it take them and do not
 * refill), a fork shares the parent's pages (a COW's old page stays the parent's; the
 * child's exit frees its copies only; a 16K folio the child COWed one page of and the
 * parent unmapped goes back at the child's exit, when its last mapping goes). The fit
 * knows how many refilled, not which: a follower that missed the frees, or freed the
 * shared pages or the folio early, counts another number and the terms move.
 * Then the trace on a median clock (tcg): no refill terms, and the medians as before; and
 * the prediction prices each pcp_refills and pcp_refill_blocks once.
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
#define S (256 * M)		/* 256 16K folios, the first 64 unmapped, then 64 more */
#define A (512 * M)		/* 1300 4K pages, the first 500 unmapped */
#define B (768 * M)		/* 800 4K pages, 300 of them COWed by the child */
#define C (1024 * M)		/* 400 4K pages after the child's exit */
#define D (1280 * M)		/* the 64 16K folios after the munmap, then 30 more */

/* the model the latencies follow: ns */
#define FAULT_4K 1500
#define FAULT_16K 3000
#define COW 2000
#define REFILL 960		/* per refill */
#define REFILL_BLOCK 140	/* per block it took */

/* The stream's lists, counted here: blocks on the order-0 and the order-2 list. */
static unsigned int count[3];
static unsigned int refills_new, refills_16k, refills_cow;

/* One allocation of order 0 or 2. Return: the blocks its refill took, 0 without one. */
static unsigned int take(unsigned int order)
{
	unsigned int batch = order ? 15 : 63, refill = count[order] ? 0 : batch;

	count[order] += refill;
	count[order]--;
	return refill;
}

static void fault(struct gen *g, uint32_t proc, uint64_t addr, unsigned int order)
{
	uint64_t ns = order ? FAULT_16K : FAULT_4K;
	unsigned int blocks = take(order);

	if (blocks) {
		ns += REFILL + REFILL_BLOCK * blocks;
		*(order ? &refills_16k : &refills_new) += 1;
	}
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE,
				       .proc_id = proc, .addr = addr, .order = (uint8_t)order,
				       .nr_ptes = (uint16_t)(1U << order), .aux = ns });
}

static void cow(struct gen *g, uint32_t proc, uint64_t addr)
{
	unsigned int blocks = take(0);

	refills_cow += blocks != 0;
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_COW, .proc_id = proc, .addr = addr,
				       .aux = COW + (blocks ? REFILL + REFILL_BLOCK * blocks : 0) });
}

static int make_db(const char *path)
{
	struct gen g;
	sqlite3 *db = gen_open(path, &g, 2);
	unsigned int i;

	if (!db)
		return -1;
	memset(count, 0, sizeof(count));
	refills_new = refills_16k = refills_cow = 0;
	for (i = 0; i < 256; i++)
		fault(&g, 1, S + i * 16 * K, 2);
	gen_zap(&g, 1, S, S + 64 * 16 * K, FTDB_ZAP_MUNMAP);
	count[2] += 64;
	for (i = 0; i < 64; i++)
		fault(&g, 1, D + i * 16 * K, 2);
	for (i = 0; i < 1300; i++)
		fault(&g, 1, A + i * 4 * K, 0);
	gen_zap(&g, 1, A, A + 500 * 4 * K, FTDB_ZAP_MUNMAP);
	count[0] += 500;
	for (i = 0; i < 800; i++)
		fault(&g, 1, B + i * 4 * K, 0);
	ev_add(&g, (struct ftdb_event){ .kind = FTDB_EV_MM_DUP, .proc_id = 2, .aux = 1 });
	for (i = 0; i < 300; i++)
		cow(&g, 2, B + i * 4 * K);
	/* one page of the parent's 16K folio at D COWed, then the parent unmaps the folio:
	 * the child's 3 pages still map it */
	cow(&g, 2, D);
	gen_zap(&g, 1, D, D + 16 * K, FTDB_ZAP_MUNMAP);
	gen_zap(&g, 2, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	/* the copies, COWs of the folio's page included; of the shared pages only the
	 * folio, whose last mapping was the child's; every other page is still the parent's */
	count[0] += 301;
	count[2] += 1;
	for (i = 0; i < 400; i++)
		fault(&g, 1, C + i * 4 * K, 0);
	for (i = 0; i < 30; i++)	/* 15 on the list: the 16th refills; 14, the 15th and 30th */
		fault(&g, 1, D + (64 + i) * 16 * K, 2);
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

	plan(8);
	if (gen_tmp_db(dir, &a, make_db))
		return 1;
	diag("the stream: %u refills at 4K faults, %u at 16K ones, %u at COWs", refills_new,
	     refills_16k, refills_cow);

	if (!ok(!fit(a.buf, &m), "icount: fitted"))
		diag("%s", error_text());
	ok(m.has[RP_COST_REFILL] && fabs(m.c[RP_COST_REFILL] - REFILL) < 1e-6 &&
	   m.has[RP_COST_REFILL_BLOCK] && fabs(m.c[RP_COST_REFILL_BLOCK] - REFILL_BLOCK) < 1e-6,
	   "refill_ns %.6f and refill_block_ns %.6f: the trace's 960 and 140 (refills of both "
	   "lists found in number through munmaps, a fork's shared pages and folio, and its exit)",
	   m.c[RP_COST_REFILL], m.c[RP_COST_REFILL_BLOCK]);
	new4k = m.c[RP_COST_NEW] + 4096 * m.c[RP_COST_BYTE];
	ok(fabs(new4k - FAULT_4K) < 1e-6 &&
	   fabs(m.c[RP_COST_NEW] + 16384 * m.c[RP_COST_BYTE] + m.c[RP_COST_LARGE] -
		FAULT_16K) < 1e-6,
	   "a 4K fault %.6f, a 16K one %.6f without the refills: the trace's 1500 and 3000",
	   new4k, m.c[RP_COST_NEW] + 16384 * m.c[RP_COST_BYTE] + m.c[RP_COST_LARGE]);
	ok(m.has[RP_COST_COW] && fabs(m.c[RP_COST_COW] - COW) < 1e-6,
	   "cow_ns %.6f: the trace's 2000, its %u refills out", m.c[RP_COST_COW], refills_cow);

	/* a median clock: refills are in no term, the medians are the plain costs */
	if (ftdb_open(a.buf, FTDB_WRITE, &db) || ftdb_exec(db, "UPDATE trace SET clock = 'tcg'")) {
		diag("cannot set the clock: %s", error_text());
		return 1;
	}
	ftdb_close(db);
	ok(!fit(a.buf, &m) && !m.has[RP_COST_REFILL] && !m.has[RP_COST_REFILL_BLOCK] &&
	   fabs(m.c[RP_COST_COW] - COW) < 1e-6 &&
	   fabs(m.c[RP_COST_NEW] + 4096 * m.c[RP_COST_BYTE] - FAULT_4K) < 1e-6,
	   "tcg: no refill terms, cow_ns %.6f and a 4K fault %.6f (medians)", m.c[RP_COST_COW],
	   m.c[RP_COST_NEW] + 4096 * m.c[RP_COST_BYTE]);

	/* the prediction: 100 4K faults, 2 of them refilling (126 blocks), 3 16K refills */
	memset(&m, 0, sizeof(m));
	m.c[RP_COST_NEW] = FAULT_4K;
	m.has[RP_COST_NEW] = m.has[RP_COST_BYTE] = 1;
	memset(&c, 0, sizeof(c));
	c.v[RP_M_FAULTS] = 100;
	c.v[RP_M_ALLOC_0] = 100;
	c.v[RP_M_PTE_WRITES] = 100;
	c.v[RP_M_ZEROED] = 100 * 4096;
	c.v[RP_M_PCP_REFILLS] = 2;
	c.v[RP_M_PCP_REFILL_BLOCKS] = 2 * 63;
	ok(rp_cost_predict(&m, &c) == 100 * FAULT_4K, "without the refill terms: 100 x 1500");
	m.c[RP_COST_REFILL] = REFILL;
	m.c[RP_COST_REFILL_BLOCK] = REFILL_BLOCK;
	m.has[RP_COST_REFILL] = m.has[RP_COST_REFILL_BLOCK] = 1;
	ok(rp_cost_predict(&m, &c) == 100 * FAULT_4K + 2 * REFILL + 126 * REFILL_BLOCK,
	   "with them: %lld, 2 refills and their 126 blocks priced once each",
	   (long long)rp_cost_predict(&m, &c));
	/* a model of schema 13 migrated: its refill_ns of an order-0 refill, per block */
	m.c[RP_COST_REFILL] = 0;
	m.c[RP_COST_REFILL_BLOCK] = 9000.0 / 63;
	ok(llabs(rp_cost_predict(&m, &c) - (100 * FAULT_4K + 2 * 9000)) <= 1,
	   "a migrated model's 9000 per order-0 refill: %lld", (long long)rp_cost_predict(&m, &c));

	unlink(a.buf);
	rmdir(dir);
	strbuf_release(&a);
	return done_testing();
}
