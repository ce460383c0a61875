// SPDX-License-Identifier: GPL-2.0
/*
 * ftdb.c - open, identify, version-check and migrate a trace database; see ftdb.h.
 *
 * The rule this file keeps: nothing is written to a file until it is known to be a
 * foliotrace database this binary may write (SQLite magic, application_id, user_version all
 * checked first), and a new database appears under its name only once its schema is
 * complete (built under a temporary name, then linked into place).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "schema.h"

#define SQLITE_MAGIC "SQLite format 3"	/* 16 bytes with its NUL, at offset 0 */

int ftdb_schema_version(void)
{
	return FT_SCHEMA_VERSION;
}

int ftdb_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fail("%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

void ftdb_rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Look at the file's first 100 bytes (the SQLite header) without SQLite: a file that is not
 * a database must not be handed to SQLite in a writable mode at all.
 * Return: 1 if the file is missing or empty, 0 if it is a foliotrace database no newer than
 * this binary, -1 (error set) otherwise.
 */
static int check_header(const char *path)
{
	unsigned char h[100];
	uint32_t app, ver;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return fail("cannot open %s: %s", path, strerror(errno));
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n < 0)
		return fail("cannot read %s: %s", path, strerror(errno));
	if (n == 0)
		return 1;
	if (n < (ssize_t)sizeof(h) || memcmp(h, SQLITE_MAGIC, sizeof(SQLITE_MAGIC)))
		return fail("%s is not a foliotrace database (not an SQLite file)", path);
	app = be32(h + 68);
	ver = be32(h + 60);
	if (app != FTDB_APPLICATION_ID)
		return fail("%s is not a foliotrace database (application_id 0x%08x, "
			     "want 0x%08x)", path, app, FTDB_APPLICATION_ID);
	if (ver > FT_SCHEMA_VERSION)
		return fail("%s has schema version %u, newer than this foliotrace (%d): "
			     "upgrade foliotrace", path, ver, FT_SCHEMA_VERSION);
	return 0;
}

static int pragma_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("%s", sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return fail("%s", sqlite3_errmsg(db));
	}
	*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* Apply every migration past the database's version, in one IMMEDIATE transaction. */
static int migrate(sqlite3 *db, const char *path)
{
	struct strbuf sql = STRBUF_INIT;
	int64_t ver, app;
	int i;

	if (ftdb_exec(db, "BEGIN IMMEDIATE"))
		return fail("cannot lock %s", path);
	/* read again under the lock: another process may have migrated meanwhile */
	if (pragma_int(db, "PRAGMA user_version", &ver) ||
	    pragma_int(db, "PRAGMA application_id", &app))
		goto fail;
	if (ver == 0 && app == 0) {
		/* brand new: only valid if it holds no table of somebody else */
		int64_t n;

		if (pragma_int(db, "SELECT count(*) FROM sqlite_schema", &n))
			goto fail;
		if (n) {
			fail("%s is not a foliotrace database (application_id 0)", path);
			goto fail;
		}
	} else if (app != FTDB_APPLICATION_ID) {
		fail("%s is not a foliotrace database (application_id 0x%08llx)", path,
		      (unsigned long long)app);
		goto fail;
	}
	if (ver > FT_SCHEMA_VERSION) {
		fail("%s has schema version %lld, newer than this foliotrace (%d): upgrade "
		      "foliotrace", path, (long long)ver, FT_SCHEMA_VERSION);
		goto fail;
	}
	if (ver == FT_SCHEMA_VERSION) {
		ftdb_rollback(db);
		return 0;
	}
	for (i = (int)ver; i < FT_SCHEMA_VERSION; i++) {
		if (ftdb_exec(db, ft_schema_migrations[i])) {
			fail("migration %03d failed", i + 1);
			goto fail;
		}
	}
	strbuf_addf(&sql, "PRAGMA application_id = %d; PRAGMA user_version = %d; COMMIT",
		    FTDB_APPLICATION_ID, FT_SCHEMA_VERSION);
	if (ftdb_exec(db, sql.buf))
		goto fail;
	strbuf_release(&sql);
	return 0;
fail:
	strbuf_release(&sql);
	ftdb_rollback(db);
	return fail("cannot migrate %s", path);
}

void ftdb_sqlite_name(struct strbuf *sb, const char *path)
{
	/* "./file:x" is always a plain path, whatever SQLite's SQLITE_USE_URI */
	if (!strncmp(path, "file:", 5))
		strbuf_addstr(sb, "./");
	strbuf_addstr(sb, path);
}

