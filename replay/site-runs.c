// SPDX-License-Identifier: GPL-2.0
/*
 * site-runs.c - per-site metrics of a set of stored runs as a site x run matrix; see
 * site-runs.h. Tuned for traces of many sites (a kbuild has tens of thousands): every
 * run's rows are gathered and sorted once by (site, module), so a site is found by its
 * neighbours, not by a search per row.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/site-runs.h"

static int count(sqlite3 *db, const char *sql, int64_t id, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail("cannot read the call sites: %s", sqlite3_errmsg(db));
}

int rp_site_runs_has_sites(sqlite3 *db, int64_t trace_id)
{
	int64_t n;

	if (count(db, "SELECT EXISTS (SELECT 1 FROM site_call WHERE trace_id = ?)", trace_id, &n))
		return -1;
	return n > 0;
}

/* (site, module) order: by site, then module, no module first. */
static int cmp_site(const char *s1, const char *m1, const char *s2, const char *m2)
{
	int c = strcmp(s1, s2);

	if (c)
		return c;
	if (!m1 || !m2)
		return (m1 != NULL) - (m2 != NULL);
	return strcmp(m1, m2);
}

/* One replay_site row of run `run`, its strings taken over from rp_runs_sites(). */
struct row {
	char *site, *module;
	unsigned int run;
	struct rp_site_counters c;
};

static int by_site_run(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = cmp_site(x->site, x->module, y->site, y->module);

	if (c)
		return c;
	return x->run < y->run ? -1 : x->run > y->run;
}

static void rows_free(struct row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].site);
		free(rows[i].module);
	}
	free(rows);
}

/*
 * The replay_site rows of run[r] appended to *rows. Return: 0, or -1 with fail() when the
 * run has none (why: an old run, or sites ingested before per-site attribution).
 */
static int add_run(sqlite3 *db, int64_t trace_id, const struct rp_stored_run *run,
		   unsigned int r, struct row **rows, size_t *nr, size_t *cap)
{
	struct rp_stored_site *ss;
	size_t n, k;
	int64_t touch;

	if (rp_runs_sites(db, run->run_id, &ss, &n))
		return -1;
	if (!n) {
		if (count(db, "SELECT count(*) FROM site_touch WHERE trace_id = ?", trace_id,
			  &touch))
			return -1;
		if (!touch)
			return fail("trace %lld's call sites were stored before per-site "
				     "attribution (schema 5): ingest its run directory again, then "
				     "replay", (long long)trace_id);
		return fail("run %lld (%s) has no per-site metrics: it was made before schema 5; "
			     "replay the trace again", (long long)run->run_id, run->policy);
	}
	XGROW(*rows, *cap, *nr + n);
	for (k = 0; k < n; k++) {
		struct row *x = &(*rows)[(*nr)++];

		x->site = ss[k].site;
		x->module = ss[k].module;
		x->run = r;
		x->c = ss[k].c;
	}
	free(ss);	/* its strings now belong to *rows */
	return 0;
}

/* Sites of rows (sorted by_site_run()) into sr, each (site, module) once. */
static void group(struct row *rows, size_t n, struct rp_site_runs *sr)
{
	size_t i, k, sites = 0;

	for (k = 0; k < n; k++)
		sites += !k || cmp_site(rows[k].site, rows[k].module, rows[k - 1].site,
					rows[k - 1].module);
	sr->site = xcalloc(sites ? sites : 1, sizeof(*sr->site));
	sr->module = xcalloc(sites ? sites : 1, sizeof(*sr->module));
	sr->c = xcalloc(sites ? sites * sr->nr_runs : 1, sizeof(*sr->c));
	for (k = 0, i = 0; k < n; k++) {
		if (k && !cmp_site(rows[k].site, rows[k].module, sr->site[i], sr->module[i])) {
			free(rows[k].site);
			free(rows[k].module);
		} else {
			i = sr->nr++;
			sr->site[i] = rows[k].site;
			sr->module[i] = rows[k].module;
		}
		sr->c[i * sr->nr_runs + rows[k].run] = rows[k].c;
	}
	free(rows);
}

struct fault_order {
	const struct rp_site_runs *sr;
	unsigned int run;
};

/* Most faults in the ordering run first, then cmp_site(). */
static int by_faults(const void *a, const void *b, void *arg)
{
	const struct fault_order *o = arg;
	const struct rp_site_runs *sr = o->sr;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t fi = sr->c[i * sr->nr_runs + o->run].faults;
	uint64_t fj = sr->c[j * sr->nr_runs + o->run].faults;

	if (fi != fj)
		return fi > fj ? -1 : 1;
	return cmp_site(sr->site[i], sr->module[i], sr->site[j], sr->module[j]);
}

/* Put the sites in by_faults() order of run r. */
static void sort_sites(struct rp_site_runs *sr, unsigned int r)
{
	size_t *ord = xcalloc(sr->nr ? sr->nr : 1, sizeof(*ord)), i;
	char **s = xcalloc(sr->nr ? sr->nr : 1, sizeof(*s));
	char **m = xcalloc(sr->nr ? sr->nr : 1, sizeof(*m));
	struct rp_site_counters *c = xcalloc(sr->nr ? sr->nr * sr->nr_runs : 1, sizeof(*c));
	struct fault_order o = { sr, r };

	for (i = 0; i < sr->nr; i++)
		ord[i] = i;
	qsort_r(ord, sr->nr, sizeof(*ord), by_faults, &o);
	for (i = 0; i < sr->nr; i++) {
		s[i] = sr->site[ord[i]];
		m[i] = sr->module[ord[i]];
		memcpy(&c[i * sr->nr_runs], &sr->c[ord[i] * sr->nr_runs],
		       sr->nr_runs * sizeof(*c));
	}
	free(sr->site);
	free(sr->module);
	free(sr->c);
	sr->site = s;
	sr->module = m;
	sr->c = c;
	free(ord);
}

int rp_site_runs_load(sqlite3 *db, int64_t trace_id, const struct rp_stored_run *run,
		      unsigned int nr, unsigned int order_by, struct rp_site_runs *sr)
{
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	unsigned int r;
	int has;

	memset(sr, 0, sizeof(*sr));
	sr->nr_runs = nr;
	has = rp_site_runs_has_sites(db, trace_id);
	if (has <= 0)
		return has ? -1 : fail("trace %lld was not recorded with --sites: it has no call "
					"sites (foliotrace record --sites)", (long long)trace_id);
	for (r = 0; r < nr; r++) {
		if (add_run(db, trace_id, &run[r], r, &rows, &n, &cap)) {
			rows_free(rows, n);
			return -1;
		}
	}
	qsort(rows, n, sizeof(*rows), by_site_run);
	group(rows, n, sr);
	if (order_by < nr)
		sort_sites(sr, order_by);
	return 0;
}

void rp_site_runs_release(struct rp_site_runs *sr)
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
