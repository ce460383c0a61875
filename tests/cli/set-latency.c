// SPDX-License-Identifier: GPL-2.0
/*
 * set-latency.c - damage a trace database for tests/cli/hostile-json.sh: give the first N
 * anon_fault records of trace 1 the latency_ns VALUE (decimal u64), re-encoding the event
 * chunks in place. Built by the test that needs it, not part of foliotrace.
 *
 *	set-latency DB N VALUE
 */
#include <stdio.h>
#include <stdlib.h>

#include "db/ftdb.h"
#include "lib/error.h"

int main(int argc, char **argv)
{
	sqlite3_stmt *rd, *wr;
	struct ftdb_event ev;
	struct ftdb_dec dec;
	struct ftdb_enc enc;
	sqlite3 *db;
	long left;
	unsigned long long value;

	if (argc != 4) {
		fprintf(stderr, "usage: set-latency DB N VALUE\n");
		return 2;
	}
	left = atol(argv[2]);
	value = strtoull(argv[3], NULL, 10);
	if (ftdb_open(argv[1], FTDB_WRITE, &db) || ftdb_exec(db, "BEGIN")) {
		error_print("set-latency");
		return 1;
	}
	if (sqlite3_prepare_v2(db, "SELECT chunk, data FROM event_chunk WHERE trace_id = 1 "
			       "ORDER BY chunk", -1, &rd, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE event_chunk SET data = ?2 WHERE trace_id = 1 AND "
			       "chunk = ?1", -1, &wr, NULL) != SQLITE_OK) {
		fprintf(stderr, "set-latency: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	ftdb_enc_init(&enc);
	while (sqlite3_step(rd) == SQLITE_ROW) {
		ftdb_enc_reset(&enc);
		ftdb_dec_init(&dec, sqlite3_column_blob(rd, 1), (size_t)sqlite3_column_bytes(rd, 1));
		while (ftdb_dec_next(&dec, &ev) == 1) {
			if (ev.kind == FTDB_EV_FAULT && left > 0) {
				ev.aux = value;
				left--;
			}
			if (ftdb_enc_add(&enc, &ev))
				return 1;
		}
		sqlite3_reset(wr);
		sqlite3_bind_int64(wr, 1, sqlite3_column_int64(rd, 0));
		sqlite3_bind_blob(wr, 2, enc.buf, (int)enc.len, SQLITE_STATIC);
		if (sqlite3_step(wr) != SQLITE_DONE) {
			fprintf(stderr, "set-latency: %s\n", sqlite3_errmsg(db));
			return 1;
		}
	}
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	ftdb_enc_release(&enc);
	if (ftdb_exec(db, "COMMIT")) {
		error_print("set-latency");
		return 1;
	}
	ftdb_close(db);
	return 0;
}
