// SPDX-License-Identifier: GPL-2.0
/*
 * cost-table.c - the page-table term of the cost model (table_ns, docs/cost-model.md "Page
 * tables"): a SYNTHETIC trace whose latencies follow a known model, 1000 ns a fault, 1/8
 * ns a byte, 2000 ns more for the fault that allocates its 2M range's page table, and
 * zero-page faults of 300 ns (2300 with a table), is fitted by rp_cost_samples_add() and
 * rp_cost_fit(); the coefficients must come back exactly. The stream has the cases the
 * labelling must get right: MADV_DONTNEED keeps a range's table (the faults after it are
 * plain), a munmap of the whole range frees it (the next fault allocates one), a forked
 * child has its parent's tables; any of them mislabelled moves table_ns off 2000. A fault
 * that is also its process's first in a 1G range allocates the PMD table too: it costs two
 * tables here (and is left out of table_ns's estimate), and counted as one it would move
 * new_ns and byte_ns off the model.
 * Then the same with too few faults that allocate a table: no table_ns, and zero_ns is
 * the mean of every zero-page fault, the table's included.
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
#define B (256 * M)		/* 2M-aligned base of the ranges */

/* the model the latencies follow: ns */
#define NEW 1000
#define TABLE 2000
#define ZERO 300
static uint64_t lat(unsigned int order, int table)
{
	return NEW + (4096ULL << order) / 8 + (table ? TABLE : 0);
}

static void fault(struct gen *g, uint32_t proc, uint64_t addr, unsigned int order, uint64_t ns)
{
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE,
				       .proc_id = proc, .addr = addr, .order = (uint8_t)order,
				       .nr_ptes = (uint16_t)(1U << order), .aux = ns });
}

static void zero(struct gen *g, uint32_t proc, uint64_t addr, uint64_t ns)
{
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_ZERO_PAGE,
				       .proc_id = proc, .addr = addr, .nr_ptes = 1, .aux = ns });
}

/* 16 faults of 2^order pages in the 2M range r, the first allocating tables (0, 1, 2) */
static void range(struct gen *g, uint32_t proc, uint64_t r, unsigned int order, int tables)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		fault(g, proc, r + ((uint64_t)i << (12 + order)), order,
		      lat(order, 0) + (i ? 0 : (uint64_t)tables * TABLE));
}

/* The trace of nr ranges per size (4K and 16K), and the zaps, fork and zero pages. */
static int make_db(const char *path, unsigned int nr)
{
	struct gen g;
	sqlite3 *db = gen_open(path, &g, 2);
	unsigned int r;

	if (!db)
		return -1;
	/* every range in one 1G range: its PMD table comes with the first fault */
	for (r = 0; r < nr; r++) {
		range(&g, 1, B + r * 2 * M, 0, r ? 1 : 2);
		range(&g, 1, B + (64 + r) * 2 * M, 2, 1);
	}
	/* the first fault in another 1G range: its PTE and PMD tables */
	fault(&g, 1, 4096 * M, 0, lat(0, 0) + 2 * TABLE);
	/* MADV_DONTNEED of range 0: its table stays, the 16 faults again are plain */
	gen_zap(&g, 1, B, B + 2 * M, FTDB_ZAP_DONTNEED);
	range(&g, 1, B, 0, 0);
	/* munmap of range 1 whole: the table goes, the first fault again allocates one */
	gen_zap(&g, 1, B + 2 * M, B + 4 * M, FTDB_ZAP_MUNMAP);
	range(&g, 1, B + 2 * M, 0, 1);
	/* a fork: the child's faults in its parent's ranges find the tables */
	ev_add(&g, (struct ftdb_event){ .kind = FTDB_EV_MM_DUP, .proc_id = 2, .aux = 1 });
	gen_zap(&g, 2, B + 4 * M, B + 6 * M, FTDB_ZAP_DONTNEED);
	range(&g, 2, B + 4 * M, 0, 0);
	/* zero pages: 20 in a range with a table, 20 each in a range of its own */
	for (r = 0; r < 20; r++) {
		zero(&g, 1, B + 6 * M + r * 4 * K + 256 * K, ZERO);
		zero(&g, 1, B + (200 + r) * 2 * M, ZERO + TABLE);
	}
	return gen_close(db, &g);
}

int main(void)
{
	char dir[] = "/tmp/ft-cost-table-XXXXXX";
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct rp_cost m;

	plan(8);
	if (!mkdtemp(dir))
		return 1;
	strbuf_addf(&a, "%s/many.db", dir);
	strbuf_addf(&b, "%s/few.db", dir);
	if (make_db(a.buf, 32) || make_db(b.buf, 8)) {
		diag("cannot make the traces: %s", error_text());
		return 1;
	}

	ok(!fit(a.buf, &m), "32 ranges per size: fitted");
	ok(m.has[RP_COST_TABLE] && fabs(m.c[RP_COST_TABLE] - TABLE) < 1e-6,
	   "table_ns %.6f, the trace's 2000: DONTNEED kept, munmap freed, fork copied",
	   m.c[RP_COST_TABLE]);
	ok(fabs(m.c[RP_COST_NEW] - NEW) < 1e-6 && fabs(m.c[RP_COST_BYTE] - 0.125) < 1e-9,
	   "new_ns %.6f and byte_ns %.9f: 1000 and 0.125", m.c[RP_COST_NEW], m.c[RP_COST_BYTE]);
	ok(m.has[RP_COST_ZERO] && fabs(m.c[RP_COST_ZERO] - ZERO) < 1e-6,
	   "zero_ns %.3f: the zero-page faults that found a table, 300", m.c[RP_COST_ZERO]);

	/* 8 ranges a size: under 16 faults of each size allocate one table */
	ok(!fit(b.buf, &m), "8 ranges per size: fitted");
	ok(!m.has[RP_COST_TABLE], "no table_ns from under 16 faults a size that allocated one table");
	ok(m.has[RP_COST_ZERO] && fabs(m.c[RP_COST_ZERO] - (ZERO + TABLE / 2)) < 1e-6,
	   "zero_ns %.3f: the mean of all 40 zero-page faults, 1300", m.c[RP_COST_ZERO]);

	/* the prediction: 3 faults that allocated tables more cost 3 table_ns more */
	{
		struct rp_counters c;
		int64_t before;

		memset(&m, 0, sizeof(m));
		m.c[RP_COST_NEW] = NEW;
		m.has[RP_COST_NEW] = 1;
		m.c[RP_COST_TABLE] = TABLE;
		m.has[RP_COST_TABLE] = 1;
		memset(&c, 0, sizeof(c));
		c.v[RP_M_FAULTS] = 5;
		c.v[RP_M_PTE_WRITES] = 5;
		c.v[RP_M_ZEROED] = 5 * 4 * K;
		before = rp_cost_predict(&m, &c);
		c.v[RP_M_TABLE_FAULTS] = 3;
		ok(rp_cost_predict(&m, &c) - before == 3 * TABLE,
		   "3 table faults cost 3 x table_ns more: %lld", (long long)(rp_cost_predict(&m, &c) - before));
	}
	unlink(a.buf);
	unlink(b.buf);
	rmdir(dir);
	strbuf_release(&a);
	strbuf_release(&b);
	return done_testing();
}
