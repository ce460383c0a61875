/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftdb.h - the trace database: open, version check, migrations, the event stream's
 * reader. Knows the schema, knows no policy. The tables' readers and writers are beside
 * it, one module per group of tables: db/traces.h (trace), db/runs.h (replay_run and its
 * metrics), db/query.h (the views of `foliotrace query`).
 *
 * A database is identified by PRAGMA application_id = FTDB_APPLICATION_ID and versioned by
 * PRAGMA user_version (= the number of schema/NNN-*.sql files applied).
 */
#ifndef FT_DB_FTDB_H
#define FT_DB_FTDB_H

#include <stdint.h>
#include <sqlite3.h>

#include "db/stream.h"

#define FTDB_APPLICATION_ID 0x466f6c54	/* "FolT" */

enum ftdb_open_flags {
	FTDB_READONLY = 0,	/* must exist, must be at the current version; never written
				   (but a hot journal of an interrupted writer is rolled back) */
	FTDB_WRITE = 1,		/* must exist; migrated to the current version if older */
	FTDB_CREATE = 3,	/* created if missing (implies FTDB_WRITE) */
};

/*
 * ftdb_open - open (and for FTDB_WRITE, migrate) a trace database.
 *
 * Rejects, with fail() naming the problem and without writing a byte: a file that is not
 * SQLite, a SQLite file with another application_id, a database newer than this binary.
 * Migrations run in one transaction: a failure leaves the file as it was.
 * Return: 0 and *out set, or -1.
 */
int ftdb_open(const char *path, int flags, sqlite3 **out);
void ftdb_close(sqlite3 *db);

/* Schema version this binary writes. */
int ftdb_schema_version(void);

/*
 * ftdb_stream_foreach - decode a trace's event stream in recorded order and call fn for
 * each event. Stops at the first non-zero return of fn and returns it.
 * Return: 0 when all events were visited, fn's value, or -1 (fail() set: SQLite error or a
 * malformed chunk).
 */
int ftdb_stream_foreach(sqlite3 *db, int64_t trace_id,
			int (*fn)(const struct ftdb_event *ev, void *arg), void *arg);

/* Run a statement that returns no rows; Return: 0 or fail() with SQLite's message. */
int ftdb_exec(sqlite3 *db, const char *sql);

/*
 * ftdb_rollback - end a failed transaction, on an error path. Records no cause: SQLite
 * already rolled back on some errors (SQLITE_FULL, SQLITE_IOERR), and "cannot rollback -
 * no transaction is active" must not hide the error that matters (the disk is full).
 */
void ftdb_rollback(sqlite3 *db);

struct strbuf;
/*
 * ftdb_sqlite_name - append to sb the name to give SQLite for the database file path:
 * "./file:x" for "file:x", which a SQLite built to read URI filenames (Debian's is) would
 * otherwise take as a URI naming another file. Every sqlite3_open_v2() of a user's path
 * goes through it, so SQLite opens the file our checks looked at.
 */
void ftdb_sqlite_name(struct strbuf *sb, const char *path);

#endif /* FT_DB_FTDB_H */
