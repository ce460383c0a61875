// SPDX-License-Identifier: GPL-2.0
/* calibrate-host.c - the host cost model's fit and lookup; see calibrate-host.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "db/costs.h"
#include "lib/error.h"
#include "lib/rand.h"
#include "lib/xalloc.h"
#include "replay/calibrate-host.h"

int rp_cost_fit_host(const struct rp_host_point *p, size_t n, struct rp_cost *out,
		     double *base_ns)
{
	double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX] = { { 0 } }, b[RP_COST_SOLVE_MAX] = { 0 };
	double x[RP_COST_SOLVE_MAX] = { 0 }, row[3], w;
	size_t i;

	memset(out->c, 0, sizeof(out->c));
	memset(out->has, 0, sizeof(out->has));
	if (n < 3)
		return fail("too few calibration runs: %zu settings, the fit needs 3", n);
	for (i = 0; i < n; i++) {
		if (!(p[i].sys_ns > 0))
			return fail("a calibration run took no system time (%.0f faults, %.0f "
				    "bytes): the workload is too small to measure", p[i].faults,
				    p[i].bytes);
		w = 1 / (p[i].sys_ns * p[i].sys_ns);
		row[0] = 1;
		row[1] = p[i].faults;
		row[2] = p[i].bytes;
		rp_cost_normal_add(a, b, row, 3, w, p[i].sys_ns);
	}
	if (rp_cost_solve(a, b, 3, x))
		return fail("cannot fit the host costs: the runs do not separate faults from "
			    "bytes (the mTHP sizes did not change the fault counts?)");
	if (!(x[1] > 0) || !(x[2] > 0))
		return fail("the fit gives a cost %s of %.3g: these system times do not follow "
			    "the model", x[1] > 0 ? "byte_ns" : "new_ns", x[1] > 0 ? x[2] : x[1]);
	out->c[RP_COST_NEW] = x[1];
	out->c[RP_COST_BYTE] = x[2];
	out->has[RP_COST_NEW] = out->has[RP_COST_BYTE] = 1;
	if (base_ns)
		*base_ns = x[0];
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), n >= 1 (v sorted in place). */
static double median_double(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The q-quantile (0..1) of v[0..n), n >= 1, sorted in place: the nearest rank. */
static double quantile(double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	qsort(v, n, sizeof(*v), cmp_double);
	return v[i < n ? i : n - 1];
}

int rp_cost_fit_host_spread(const struct rp_host_point *run, size_t rounds, size_t n,
			    struct rp_host_spread *out)
{
	struct rp_host_point *p;
	double *fv, *bv, *nw, *by;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;	/* fixed: the same runs, the same spread */
	size_t *pick, i, r, k;
	struct rp_cost m;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (rounds < 2) {
		snprintf(out->why, sizeof(out->why),
			 "the spread of a fit needs 2 rounds of runs or more, not %zu", rounds);
		return fail("%s", out->why);
	}
	p = xcalloc(n, sizeof(*p));
	fv = xcalloc(rounds, sizeof(*fv));
	bv = xcalloc(rounds, sizeof(*bv));
	nw = xcalloc(RP_HOST_RESAMPLES, sizeof(*nw));
	by = xcalloc(RP_HOST_RESAMPLES, sizeof(*by));
	pick = xcalloc(rounds, sizeof(*pick));
	for (k = 0; k < RP_HOST_RESAMPLES; k++) {
		for (r = 0; r < rounds; r++)
			pick[r] = (size_t)ft_rand_below(&seed, rounds);
		for (i = 0; i < n; i++) {
			for (r = 0; r < rounds; r++) {
				fv[r] = run[pick[r] * n + i].faults;
				bv[r] = run[pick[r] * n + i].sys_ns;
			}
			p[i].bytes = run[i].bytes;
			p[i].faults = median_double(fv, rounds);
			p[i].sys_ns = median_double(bv, rounds);
		}
		if (rp_cost_fit_host(p, n, &m, NULL)) {
			error_clear();
			continue;
		}
		nw[out->fits] = m.c[RP_COST_NEW];
		by[out->fits] = m.c[RP_COST_BYTE];
		out->fits++;
	}
	if (out->fits * 2 < RP_HOST_RESAMPLES) {
		snprintf(out->why, sizeof(out->why), "the runs do not determine the fit: %u of %d "
			 "resamples of their rounds could be fitted", out->fits, RP_HOST_RESAMPLES);
		fail("%s", out->why);
		out->fits = 0;
		goto out;
	}
	out->new_lo = quantile(nw, out->fits, 0.05);
	out->new_hi = quantile(nw, out->fits, 0.95);
	out->byte_lo = quantile(by, out->fits, 0.05);
	out->byte_hi = quantile(by, out->fits, 0.95);
	ret = 0;
out:
	free(p);
	free(fv);
	free(bv);
	free(nw);
	free(by);
	free(pick);
	return ret;
}

int rp_cost_fit_host_cold(const struct rp_host_point *p, size_t n, struct rp_cost *out)
{
	double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX] = { { 0 } }, b[RP_COST_SOLVE_MAX] = { 0 };
	double x[RP_COST_SOLVE_MAX] = { 0 }, row[2], w;
	size_t i;

	if (n < 2)
		return fail("too few cold calibration runs: %zu settings, the fit needs 2", n);
	for (i = 0; i < n; i++) {
		if (!(p[i].sys_ns > 0))
			return fail("a cold calibration run took no system time (%.0f faults)",
				    p[i].faults);
		w = 1 / (p[i].sys_ns * p[i].sys_ns);
		row[0] = 1;
		row[1] = p[i].faults;
		/* byte_ns held at the warm fit's: what is left is per fault */
		rp_cost_normal_add(a, b, row, 2, w, p[i].sys_ns - out->c[RP_COST_BYTE] * p[i].bytes);
	}
	if (rp_cost_solve(a, b, 2, x))
		return fail("cannot fit the cold fault cost: the cold runs' fault counts do not "
			    "differ");
	out->c[RP_COST_COLD] = x[1] > out->c[RP_COST_NEW] ? x[1] - out->c[RP_COST_NEW] : 0;
	out->has[RP_COST_COLD] = 1;
	return 0;
}

