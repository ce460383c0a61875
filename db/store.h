/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - the collector's writes to the trace database: one IMMEDIATE transaction per
 * ingested trace, prepared statements only, no per-fault SQL (faults go into event_chunk
 * blobs). Commit makes the whole trace appear at once; anything else rolls it back, so a
 * trace row is never visible half-filled.
 */
#ifndef FT_DB_STORE_H
#define FT_DB_STORE_H

#include <stdint.h>
#include <sqlite3.h>

#include "db/stream.h"

enum store_stmt {
	ST_CHUNK, ST_ZAP, ST_META, ST_PROC, ST_VMA, ST_COUNT, ST_ORDER, ST_SYS_EXIT,
	ST_NR
};

struct ftdb_store {
	sqlite3 *db;
	const char *path;		/* database path, for messages */
	sqlite3_stmt *st[ST_NR];	/* prepared once per trace */
	int in_txn;			/* 1 between ftdb_store_begin() and commit/rollback */
	int64_t trace_id;		/* row being filled */
	uint32_t proc_base;		/* first free process.proc_id */
	uint32_t vma_base;		/* first free vma.vma_id */
	int64_t chunk;			/* next event_chunk.chunk */
	uint64_t *beat;			/* if set, bumped per row written and per busy wait */
};

/* Open (creating or migrating) the database; Return: 0 or -1. */
int ftdb_store_open(struct ftdb_store *s, const char *path);
/* Roll back anything uncommitted and close. */
void ftdb_store_close(struct ftdb_store *s);

/*
 * store_begin - start the transaction and claim the trace identity.
 * Return: 0 and s->trace_id of a new row, 1 and s->trace_id of the row already holding
 * uuid (nothing to do; the transaction is closed), or -1.
 */
int ftdb_store_begin(struct ftdb_store *s, const char *uuid, const char *path);
int ftdb_store_meta(struct ftdb_store *s, const char *key, const char *value);
/* Set a trace column from a header value (text; SQLite's affinity makes numbers integers). */
int ftdb_store_trace_column(struct ftdb_store *s, const char *column, const char *value);
int ftdb_store_trace_int(struct ftdb_store *s, const char *column, int64_t value);
int ftdb_store_chunk(struct ftdb_store *s, const struct ftdb_enc *enc, uint64_t first_seq);
int ftdb_store_zap(struct ftdb_store *s, uint64_t seq, const struct ftdb_event *ev);
int ftdb_store_count(struct ftdb_store *s, const char *name, uint64_t count);
int ftdb_store_order(struct ftdb_store *s, unsigned int order, int zero_page, uint64_t faults,
		uint64_t ptes);
int ftdb_store_proc(struct ftdb_store *s, uint32_t proc_id, int32_t pid, uint64_t mm, const char *comm,
	       int64_t parent_proc_id, uint64_t first_ts, uint64_t last_ts,
	       const uint64_t counts[4], int workload);
int ftdb_store_vma(struct ftdb_store *s, uint32_t vma_id, uint32_t proc_id, uint64_t start,
	      uint64_t end, uint64_t flags, uint64_t first_ts, uint64_t faults);
/* A system call's exit (sys_exit): ts ns, thread, call name, return value. */
int ftdb_store_sys_exit(struct ftdb_store *s, uint64_t ts, int32_t tid, const char *call, int64_t ret);
int ftdb_store_commit(struct ftdb_store *s);
void ftdb_store_rollback(struct ftdb_store *s);

#endif /* FT_DB_STORE_H */