static int open_handle(const char *path, int sqflags, sqlite3 **out)
{
	struct strbuf name = STRBUF_INIT;
	sqlite3 *db = NULL;

	/* the file check_header() read, not a URI's (ftdb.h) */
	ftdb_sqlite_name(&name, path);
	if (sqlite3_open_v2(name.buf, &db, sqflags, NULL) != SQLITE_OK) {
		fail("cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		strbuf_release(&name);
		return -1;
	}
	strbuf_release(&name);
	sqlite3_extended_result_codes(db, 1);
	/* a second writer waits instead of failing at once */
	sqlite3_busy_timeout(db, 10000);
	*out = db;
	return 0;
}

/*
 * Build a new database under a private temporary name next to path (lib/outfile.h), then
 * move it into place: link() when path does not exist (so a concurrent creator's file is
 * never replaced), rename() over an empty file.
 */
static int create_new(const char *path, int replace_empty)
{
	struct outfile tmp;
	sqlite3 *db;

	if (outfile_begin(&tmp, path, "database"))
		return -1;
	/* SQLite writes the file through its own descriptor and syncs it on COMMIT */
	close(tmp.fd);
	tmp.fd = -1;
	if (open_handle(tmp.tmp.buf, SQLITE_OPEN_READWRITE, &db))
		goto fail;
	if (migrate(db, path)) {
		sqlite3_close(db);
		goto fail;
	}
	if (sqlite3_close(db) != SQLITE_OK) {
		fail("cannot close %s", tmp.tmp.buf);
		goto fail;
	}
	/* 1: created meanwhile by another process: use it */
	return outfile_commit(&tmp, path, replace_empty ? OUTFILE_RENAME : OUTFILE_LINK) < 0
		? -1 : 0;
fail:
	outfile_abort(&tmp);
	return -1;
}

/*
 * A writer killed mid-transaction leaves a hot rollback journal; a read-only handle cannot
 * roll it back and fails every read with "attempt to write a readonly database". Open the
 * database read-write just long enough for SQLite to roll the journal back on the first
 * read (SQLite alone decides whether the journal is hot: a live writer's is not), then go
 * on read-only. Return: 0 (nothing to do, or rolled back), or fail() saying what to do.
 */
static int recover_journal(const char *path)
{
	struct strbuf journal = STRBUF_INIT;
	char *dir = NULL;
	struct stat sb;
	sqlite3 *db;
	int64_t n;
	int ret = 0;

	strbuf_addf(&journal, "%s-journal", path);
	if (stat(journal.buf, &sb) || !sb.st_size)
		goto out;
	dir = xstrdup(path);
	/* rolling back rewrites the database and deletes the journal from its directory */
	if (access(path, W_OK) || access(journal.buf, W_OK) || access(dirname(dir), W_OK)) {
		ret = fail("%s has the journal of an interrupted write (%s) and this user "
			    "cannot roll it back: run any foliotrace command that writes it (e.g. "
			    "replay) as a user who may write it", path, journal.buf);
		goto out;
	}
	if (open_handle(path, SQLITE_OPEN_READWRITE, &db)) {
		ret = fail("cannot roll back the interrupted write in %s", journal.buf);
		goto out;
	}
	if (pragma_int(db, "SELECT count(*) FROM sqlite_schema", &n))
		ret = fail("cannot roll back the interrupted write in %s", journal.buf);
	sqlite3_close(db);
out:
	free(dir);
	strbuf_release(&journal);
	return ret;
}

int ftdb_open(const char *path, int flags, sqlite3 **out)
{
	sqlite3 *db = NULL;
	int64_t ver;
	int st;

	*out = NULL;
	/* before any open(): a FIFO would block it, a device must never be replaced */
	if (outfile_check_kind(path, "database") < 0)
		return -1;
	st = check_header(path);
	if (st < 0)
		return -1;
	if (st == 1) {
		struct stat sb;

		if ((flags & FTDB_CREATE) != FTDB_CREATE) {
			if (stat(path, &sb))
				return fail("cannot open %s: no such database", path);
			return fail("%s is empty, not a foliotrace database", path);
		}
		if (create_new(path, !stat(path, &sb)))
			return -1;
	}
	if (!(flags & FTDB_WRITE)) {
		if (recover_journal(path))
			return -1;
		if (open_handle(path, SQLITE_OPEN_READONLY, &db))
			return -1;
		if (pragma_int(db, "PRAGMA user_version", &ver))
			goto fail;
		if (ver != FT_SCHEMA_VERSION) {
			fail("%s has schema version %lld, this foliotrace reads %d%s", path,
			      (long long)ver, FT_SCHEMA_VERSION,
			      ver < FT_SCHEMA_VERSION ? ": open it for writing to migrate" : "");
			goto fail;
		}
		*out = db;
		return 0;
	}
	if (open_handle(path, SQLITE_OPEN_READWRITE, &db))
		return -1;
	if (migrate(db, path))
		goto fail;
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	return fail("cannot open %s", path);
}

void ftdb_close(sqlite3 *db)
{
	sqlite3_close(db);
}

int ftdb_stream_events(sqlite3 *db, int64_t trace_id, uint64_t *total)
{
	sqlite3_stmt *st;
	int rc;

	*total = 0;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(nr_events), 0) FROM event_chunk WHERE "
			       "trace_id = ?", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the event stream: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*total = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail("cannot read the event stream: %s", sqlite3_errmsg(db));
	return 0;
}

int ftdb_stream_foreach(sqlite3 *db, int64_t trace_id,
			int (*fn)(const struct ftdb_event *ev, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct ftdb_event ev;
	struct ftdb_dec dec;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT chunk, nr_events, data FROM event_chunk "
			       "WHERE trace_id = ? ORDER BY chunk", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the event stream: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t chunk = sqlite3_column_int64(st, 0);
		int64_t nr = sqlite3_column_int64(st, 1), seen = 0;
		const void *blob = sqlite3_column_blob(st, 2);
		int len = sqlite3_column_bytes(st, 2);

		ftdb_dec_init(&dec, blob, (size_t)len);
		while ((rc = ftdb_dec_next(&dec, &ev)) == 1) {
			seen++;
			ret = fn(&ev, arg);
			if (ret)
				goto out;
		}
		if (rc < 0 || seen != nr) {
			ret = fail("event chunk %lld of trace %lld is malformed", (long long)chunk,
				    (long long)trace_id);
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		ret = fail("cannot read the event stream: %s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	return ret;
}
