// SPDX-License-Identifier: GPL-2.0
/*
 * replay-outside.c - a replay of a selection shares the order-0 per-cpu list with the
 * processes it leaves out (replay/run.c, replay/pcp-follow.h; docs/cost-model.md,
 * "Per-cpu list refills"): their allocations and frees, as recorded, move the list its
 * faults take pages from. A SYNTHETIC trace, replayed by rp_replay_db() under order0 with
 * the oracle checking the simulator:
 *
 *   process 1 writes 100 pages (refills at its 1st and 64th: 26 left on the list),
 *   munmaps 50 of them (76), forks 3, which writes 10 pages (66) and exits (76 again: its
 *   copies of 1's pages were shared, only its own 10 go back), then process 2 writes 100:
 *   76 from the list, a refill at its 77th: 1.
 *
 * Counted by hand from 6.1's rules (a batch of 63, a page back per free, far under the high
 * mark). Selected alone (--pid), process 2 counts 1 refill, not the 2 of an empty list;
 * the whole trace counts 3; process 1 selected counts its own 2 (3 follows it as a
 * shadow, its fork child).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/run.h"
#include "tests/unit/costfit.h"
#include "tests/unit/tap.h"

#define K 1024ULL
#define M (1024 * K)
#define A (256 * M)		/* process 1's 100 pages, process 3's 10 past them */
#define B (512 * M)		/* process 2's 100 pages */

static void write_pages(struct gen *g, uint32_t proc, uint64_t at, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE,
					       .proc_id = proc, .vma_id = proc, .nr_ptes = 1,
					       .addr = at + i * 4 * K, .aux = 1000 });
}

static int make_db(const char *path)
{
	struct gen g;
	sqlite3 *db = gen_open(path, &g, 3);
	char sql[256];
	unsigned int i;

	if (!db)
		return -1;
	/* one VMA each: 1 and its child 3 at A, 2 at B */
	for (i = 1; i <= 3; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO vma(vma_id, proc_id, start, end, flags, "
			 "first_ts) VALUES (%u, %u, %llu, %llu, 3, 0)", i, i,
			 (unsigned long long)(i == 2 ? B : A),
			 (unsigned long long)(i == 2 ? B : A) + 4 * M);
		if (ftdb_exec(db, sql)) {
			ftdb_close(db);
			return -1;
		}
	}
	if (ftdb_exec(db, "UPDATE process SET parent_proc_id = 1 WHERE proc_id = 3")) {
		ftdb_close(db);
		return -1;
	}
	write_pages(&g, 1, A, 100);
	gen_zap(&g, 1, A, A + 50 * 4 * K, FTDB_ZAP_MUNMAP);
	ev_add(&g, (struct ftdb_event){ .kind = FTDB_EV_MM_DUP, .proc_id = 3, .aux = 1 });
	write_pages(&g, 3, A + 100 * 4 * K, 10);
	gen_zap(&g, 3, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	write_pages(&g, 2, B, 100);
	gen_zap(&g, 2, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	gen_zap(&g, 1, 0, 1ULL << 40, FTDB_ZAP_EXIT);
	return gen_close(db, &g);
}

/* pcp_refills of the run of trace 1 of path under order0, of process pid (-1: all). */
static int64_t refills(const char *path, int64_t pid)
{
	struct rp_policy pol;
	struct rp_run_opts o = { .pol = &pol, .nr_pol = 1, .pid = pid, .check_oracle = 1 };
	struct rp_run_result res;
	struct rp_trace_info info;
	sqlite3 *db;
	int rc;

	if (rp_policy_parse("order0", &pol) || ftdb_open(path, FTDB_READONLY, &db))
		return -1;
	rc = rp_replay_db(db, 1, &o, &res, &info);
	ftdb_close(db);
	if (rc) {
		diag("replay: %s", error_text());
		return -1;
	}
	return (int64_t)res.total.v[RP_M_PCP_REFILLS];
}

int main(void)
{
	char dir[] = "/tmp/ft-replay-outside-XXXXXX";
	struct strbuf a = STRBUF_INIT;
	int64_t n;

	plan(3);
	if (gen_tmp_db(dir, &a, make_db))
		return 1;
	n = refills(a.buf, 12);
	ok(n == 1, "process 2 alone: %lld refill (the list holds what 1 and its child freed)",
	   (long long)n);
	n = refills(a.buf, -1);
	ok(n == 3, "the whole trace: %lld refills", (long long)n);
	n = refills(a.buf, 11);
	ok(n == 2, "process 1 (and its child, a shadow): %lld refills", (long long)n);

	unlink(a.buf);
	rmdir(dir);
	strbuf_release(&a);
	return done_testing();
}
