// SPDX-License-Identifier: GPL-2.0
/*
 * site-runs.c - per-site metrics of a run set as a site x run matrix; see site-runs.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/site-runs.h"
#include "lib/error.h"
#include "lib/xalloc.h"

static int count(sqlite3 *db, const char *sql, int64_t id, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return error("cannot read the call sites: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("cannot read the call sites: %s", sqlite3_errmsg(db));
}

int site_runs_has_sites(sqlite3 *db, int64_t trace_id)
{
	int64_t n;

	if (count(db, "SELECT EXISTS (SELECT 1 FROM site_call WHERE trace_id = ?)", trace_id, &n))
		return -1;
	return n > 0;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Index of (site, module) in sr, added if new (sites are few: grown one at a time). */
static size_t site_index(struct site_runs *sr, const char *site, const char *module)
{
	size_t i;

	for (i = 0; i < sr->nr; i++)
		if (!strcmp(sr->site[i], site) && same(sr->module[i], module))
			return i;
	sr->site = xrealloc(sr->site, (sr->nr + 1) * sizeof(*sr->site));
	sr->module = xrealloc(sr->module, (sr->nr + 1) * sizeof(*sr->module));
	sr->c = xrealloc(sr->c, (sr->nr + 1) * sr->nr_runs * sizeof(*sr->c));
	memset(&sr->c[sr->nr * sr->nr_runs], 0, sr->nr_runs * sizeof(*sr->c));
	sr->site[sr->nr] = xstrdup(site);
	sr->module[sr->nr] = module ? xstrdup(module) : NULL;
	return sr->nr++;
}

static const struct site_runs *sort_sr;
static unsigned int sort_run;

static int by_faults(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t fi = sort_sr->c[i * sort_sr->nr_runs + sort_run].faults;
	uint64_t fj = sort_sr->c[j * sort_sr->nr_runs + sort_run].faults;
	int c;

	if (fi != fj)
		return fi > fj ? -1 : 1;
	c = strcmp(sort_sr->site[i], sort_sr->site[j]);
	if (c)
		return c;
	return strcmp(sort_sr->module[i] ? sort_sr->module[i] : "",
		      sort_sr->module[j] ? sort_sr->module[j] : "");
}

/* Put the sites in by_faults() order of run r. */
static void sort_sites(struct site_runs *sr, unsigned int r)
{
	size_t *ord = xcalloc(sr->nr ? sr->nr : 1, sizeof(*ord)), i;
	char **s = xcalloc(sr->nr ? sr->nr : 1, sizeof(*s));
	char **m = xcalloc(sr->nr ? sr->nr : 1, sizeof(*m));
	struct rp_site_counters *c = xcalloc(sr->nr ? sr->nr * sr->nr_runs : 1, sizeof(*c));

	for (i = 0; i < sr->nr; i++)
		ord[i] = i;
	sort_sr = sr;
	sort_run = r;
	qsort(ord, sr->nr, sizeof(*ord), by_faults);
	for (i = 0; i < sr->nr; i++) {
		s[i] = sr->site[ord[i]];
		m[i] = sr->module[ord[i]];
		memcpy(&c[i * sr->nr_runs], &sr->c[ord[i] * sr->nr_runs],
		       sr->nr_runs * sizeof(*c));
	}
	memcpy(sr->site, s, sr->nr * sizeof(*s));
	memcpy(sr->module, m, sr->nr * sizeof(*m));
	free(sr->c);
	sr->c = c;
	free(ord);
	free(s);
	free(m);
}

int site_runs_load(sqlite3 *db, const struct run_set *rs, struct site_runs *sr)
{
	size_t n, k;
	unsigned int r;
	int has;

	memset(sr, 0, sizeof(*sr));
	sr->nr_runs = rs->nr;
	has = site_runs_has_sites(db, rs->trace_id);
	if (has <= 0)
		return has ? -1 : error("trace %lld was not recorded with --sites: it has no call "
					"sites (foliotrace record --sites)",
					(long long)rs->trace_id);
	for (r = 0; r < rs->nr; r++) {
		struct rp_stored_site *ss;

		if (rp_runs_sites(db, rs->run[r].run_id, &ss, &n))
			goto fail;
		if (!n) {
			int64_t touch;

			if (count(db, "SELECT count(*) FROM site_touch WHERE trace_id = ?",
				  rs->trace_id, &touch))
				goto fail;
			if (!touch)
				error("trace %lld's call sites were stored before per-site "
				      "attribution (schema 5): ingest its run directory again, then "
				      "replay", (long long)rs->trace_id);
			else
				error("run %lld (%s) has no per-site metrics: it was made before "
				      "schema 5; replay the trace again", (long long)rs->run[r].run_id,
				      rs->run[r].policy);
			goto fail;
		}
		for (k = 0; k < n; k++) {
			size_t i = site_index(sr, ss[k].site, ss[k].module);	/* moves sr->c */

			sr->c[i * sr->nr_runs + r] = ss[k].c;
		}
		rp_runs_sites_free(ss, n);
	}
	sort_sites(sr, rs->base >= 0 ? (unsigned int)rs->base : 0);
	return 0;
fail:
	site_runs_release(sr);
	return -1;
}

void site_runs_release(struct site_runs *sr)
{
	size_t i;

	for (i = 0; i < sr->nr; i++) {
		free(sr->site[i]);
		free(sr->module[i]);
	}
	free(sr->site);
	free(sr->module);
	free(sr->c);
	memset(sr, 0, sizeof(*sr));
}

double site_share(uint64_t v, uint64_t whole)
{
	return whole ? (double)v / (double)whole : -1.0;
}
