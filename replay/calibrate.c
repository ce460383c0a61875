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
	struct rp_cost_key key;
	int64_t *ids = NULL;
	size_t nr, i;
	sqlite3 *db;
	int ret = -1;

	if (ftdb_open(path, FTDB_READONLY, &db))
		return -1;
	if (ftdb_recordings(db, 1, &ids, &nr))	/* every trace: guest replays measure too */
		goto out;
	for (i = 0; i < nr; i++) {
		memset(&key, 0, sizeof(key));
		if (rp_cost_trace_key(db, ids[i], &key) ||
		    rp_cost_samples_add(fit_for(fs, &key)->s, db, ids[i]))
			goto out;
	}
	ret = 0;
out:
	free(ids);
	ftdb_close(db);
	if (ret)
		fail("%s", path);
	return ret;
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
	memset(fs, 0, sizeof(*fs));
}