int rp_cost_host_key(struct rp_cost_key *key)
{
	struct utsname u;

	if (uname(&u))
		return fail("uname: cannot name this machine's arch and kernel");
	snprintf(key->arch, sizeof(key->arch), "%.31s",
		 strcmp(u.machine, "aarch64") ? u.machine : "arm64");
	snprintf(key->kernel, sizeof(key->kernel), "%.63s", u.release);
	snprintf(key->accel, sizeof(key->accel), RP_COST_NATIVE);
	snprintf(key->clock, sizeof(key->clock), RP_COST_NATIVE);
	return 0;
}

int rp_cost_lookup_native(sqlite3 *mdb, sqlite3 *db, int64_t trace_id, struct rp_cost *m)
{
	struct rp_cost_key tk;
	int rc;

	memset(m, 0, sizeof(*m));
	if (rp_cost_trace_key(db, trace_id, &tk))
		return -1;
	snprintf(m->key.arch, sizeof(m->key.arch), "%s", tk.arch);
	snprintf(m->key.accel, sizeof(m->key.accel), RP_COST_NATIVE);
	snprintf(m->key.clock, sizeof(m->key.clock), RP_COST_NATIVE);
	rc = ftdb_cost_latest_kernel(mdb, m->key.arch, RP_COST_NATIVE, RP_COST_NATIVE,
				     m->key.kernel, sizeof(m->key.kernel));
	if (rc == 0)
		return fail("--cost-model native: no host model of %s in the database "
			    "(foliotrace calibrate --host -o DB on a %s machine)", tk.arch, tk.arch);
	if (rc < 0)
		return -1;
	rc = rp_cost_get(mdb, m);
	return rc == 0 ? fail("cost_model: the native row of %s vanished", tk.arch) : rc;
}
