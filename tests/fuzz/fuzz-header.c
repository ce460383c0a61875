// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-header.c - libFuzzer harness for the trace header (tracer/header.c): the files of
 * CTF_DIR/header/, one value per file, read by ft_header_load() into trace_meta and the trace
 * columns, and the UUID-less identity ft_header_files_id().
 *
 * Input: records separated by a NUL byte, each "KEY=VALUE" (VALUE may span lines, as
 * vmstat.before does); KEY becomes header/KEY (records whose KEY is not a plain file name
 * are skipped). Every file must be stored as one trace_meta row. The database and the
 * directory are made once per run under $TMPDIR; each input is loaded in a transaction
 * that is rolled back. Built and run by tests/fuzz/run.sh.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "tracer/header.h"
#include "db/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ftdb_store st;
static char top[256], hdr[300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct strbuf db = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/ft-fuzz-header.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(top))
		abort();
	snprintf(hdr, sizeof(hdr), "%s/header", top);
	strbuf_addf(&db, "%s/t.db", top);
	if (mkdir(hdr, 0700) || ftdb_store_open(&st, db.buf)) {
		error_print("fuzz-header");
		abort();
	}
	/* every input is rolled back: no fsync, journal in memory (50 -> thousands per s) */
	if (sqlite3_exec(st.db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY", NULL,
			 NULL, NULL) != SQLITE_OK)
		abort();
	return 0;
}

static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[600];

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

/* A key the runner could have written: a plain file name. */
static int plain_name(const char *k, size_t n)
{
	size_t i;

	if (!n || n > 64 || (k[0] == '.' && (n == 1 || (n == 2 && k[1] == '.'))))
		return 0;
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", k[i]))
			return 0;
	return 1;
}

static long long meta_rows(void)
{
	sqlite3_stmt *q;
	long long n = -1;

	if (sqlite3_prepare_v2(st.db, "SELECT count(*) FROM trace_meta WHERE trace_id = ?1", -1,
			       &q, NULL) != SQLITE_OK)
		abort();
	sqlite3_bind_int64(q, 1, st.trace_id);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	long long files = 0;
	int have_kernel;
	uint64_t discarded;
	char path[400], *id;

	empty_dir(hdr);
	while (p < end) {
		const char *rec_end = memchr(p, '\0', (size_t)(end - p));
		const char *eq;
		FILE *f;

		if (!rec_end)
			rec_end = end;
		eq = memchr(p, '=', (size_t)(rec_end - p));
		if (eq && plain_name(p, (size_t)(eq - p))) {
			snprintf(path, sizeof(path), "%s/%.*s", hdr, (int)(eq - p), p);
			if (access(path, F_OK))
				files++;
			f = fopen(path, "w");
			if (!f)
				abort();
			fwrite(eq + 1, 1, (size_t)(rec_end - eq - 1), f);
			fclose(f);
		}
		p = rec_end + 1;
	}
	if (ftdb_store_begin(&st, "fuzz", top) != 0) {
		error_print("fuzz-header");
		abort();
	}
	if (ft_header_load(&st, top, &have_kernel, &discarded))
		error_clear();	/* a refusal is fine; the rollback below undoes it */
	else if (meta_rows() != files)
		abort();	/* one trace_meta row per header file */
	ftdb_store_rollback(&st);
	id = ft_header_files_id(top);
	if (!id)
		error_clear();
	free(id);
	return 0;
}
