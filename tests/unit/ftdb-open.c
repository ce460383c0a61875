// SPDX-License-Identifier: GPL-2.0
/*
 * ftdb-open.c - db/ftdb.c: which files each open mode accepts, that a rejected file is left
 * byte for byte as it was, that creation leaves no half-made file, trace picking, and the
 * event stream walk over stored chunks (synthetic events).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/ftdb-test.XXXXXX";

/* Kinds of file a case starts from. */
enum start { MISSING, EMPTY, TEXT, FOREIGN_SQLITE, OTHER_APP_ID, NEWER, CURRENT, OLDER };

static const char *const start_names[] = {
	"missing file", "empty file", "text file", "SQLite file of another program",
	"SQLite file with another application_id", "newer foliotrace database",
	"current foliotrace database", "foliotrace database at version 0",
};

static void sh(const char *fmt, const char *path)
{
	struct strbuf cmd = STRBUF_INIT;

	strbuf_addf(&cmd, fmt, path);
	if (system(cmd.buf))
		diag("command failed: %s", cmd.buf);
	strbuf_release(&cmd);
}

static void make_file(enum start s, const char *path)
{
	sqlite3 *db;
	char sql[128];

	unlink(path);
	switch (s) {
	case MISSING:
		break;
	case EMPTY:
		sh(": > %s", path);
		break;
	case TEXT:
		sh("echo 'not a database' > %s", path);
		break;
	case FOREIGN_SQLITE:
	case OTHER_APP_ID:
	case NEWER:
	case OLDER:
		sqlite3_open(path, &db);
		if (s == FOREIGN_SQLITE)
			sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
		if (s == OTHER_APP_ID)
			sqlite3_exec(db, "PRAGMA application_id = 305419896; CREATE TABLE t(x)",
				     NULL, NULL, NULL);
		if (s == NEWER || s == OLDER) {
			snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; "
				 "PRAGMA user_version = %d; CREATE TABLE later(x)",
				 FTDB_APPLICATION_ID, s == NEWER ? ftdb_schema_version() + 1 : 0);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
			if (s == OLDER)
				sqlite3_exec(db, "DROP TABLE later", NULL, NULL, NULL);
		}
		sqlite3_close(db);
		break;
	case CURRENT:
		if (ftdb_open(path, FTDB_CREATE, &db) == 0)
			ftdb_close(db);
		break;
	}
}

static int read_all(const char *path, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (access(path, F_OK))
		return 1;	/* missing */
	return strbuf_read_file(sb, path);
}

/* Files in dir other than the known ones: leftovers of a failed creation. */
static int stray_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "db"))
			n++;
	closedir(d);
	return n;
}

static const struct {
	enum start start;
	int flags;
	int ok;		/* open must succeed */
} cases[] = {
	{ MISSING, FTDB_READONLY, 0 },
	{ MISSING, FTDB_WRITE, 0 },
	{ MISSING, FTDB_CREATE, 1 },
	{ EMPTY, FTDB_READONLY, 0 },
	{ EMPTY, FTDB_CREATE, 1 },
	{ TEXT, FTDB_READONLY, 0 },
	{ TEXT, FTDB_WRITE, 0 },
	{ TEXT, FTDB_CREATE, 0 },
	{ FOREIGN_SQLITE, FTDB_READONLY, 0 },
	{ FOREIGN_SQLITE, FTDB_CREATE, 0 },
	{ OTHER_APP_ID, FTDB_WRITE, 0 },
	{ OTHER_APP_ID, FTDB_CREATE, 0 },
	{ NEWER, FTDB_READONLY, 0 },
	{ NEWER, FTDB_WRITE, 0 },
	{ NEWER, FTDB_CREATE, 0 },
	{ CURRENT, FTDB_READONLY, 1 },
	{ CURRENT, FTDB_WRITE, 1 },
	{ OLDER, FTDB_READONLY, 0 },
	{ OLDER, FTDB_WRITE, 1 },
};

static const char *mode_name(int flags)
{
	return flags == FTDB_READONLY ? "read-only" : flags == FTDB_WRITE ? "write" : "create";
}

