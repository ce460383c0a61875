// SPDX-License-Identifier: GPL-2.0
/*
 * sites-procs.c - fault attribution of the call-site side file (tracer/sites.c) with many
 * processes, as a `make -j` of a big tree has: NR_PROCS traced processes in a database
 * made here, half of them mapping a range with one mmap each, the other half forked from
 * them (the fork copies the parent's map). Each parent writes one page of its range, each
 * child another page of the range it inherited, and every process one page nothing maps;
 * one more process the tracer did not trace faults too. The calls return to NR_STACKS
 * addresses, so NR_STACKS stacks are stored, once each. Expected, from that construction:
 * every mmap row has 2 faults and 2 touched pages, every process one '[no call]' row with
 * 1 fault, the untraced process none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "db/stream.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "tests/unit/chunkdb.h"
#include "tests/unit/tap.h"
#include "tracer/sites.h"

#define NR_PROCS 6000		/* NR_PROCS / 2 parents, as many children */
#define PID0 1000		/* pid of process i: PID0 + i; proc_id i + 1 */
#define BASE 0x10000000ULL	/* parent i's range: BASE + i MiB, 64K long */
#define NOWHERE 0x7000000000ULL	/* no call maps it */
#define NR_STACKS 7		/* parent i's call returns to make_room + 0x20 + i % NR_STACKS */

/* The side file: one call per parent, then the forks (times: the trace clock, offset 0). */
static int write_side(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	int i, n = NR_PROCS / 2, rc;

	strbuf_addstr(&sb, "V\t1\t1\n");
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "C\t%d\t%d\t%d\tmmap\t0\t10000\t3\t22\tffffffff\t0\t%llu\t1\tok\n"
			    "F\t%x\t/usr/bin/cc1\t%x\tmake_room\t%x\n", 1000 + i, PID0 + i,
			    PID0 + i, (unsigned long long)(BASE + ((uint64_t)i << 20)),
			    0x401220 + i % NR_STACKS, 0x1220 + i % NR_STACKS, 0x20 + i % NR_STACKS);
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "K\t%d\t%d\t%d\tfork\n", 100000 + i, PID0 + i, PID0 + n + i);
	f = fopen(path, "w");
	rc = !f || fwrite(sb.buf, 1, sb.len, f) != sb.len;
	if (f && fclose(f))
		rc = 1;
	strbuf_release(&sb);
	return rc ? fail("cannot write %s", path) : 0;
}

static void fault(struct ftdb_enc *enc, uint64_t *ts, uint32_t proc_id, uint64_t addr)
{
	struct ftdb_event ev = { .kind = FTDB_EV_FAULT, .nr_ptes = 1, .flags = FTDB_EVF_WRITE };

	ev.ts = (*ts)++;
	ev.proc_id = proc_id;
	ev.addr = addr;
	ftdb_enc_add(enc, &ev);
}

/* The trace: processes (and one untraced), and the faults after every side-file record. */
static int make_db(const char *path)
{
	struct ftdb_enc enc;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t ts = 200000;
	int i, n = NR_PROCS / 2, rc;

	if (ftdb_open(path, FTDB_CREATE, &db))
		return -1;
	rc = ftdb_exec(db, "BEGIN; INSERT INTO trace(trace_id, uuid, page_size, last_ts, "
		       "ingested_at, tool_version) VALUES (1, 'a', 4096, 900000, 'x', 'y'); "
		       "INSERT INTO trace_meta VALUES (1, 'clock_offset_ns', '0')");
	if (!rc && sqlite3_prepare_v2(db, "INSERT INTO process(proc_id, trace_id, pid, mm) "
				      "VALUES (?1, 1, ?2, ?1)", -1, &st, NULL) == SQLITE_OK) {
		for (i = 0; i <= NR_PROCS; i++) {	/* the last: untraced */
			sqlite3_reset(st);
			sqlite3_bind_int(st, 1, i + 1);
			sqlite3_bind_int(st, 2, i < NR_PROCS ? PID0 + i : 99999);
			rc |= sqlite3_step(st) != SQLITE_DONE;
		}
		sqlite3_finalize(st);
	} else {
		rc = 1;
	}
	ftdb_enc_init(&enc);
	for (i = 0; i < n; i++)		/* parents: page 0 of their range */
		fault(&enc, &ts, (uint32_t)i + 1, BASE + ((uint64_t)i << 20));
	for (i = 0; i < n; i++)		/* children: page 1 of the parent's */
		fault(&enc, &ts, (uint32_t)(n + i) + 1, BASE + ((uint64_t)i << 20) + 4096);
	for (i = 0; i <= NR_PROCS; i++)
		fault(&enc, &ts, (uint32_t)i + 1, NOWHERE);
	if (!rc)
		rc = chunkdb_store(db, &enc, 200000, (int64_t)ts - 1);
	if (!rc)
		rc = ftdb_exec(db, "COMMIT");
	else
		fail("%s", sqlite3_errmsg(db));
	ftdb_enc_release(&enc);
	ftdb_close(db);
	return rc ? -1 : 0;
}

static long long count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/ft-sites-procs-XXXXXX", dbp[64], side[64];
	struct timespec t0, t1;
	sqlite3 *db;
	int rc;

	plan(7);
	if (!mkdtemp(dir) || snprintf(dbp, sizeof(dbp), "%s/x.db", dir) < 0 ||
	    snprintf(side, sizeof(side), "%s/sites.txt", dir) < 0 || write_side(side) ||
	    make_db(dbp)) {
		diag("cannot make the trace: %s", error_text());
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = ft_sites_store(dbp, 1, side, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok(!rc, "store the side file of %d processes (%.3f s)", NR_PROCS,
	   (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (rc)
		diag("%s", error_text());
	if (ftdb_open(dbp, FTDB_READONLY, &db)) {
		diag("%s", error_text());
		return 1;
	}
	is_int(count(db, "SELECT count(*) FROM site_call WHERE call = 'mmap'"), NR_PROCS / 2,
	       "one mmap row per parent");
	is_int(count(db, "SELECT count(*) FROM site_call WHERE call = 'mmap' AND faults = 2 AND "
		     "touched_pages = 2 AND site = 'make_room'"), NR_PROCS / 2,
	       "each range: its parent's fault and its child's, at the call's site");
	is_int(count(db, "SELECT count(DISTINCT pid) FROM site_call WHERE call = 'none' AND "
		     "faults = 1 AND touched_pages = 1"), NR_PROCS,
	       "each process: one fault nothing maps, on its own '[no call]' row");
	is_int(count(db, "SELECT count(*) FROM site_call WHERE call = 'none'"), NR_PROCS,
	       "no row for the untraced process, none twice");
	is_int(count(db, "SELECT count(*) FROM site_stack"), NR_STACKS,
	       "each distinct stack stored once, whichever parent made it");
	is_int(count(db, "SELECT count(*) FROM site_touch"), NR_PROCS / 2 * 2 + NR_PROCS,
	       "a touch span per owner change (every fault has another owner)");
	ftdb_close(db);
	unlink(dbp);
	unlink(side);
	rmdir(dir);
	return done_testing();
}
