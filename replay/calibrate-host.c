// SPDX-License-Identifier: GPL-2.0
/* calibrate-host.c - the host cost model's fit and lookup; see calibrate-host.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "db/costs.h"
#include "lib/error.h"
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