static int64_t one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) ==
	    SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int count_cb(const struct ftdb_event *ev, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

static void stream_cases(const char *path)
{
	struct ftdb_event ev = { .kind = FTDB_EV_FAULT, .nr_ptes = 1, .flags = FTDB_EVF_WRITE };
	struct ftdb_enc enc;
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t id = 0;
	int i, n = 0;

	make_file(CURRENT, path);
	ftdb_open(path, FTDB_WRITE, &db);
	is_int(ftdb_pick_trace(db, 0, &id), -1, "pick_trace: no trace is an error");
	error_clear();
	ftdb_exec(db, "INSERT INTO trace(trace_id, uuid, ingested_at, tool_version) VALUES "
		  "(1, 'a', 'x', 'y'), (2, 'b', 'x', 'y'), (3, 'c', 'x', 'y');"
		  "UPDATE trace SET parent_trace_id = 1 WHERE trace_id = 3");
	ok(!ftdb_pick_trace(db, 0, &id) && id == 2, "pick_trace: newest non-replay trace");
	ok(!ftdb_pick_trace(db, 3, &id) && id == 3, "pick_trace: the given id");
	is_int(ftdb_pick_trace(db, 9, &id), -1, "pick_trace: unknown id is an error");
	error_clear();

	/* two synthetic chunks of 1000 faults each */
	ftdb_enc_init(&enc);
	sqlite3_prepare_v2(db, "INSERT INTO event_chunk VALUES (2, ?1, ?2, ?3, 0, 0, ?4)", -1,
			   &st, NULL);
	for (i = 0; i < 2000; i++) {
		ev.ts += 1000;
		ev.addr += 4096;
		ftdb_enc_add(&enc, &ev);
		if (enc.nr == 1000) {
			sqlite3_bind_int(st, 1, i / 1000);
			sqlite3_bind_int(st, 2, i / 1000 * 1000);
			sqlite3_bind_int(st, 3, 1000);
			sqlite3_bind_blob(st, 4, enc.buf, (int)enc.len, SQLITE_TRANSIENT);
			sqlite3_step(st);
			sqlite3_reset(st);
			ftdb_enc_reset(&enc);
		}
	}
	sqlite3_finalize(st);
	ftdb_enc_release(&enc);
	i = ftdb_stream_foreach(db, 2, count_cb, &n);
	ok(!i && n == 2000, "stream_foreach: all synthetic events of two chunks (%d)", n);
	ftdb_exec(db, "UPDATE event_chunk SET data = substr(data, 1, 100) WHERE chunk = 1");
	n = 0;
	is_int(ftdb_stream_foreach(db, 2, count_cb, &n), -1, "stream_foreach: truncated chunk");
	diag("%s", error_text());
	error_clear();
	ftdb_close(db);
}

int main(void)
{
	struct strbuf path = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	size_t i;

	if (!mkdtemp(dir))
		return 1;
	strbuf_addf(&path, "%s/db", dir);
	plan((int)(2 * sizeof(cases) / sizeof(cases[0])) + 2 + 6);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sqlite3 *db = NULL;
		int rb, ra, rc;

		make_file(cases[i].start, path.buf);
		rb = read_all(path.buf, &before);
		rc = ftdb_open(path.buf, cases[i].flags, &db);
		ok((rc == 0) == cases[i].ok, "%s, %s: %s%s%s", start_names[cases[i].start],
		   mode_name(cases[i].flags), cases[i].ok ? "accepted" : "rejected",
		   rc ? ": " : "", rc ? error_text() : "");
		if (rc == 0) {
			ok(one_int(db, "PRAGMA application_id") == FTDB_APPLICATION_ID &&
			   one_int(db, "PRAGMA user_version") == ftdb_schema_version() &&
			   stray_files() == 0, "  ... identified, current version, no stray files");
			ftdb_close(db);
		} else {
			ra = read_all(path.buf, &after);
			ok(rb == ra && before.len == after.len &&
			   !memcmp(before.buf, after.buf, before.len) && stray_files() == 0,
			   "  ... file byte for byte as it was, no stray files");
			/* one line: no newline inside the message */
			if (strchr(error_text(), '\n'))
				diag("multi-line error");
		}
		error_clear();
	}

	/* creation that fails leaves nothing behind */
	{
		sqlite3 *db;

		ok(ftdb_open("/nonexistent-dir/x.db", FTDB_CREATE, &db) == -1 &&
		   access("/nonexistent-dir/x.db", F_OK), "create in a missing directory fails");
		error_clear();
		make_file(TEXT, path.buf);
		ftdb_open(path.buf, FTDB_READONLY, &db);
		ok(!strchr(error_text(), '\n') && strstr(error_text(), "not an SQLite"),
		   "error is one line naming the problem: %s", error_text());
		error_clear();
	}
	stream_cases(path.buf);
	sh("rm -rf %s", dir);
	strbuf_release(&path);
	strbuf_release(&before);
	strbuf_release(&after);
	return done_testing();
}
