/* SPDX-License-Identifier: GPL-2.0 */
/*
 * costfit.h - the cost-model unit tests' pieces (cost-table.c, cost-cow.c, cost-refill.c,
 * replay-outside.c): a hand-made
 * event stream with timestamps 1000 ns apart, stored as trace 1 of a new icount database
 * (tests/unit/chunkdb.h), and the fit calibrate makes of it.
 */
#ifndef FT_TESTS_UNIT_COSTFIT_H
#define FT_TESTS_UNIT_COSTFIT_H

#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/cost.h"
#include "tests/unit/chunkdb.h"
#include "tests/unit/tap.h"

struct gen {
	struct ftdb_enc enc;
	uint64_t ts;
};

static inline void ev_add(struct gen *g, struct ftdb_event ev)
{
	ev.ts = g->ts += 1000;
	ftdb_enc_add(&g->enc, &ev);
}

/* A zap of [a, b) of proc's address space for cause (enum ftdb_zap_cause). */
static inline void gen_zap(struct gen *g, uint32_t proc, uint64_t a, uint64_t b,
			   unsigned int cause)
{
	ev_add(g, (struct ftdb_event){ .kind = FTDB_EV_ZAP, .proc_id = proc, .addr = a,
				       .end = b, .reason = (uint8_t)cause });
}

/*
 * Create path with trace 1 (x86_64, 6.1.0-test, icount) and processes 1..nr_procs (pid
 * 10 + i, mm i), and start the stream. Return: the open database, or NULL.
 */
static inline sqlite3 *gen_open(const char *path, struct gen *g, unsigned int nr_procs)
{
	sqlite3 *db;
	unsigned int i;
	int rc;

	if (ftdb_open(path, FTDB_CREATE, &db))
		return NULL;
	rc = ftdb_exec(db, "BEGIN; INSERT INTO trace(trace_id, uuid, page_size, arch, kernel, "
		       "clocksource, clock, last_ts, ingested_at, tool_version) VALUES (1, 'a', "
		       "4096, 'x86_64', '6.1.0-test', 'tsc', 'icount', 9000, 'x', 'y');");
	for (i = 1; !rc && i <= nr_procs; i++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "INSERT INTO process(proc_id, trace_id, pid, mm) "
			 "VALUES (%u, 1, %u, %u);", i, 10 + i, i);
		rc = ftdb_exec(db, sql);
	}
	if (rc) {
		ftdb_close(db);
		return NULL;
	}
	g->ts = 0;
	ftdb_enc_init(&g->enc);
	return db;
}

/* Store the stream as trace 1's events, commit and close. Return: 0 or -1. */
static inline int gen_close(sqlite3 *db, struct gen *g)
{
	int rc = chunkdb_store(db, &g->enc, 1000, (int64_t)g->ts);

	if (!rc)
		rc = ftdb_exec(db, "COMMIT");
	ftdb_enc_release(&g->enc);
	ftdb_close(db);
	return rc ? -1 : 0;
}

/*
 * gen_tmp_db - a new directory from the mkdtemp() template dir, and path set to its t.db,
 * made by make(path). Return: 0, or -1 with a diag() line.
 */
static inline int gen_tmp_db(char *dir, struct strbuf *path, int (*make)(const char *path))
{
	if (!mkdtemp(dir)) {
		diag("cannot make a directory from %s", dir);
		return -1;
	}
	strbuf_reset(path);
	strbuf_addf(path, "%s/t.db", dir);
	if (make(path->buf)) {
		diag("cannot make the trace: %s", error_text());
		return -1;
	}
	return 0;
}

/* calibrate's fit of trace 1 of path into m. Return: 0 or non-zero. */
static inline int fit(const char *path, struct rp_cost *m)
{
	struct rp_cost_samples *s = rp_cost_samples_new();
	sqlite3 *db;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (!ftdb_open(path, FTDB_READONLY, &db)) {
		rc = rp_cost_trace_key(db, 1, &m->key) || rp_cost_samples_add(s, db, 1) ||
		     rp_cost_fit(s, m);
		ftdb_close(db);
	}
	rp_cost_samples_free(s);
	return rc;
}

#endif /* FT_TESTS_UNIT_COSTFIT_H */
