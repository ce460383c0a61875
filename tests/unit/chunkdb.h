/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chunkdb.h - store a hand-made event stream as a trace's one chunk, for the unit tests
 * that build a trace database without ingest (sites-procs.c, sites-sysexit.c).
 */
#ifndef FT_TESTS_UNIT_CHUNKDB_H
#define FT_TESTS_UNIT_CHUNKDB_H

#include <stdint.h>
#include <sqlite3.h>

#include "db/stream.h"

/*
 * Store enc as chunk 0 of trace 1 (its events from stream position 0), its first and
 * last events at first_ts and last_ts (ns). Return: 0, or 1 on an SQLite failure.
 */
static inline int chunkdb_store(sqlite3 *db, const struct ftdb_enc *enc, int64_t first_ts,
				int64_t last_ts)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT INTO event_chunk VALUES (1, 0, 0, ?1, ?2, ?3, ?4)",
			       -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int(st, 1, (int)enc->nr);
	sqlite3_bind_int64(st, 2, first_ts);
	sqlite3_bind_int64(st, 3, last_ts);
	sqlite3_bind_blob(st, 4, enc->buf, (int)enc->len, SQLITE_STATIC);
	rc = sqlite3_step(st) != SQLITE_DONE;
	sqlite3_finalize(st);
	return rc;
}

#endif /* FT_TESTS_UNIT_CHUNKDB_H */
