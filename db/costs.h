/* SPDX-License-Identifier: GPL-2.0 */
/*
 * costs.h - the cost_model table (schema 4, keyed by clock since schema 7): one fitted
 * fault cost model per (arch, kernel, accelerator, clock), stored by `calibrate` and read
 * by replay (replay/cost.h fits and applies them; docs/cost-model.md). The coefficients
 * are in the table's column order: new_ns, byte_ns, pte_ns, zero_ns, zero_wp_ns, cow_ns,
 * large_ns (schema 9), cold_ns (schema 10), table_ns (schema 11), cow_large_ns
 * (schema 12), refill_ns (schema 13), refill_block_ns and buddy_ns (schema 14).
 */
#ifndef FT_DB_COSTS_H
#define FT_DB_COSTS_H

#include <stdint.h>
#include <sqlite3.h>

#define FTDB_COST_COLS 13	/* coefficient columns */

struct ftdb_cost_row {
	const char *arch, *kernel, *accel, *clock;	/* the key */
	double c[FTDB_COST_COLS];	/* ns, ns per byte (byte_ns); 0 where !has */
	int has[FTDB_COST_COLS];	/* 0: NULL, not fitted */
	int64_t samples;		/* records the fit used */
	int64_t traces;			/* traces they came from */
};

/* Store r, replacing the row of its key. Return: 0, or -1 with fail(). */
int ftdb_cost_store(sqlite3 *db, const struct ftdb_cost_row *r);

/*
 * ftdb_cost_get - the row of r's key into r's coefficients, samples and traces.
 * Return: 1 found, 0 none, -1 with fail().
 */
int ftdb_cost_get(sqlite3 *db, struct ftdb_cost_row *r);

/*
 * ftdb_cost_other_clock - the clock of a model of r's arch, kernel and accel fitted on
 * another clock than r's, into other (n bytes). Return: 1 if there is one, 0, or -1.
 */
int ftdb_cost_other_clock(sqlite3 *db, const struct ftdb_cost_row *r, char *other, size_t n);

/*
 * ftdb_cost_latest_kernel - the kernel of the row of (arch, accel, clock) fitted last
 * (fitted_at, then kernel), into kernel (n bytes). Return: 1, 0 if there is none, or -1.
 */
int ftdb_cost_latest_kernel(sqlite3 *db, const char *arch, const char *accel,
			    const char *clock, char *kernel, size_t n);

#endif /* FT_DB_COSTS_H */
