// SPDX-License-Identifier: GPL-2.0
/* costs.c - the cost_model table; see costs.h. */
#include <stdio.h>

#include "db/costs.h"
#include "lib/error.h"

static void bind_key(sqlite3_stmt *st, const struct ftdb_cost_row *r)
{
	sqlite3_bind_text(st, 1, r->arch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->accel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->clock, -1, SQLITE_STATIC);
}

int ftdb_cost_store(sqlite3 *db, const struct ftdb_cost_row *r)
{
	sqlite3_stmt *st;
	int k, rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO cost_model(arch, kernel, accel, clock, "
			       "new_ns, byte_ns, pte_ns, zero_ns, zero_wp_ns, cow_ns, large_ns, "
			       "cold_ns, table_ns, cow_large_ns, refill_ns, refill_block_ns, buddy_ns, "
			       "samples, traces, fitted_at, tool_version) VALUES (?1, ?2, ?3, ?4, "
			       "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
			       "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?20)",
			       -1, &st, NULL) != SQLITE_OK)
		return fail("cannot store the cost model: %s", sqlite3_errmsg(db));
	bind_key(st, r);
	for (k = 0; k < FTDB_COST_COLS; k++)
		if (r->has[k])
			sqlite3_bind_double(st, 5 + k, r->c[k]);
		else
			sqlite3_bind_null(st, 5 + k);
	sqlite3_bind_int64(st, 5 + FTDB_COST_COLS, r->samples);
	sqlite3_bind_int64(st, 6 + FTDB_COST_COLS, r->traces);
	sqlite3_bind_text(st, 7 + FTDB_COST_COLS, FT_VERSION, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("cannot store the cost model: %s", sqlite3_errmsg(db));
	return 0;
}

int ftdb_cost_get(sqlite3 *db, struct ftdb_cost_row *r)
{
	sqlite3_stmt *st;
	int k, rc;

	if (sqlite3_prepare_v2(db, "SELECT new_ns, byte_ns, pte_ns, zero_ns, zero_wp_ns, cow_ns, "
			       "large_ns, cold_ns, table_ns, cow_large_ns, refill_ns, "
			       "refill_block_ns, buddy_ns, samples, traces FROM cost_model "
			       "WHERE arch = ?1 AND kernel = ?2 AND accel = ?3 AND clock = ?4",
			       -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read cost_model: %s", sqlite3_errmsg(db));
	bind_key(st, r);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		for (k = 0; k < FTDB_COST_COLS; k++) {
			r->has[k] = sqlite3_column_type(st, k) != SQLITE_NULL;
			r->c[k] = sqlite3_column_double(st, k);
		}
		r->samples = sqlite3_column_int64(st, FTDB_COST_COLS);
		r->traces = sqlite3_column_int64(st, FTDB_COST_COLS + 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail("cannot read cost_model: %s", sqlite3_errmsg(db));
	return rc == SQLITE_ROW;
}

int ftdb_cost_other_clock(sqlite3 *db, const struct ftdb_cost_row *r, char *other, size_t n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT clock FROM cost_model WHERE arch = ?1 AND kernel = ?2 "
			       "AND accel = ?3 AND clock <> ?4 ORDER BY clock LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return fail("cannot read cost_model: %s", sqlite3_errmsg(db));
	bind_key(st, r);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(other, n, "%s", sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail("cannot read cost_model: %s", sqlite3_errmsg(db));
	return rc == SQLITE_ROW;
}

int ftdb_cost_latest_kernel(sqlite3 *db, const char *arch, const char *accel,
			    const char *clock, char *kernel, size_t n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT kernel FROM cost_model WHERE arch = ?1 AND accel = ?2 "
			       "AND clock = ?3 ORDER BY fitted_at DESC, kernel DESC LIMIT 1", -1,
			       &st, NULL) != SQLITE_OK)
		return fail("cannot read cost_model: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, arch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, accel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, clock, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(kernel, n, "%s", sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail("cannot read cost_model: %s", sqlite3_errmsg(db));
	return rc == SQLITE_ROW;
}
