// SPDX-License-Identifier: GPL-2.0
/*
 * synth-db.c - write a SYNTHETIC trace database (never recorded in a guest) from one of
 * replay's named synthetic streams, for the CLI tests of replay/compare/report. Built by
 * the test that needs it (tests/cli/replay.sh), not part of foliotrace.
 *
 *	synth-db OUT.db GENERATOR SEED NR_FAULTS [RECORDED_POLICY]
 *
 * Fills trace (policy = RECORDED_POLICY, default order0), trace_meta buddyinfo.before,
 * process (comm "make" for proc 1, "cc1" for the others), vma and event_chunk, as the
 * collector would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/replay.h"

#define CHECK(x) do { if (x) { error_print("synth-db"); return 1; } } while (0)

static int exec_fmt(sqlite3 *db, const char *sql)
{
	return ftdb_exec(db, sql);
}

int main(int argc, char **argv)
{
	struct rp_stream s;
	sqlite3 *db;
	sqlite3_stmt *st;
	struct ftdb_enc enc;
	uint32_t *vproc, i;
	size_t k, chunk = 0, first = 0;
	char sql[512];

	if (argc < 5) {
		fprintf(stderr, "usage: synth-db OUT.db GENERATOR SEED NR_FAULTS [POLICY]\n");
		return 2;
	}
	CHECK(rp_synth(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0), &s));
	CHECK(ftdb_open(argv[1], FTDB_CREATE, &db));
	CHECK(exec_fmt(db, "BEGIN"));
	snprintf(sql, sizeof(sql), "INSERT INTO trace(trace_id, uuid, arch, page_size, policy, "
		 "workload, events, ingested_at, tool_version) VALUES (1, 'synthetic-%s-%s', "
		 "'x86_64', 4096, '%s', 'SYNTHETIC %s stream (replay/synth.c)', %zu, "
		 "'2026-01-01T00:00:00Z', 'synth-db')", argv[2], argv[3],
		 argc > 5 ? argv[5] : "order0", argv[2], s.nr);
	CHECK(exec_fmt(db, sql));
	CHECK(exec_fmt(db, "INSERT INTO trace_meta VALUES (1, 'buddyinfo.before', "
		       "'Node 0, zone      DMA      1      1      1      0      2      1      1"
		       "      0      1      1      3\nNode 0, zone    DMA32   2000    900    400"
		       "    200     90     40     20     10      5      2    100\n')"));
	for (i = 1; i < s.nr_procs; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO process(proc_id, trace_id, pid, mm, comm) "
			 "VALUES (%u, 1, %u, %u, '%s')", i, 1000 + i, 0x1000 * i,
			 i == 1 ? "make" : "cc1");
		CHECK(exec_fmt(db, sql));
	}
	/* a VMA belongs to the first process that faults in it */
	vproc = calloc(s.nr_vmas, sizeof(*vproc));
	for (k = 0; k < s.nr; k++)
		if (s.ev[k].kind == FTDB_EV_FAULT && !vproc[s.ev[k].vma_id])
			vproc[s.ev[k].vma_id] = s.ev[k].proc_id;
	for (i = 1; i < s.nr_vmas; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO vma(vma_id, proc_id, start, end, flags, "
			 "first_ts) VALUES (%u, %u, %llu, %llu, %llu, 0)", i,
			 vproc[i] ? vproc[i] : 1, (unsigned long long)s.vmas[i].start,
			 (unsigned long long)s.vmas[i].end, (unsigned long long)s.vmas[i].flags);
		CHECK(exec_fmt(db, sql));
	}
	free(vproc);
	CHECK(sqlite3_prepare_v2(db, "INSERT INTO event_chunk VALUES (1, ?, ?, ?, ?, ?, ?)", -1,
				 &st, NULL) != SQLITE_OK);
	ftdb_enc_init(&enc);
	for (k = 0; k <= s.nr; k++) {
		if (k == s.nr || ftdb_enc_full(&enc)) {
			if (!enc.nr)
				break;
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, (int64_t)chunk++);
			sqlite3_bind_int64(st, 2, (int64_t)first);
			sqlite3_bind_int64(st, 3, enc.nr);
			sqlite3_bind_int64(st, 4, (int64_t)enc.first_ts);
			sqlite3_bind_int64(st, 5, (int64_t)enc.last_ts);
			sqlite3_bind_blob(st, 6, enc.buf, (int)enc.len, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE) {
				fprintf(stderr, "synth-db: %s\n", sqlite3_errmsg(db));
				return 1;
			}
			first = k;
			ftdb_enc_reset(&enc);
			if (k == s.nr)
				break;
		}
		CHECK(ftdb_enc_add(&enc, &s.ev[k]));
	}
	sqlite3_finalize(st);
	CHECK(exec_fmt(db, "COMMIT"));
	ftdb_enc_release(&enc);
	ftdb_close(db);
	printf("synth-db: %s: %zu events, %u processes, %u VMAs (SYNTHETIC %s stream)\n", argv[1],
	       s.nr, s.nr_procs - 1, s.nr_vmas - 1, argv[2]);
	rp_stream_release(&s);
	return 0;
}
