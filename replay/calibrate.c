// SPDX-License-Identifier: GPL-2.0
/* calibrate.c - cost models fitted per key from several databases; see calibrate.h. */
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/calibrate.h"

static struct rp_fit *fit_for(struct rp_calibration *fs, const struct rp_cost_key *key)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (!memcmp(&fs->f[i].m.key, key, sizeof(*key)))
			return &fs->f[i];
	XGROW(fs->f, fs->cap, fs->n + 1);
	memset(&fs->f[fs->n], 0, sizeof(fs->f[fs->n]));
	fs->f[fs->n].m.key = *key;
	fs->f[fs->n].s = rp_cost_samples_new();
	return &fs->f[fs->n++];
}

int rp_calibrate_add_db(struct rp_calibration *fs, const char *path)
{
	struct ftdb_trace tr;
	int64_t *ids = NULL;
	size_t nr, i;
	sqlite3 *db;
	int ret = -1;

	if (ftdb_open(path, FTDB_READONLY, &db))
		return -1;
	if (ftdb_recordings(db, 1, &ids, &nr))	/* every trace: guest replays measure too */
		goto out;
	XGROW(fs->dbs, fs->cap_dbs, fs->nr_dbs + 1);
	fs->dbs[fs->nr_dbs] = xstrdup(path);
	for (i = 0; i < nr; i++) {
		if (ftdb_trace_get(db, ids[i], &tr))
			goto out;
		XGROW(fs->t, fs->cap_t, fs->nr_t + 1);
		fs->t[fs->nr_t++] = (struct rp_cal_trace){
			.db = fs->nr_dbs, .trace_id = ids[i], .uuid = xstrdup(tr.uuid),
			.partial = tr.partial,
		};
		ftdb_trace_release(&tr);
	}
	fs->nr_dbs++;
	ret = 0;
out:
	free(ids);
	ftdb_close(db);
	if (ret)
		fail("%s", path);
	return ret;
}

static int by_uuid(const void *a, const void *b)
{
	const struct rp_cal_trace *x = *(struct rp_cal_trace *const *)a;
	const struct rp_cal_trace *y = *(struct rp_cal_trace *const *)b;
	int c = strcmp(x->uuid, y->uuid);

	if (c)
		return c;
	/* then the order added (x and y point into one array: database, trace id) */
	return x < y ? -1 : x > y;
}

/*
 * Mark the copies to read: per UUID, the first complete copy (the first partial one when
 * there is none), and with with_partial the partial copies beside a complete one too. A
 * trace without a UUID cannot be matched and is always read. O(n log n) in traces.
 */
static void choose(struct rp_calibration *fs)
{
	struct rp_cal_trace **p = xcalloc(fs->nr_t ? fs->nr_t : 1, sizeof(*p));
	size_t i, j, k;

	for (i = 0; i < fs->nr_t; i++)
		p[i] = &fs->t[i];
	qsort(p, fs->nr_t, sizeof(*p), by_uuid);
	fs->skipped = 0;
	for (i = 0; i < fs->nr_t; i = j) {
		struct rp_cal_trace *first = NULL;

		for (j = i; j < fs->nr_t && !strcmp(p[j]->uuid, p[i]->uuid); j++)
			if (!first && !p[j]->partial)
				first = p[j];
		if (!first)
			first = p[i];
		for (k = i; k < j; k++) {
			p[k]->use = !*p[k]->uuid || p[k] == first ||
				    (fs->with_partial && p[k]->partial && !first->partial);
			fs->skipped += !p[k]->use;
		}
	}
	free(p);
}

/* Read the samples of the chosen copies, one database open at a time. */
static int read_samples(struct rp_calibration *fs)
{
	struct rp_cost_key key;
	size_t d, i;
	sqlite3 *db = NULL;

	for (d = 0; d < fs->nr_dbs; d++) {
		for (i = 0; i < fs->nr_t; i++) {
			if (fs->t[i].db != d || !fs->t[i].use)
				continue;
			if (!db && ftdb_open(fs->dbs[d], FTDB_READONLY, &db))
				return fail("%s", fs->dbs[d]);
			memset(&key, 0, sizeof(key));
			if (rp_cost_trace_key(db, fs->t[i].trace_id, &key) ||
			    rp_cost_samples_add(fit_for(fs, &key)->s, db, fs->t[i].trace_id)) {
				ftdb_close(db);
				return fail("%s", fs->dbs[d]);
			}
		}
		if (db)
			ftdb_close(db);
		db = NULL;
	}
	return 0;
}

int rp_calibrate_store(const struct rp_calibration *fs, const char *path)
{
	sqlite3 *db;
	size_t i;
	int ret = -1;

	if (ftdb_open(path, FTDB_WRITE, &db))
		return -1;
	if (ftdb_exec(db, "BEGIN IMMEDIATE"))
		goto out;
	for (i = 0; i < fs->n; i++)
		if (rp_cost_store(db, &fs->f[i].m)) {
			ftdb_rollback(db);
			goto out;
		}
	if (ftdb_exec(db, "COMMIT")) {
		ftdb_rollback(db);
		goto out;
	}
	ret = 0;
out:
	ftdb_close(db);
	if (ret)
		fail("%s", path);
	return ret;
}

int rp_calibrate_fit(struct rp_calibration *fs)
{
	size_t i;

	choose(fs);
	if (read_samples(fs))
		return -1;
	if (!fs->n)
		return fail("no trace to calibrate from");
	for (i = 0; i < fs->n; i++)
		if (rp_cost_fit(fs->f[i].s, &fs->f[i].m))
			return fail("%s %s %s %s", fs->f[i].m.key.arch,
				    fs->f[i].m.key.kernel, fs->f[i].m.key.accel,
				    fs->f[i].m.key.clock);
	return 0;
}

void rp_calibrate_release(struct rp_calibration *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		rp_cost_samples_free(fs->f[i].s);
	free(fs->f);
	for (i = 0; i < fs->nr_dbs; i++)
		free(fs->dbs[i]);
	free(fs->dbs);
	for (i = 0; i < fs->nr_t; i++)
		free(fs->t[i].uuid);
	free(fs->t);
	memset(fs, 0, sizeof(*fs));
}
