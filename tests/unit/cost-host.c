// SPDX-License-Identifier: GPL-2.0
/*
 * cost-host.c - the host cost model's fit (replay/calibrate-host.c): points made from known
 * coefficients are fitted back to them, noise within its bound moves them little, and the
 * fit refuses what cannot be fitted (too few points, faults proportional to bytes, a
 * negative cost, a run without system time). The expected values are the coefficients the
 * points were generated from, not the fit's. The spread over resamples of rounds
 * (rp_cost_fit_host_spread()): rounds that each scale every point by one factor scale the
 * fit by the median of the factors drawn, so its percentiles lie within bounds worked out
 * from the factors alone.
 */
#include <math.h>
#include <string.h>

#include "lib/error.h"
#include "replay/calibrate-host.h"
#include "tap.h"

/* anon-touch 256M and 1G under 4K, 16K, 32K, 64K: faults = bytes / folio + 30 (exec) */
static size_t points(struct rp_host_point *p, double base, double nw, double by, int noise)
{
	static const double kb[] = { 4, 16, 32, 64 }, mib[] = { 256, 1024 };
	size_t n = 0, i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 2; j++, n++) {
			p[n].bytes = mib[j] * 1048576;
			p[n].faults = p[n].bytes / (kb[i] * 1024) + 30;
			p[n].sys_ns = base + nw * p[n].faults + by * p[n].bytes;
			/* +-1% alternating: a noisy machine's medians */
			if (noise)
				p[n].sys_ns *= n % 2 ? 1.01 : 0.99;
		}
	return n;
}

int main(void)
{
	struct rp_host_point p[8];
	struct rp_cost m;
	double base = 0;
	size_t n;
	int rc;

	plan(23);
	n = points(p, 2e6, 1300, 0.23, 0);
	ok(rp_cost_fit_host(p, n, &m, &base) == 0, "exact points fit");
	ok(fabs(m.c[RP_COST_NEW] - 1300) < 1e-3, "new_ns 1300 recovered (%.6f)", m.c[RP_COST_NEW]);
	ok(fabs(m.c[RP_COST_BYTE] - 0.23) < 1e-9, "byte_ns 0.23 recovered (%.9f)",
	   m.c[RP_COST_BYTE]);
	ok(fabs(base - 2e6) < 1, "base 2 ms recovered (%.3f ns)", base);
	ok(m.has[RP_COST_NEW] && m.has[RP_COST_BYTE] && !m.has[RP_COST_PTE] &&
	   !m.has[RP_COST_ZERO] && !m.has[RP_COST_COW], "only new_ns and byte_ns are fitted");

	n = points(p, 2e6, 1300, 0.23, 1);
	rc = rp_cost_fit_host(p, n, &m, NULL);
	ok(rc == 0 && fabs(m.c[RP_COST_NEW] / 1300 - 1) < 0.1 &&
	   fabs(m.c[RP_COST_BYTE] / 0.23 - 1) < 0.1,
	   "1%% noise: both within 10%% (%.1f, %.4f)", m.c[RP_COST_NEW], m.c[RP_COST_BYTE]);

	ok(rp_cost_fit_host(p, 2, &m, NULL) == -1 && strstr(error_text(), "too few"),
	   "two points refused: %s", error_text());
	error_clear();

	/* one folio size only: faults are bytes / 4K + 30, the fault and byte terms collinear
	 * with the base */
	n = points(p, 2e6, 1300, 0.23, 0);
	p[2] = p[0], p[3] = p[1], p[4] = p[0], p[5] = p[1], p[6] = p[0], p[7] = p[1];
	ok(rp_cost_fit_host(p, n, &m, NULL) == -1 && strstr(error_text(), "separate"),
	   "one folio size refused: %s", error_text());
	error_clear();

	n = points(p, 2e6, -500, 0.3, 0);
	ok(rp_cost_fit_host(p, n, &m, NULL) == -1 && strstr(error_text(), "new_ns"),
	   "a negative per-fault cost refused, named: %s", error_text());
	error_clear();

	n = points(p, 2e6, 1300, 0.23, 0);
	p[3].sys_ns = 0;
	ok(rp_cost_fit_host(p, n, &m, NULL) == -1 && strstr(error_text(), "no system time"),
	   "a run without system time refused: %s", error_text());
	error_clear();

	n = points(p, 0, 1300, 0.23, 0);
	rc = rp_cost_fit_host(p, n, &m, &base);
	ok(rc == 0 && fabs(base) < 1,
	   "zero base: fitted as 0 (%.3f ns)", base);

	/*
	 * cold runs: anon-touch 64M --between under 4K, 16K, 32K, 64K, 300 faults of their
	 * own (exec, the buffer); base 5 ms, each fault 1300 + 1700 ns (new_ns above and
	 * cold_ns 1700), 0.23 ns a byte: 4K 16684 faults, 5e6 + 3000 * 16684 + 0.23 * 67108864
	 * = 70487038.72 ns, and so on
	 */
	{
		static const double kb[] = { 4, 16, 32, 64 };
		struct rp_host_point cp[4];
		size_t i;

		for (i = 0; i < 4; i++) {
			cp[i].bytes = 64 * 1048576.0;
			cp[i].faults = cp[i].bytes / (kb[i] * 1024) + 300;
			cp[i].sys_ns = 5e6 + 3000 * cp[i].faults + 0.23 * cp[i].bytes;
		}
		ok(fabs(cp[0].sys_ns - 70487038.72) < 1e-3, "the 4K cold point by hand (%.2f)",
		   cp[0].sys_ns);
		m.c[RP_COST_NEW] = 1300;
		m.c[RP_COST_BYTE] = 0.23;
		rc = rp_cost_fit_host_cold(cp, 4, &m);
		ok(rc == 0 && m.has[RP_COST_COLD] &&
		   fabs(m.c[RP_COST_COLD] - 1700) < 1e-3, "cold_ns 1700 recovered (%.6f)",
		   m.c[RP_COST_COLD]);
		/* cold runs as cheap per fault as the hot ones: cold_ns 0, not negative */
		for (i = 0; i < 4; i++)
			cp[i].sys_ns = 5e6 + 1200 * cp[i].faults + 0.23 * cp[i].bytes;
		rc = rp_cost_fit_host_cold(cp, 4, &m);
		ok(rc == 0 && m.c[RP_COST_COLD] == 0,
		   "cold runs cheaper than new_ns: cold_ns 0 (%.3f)", m.c[RP_COST_COLD]);
		ok(rp_cost_fit_host_cold(cp, 1, &m) == -1 && strstr(error_text(), "too few"),
		   "one cold point refused: %s", error_text());
		error_clear();
		cp[1] = cp[0];
		cp[2] = cp[0];
		cp[3] = cp[0];
		ok(rp_cost_fit_host_cold(cp, 4, &m) == -1 && strstr(error_text(), "differ"),
		   "one fault count refused: %s", error_text());
		error_clear();
	}

	/*
	 * The spread. Five rounds of the 8 exact points, round r's system times scaled by
	 * f[r]: a fit of points scaled by f is the fit scaled by f, so a resample's new_ns is
	 * 1300 times the median of the 5 factors it drew. That median is 0.95 or less with
	 * probability 1 - P(at most 2 of 5 draws in {0.90, 0.95}) = 0.317, so among 200
	 * resamples the 5th percentile is at most 0.95 * 1300 = 1235 (and, likewise, the 95th
	 * at least 1.05 * 1300 = 1365); and no median is outside [0.90, 1.10].
	 */
	{
		static const double f[] = { 1.00, 0.90, 1.10, 0.95, 1.05 };
		struct rp_host_point rounds[5 * 8];
		struct rp_host_spread sp, again;
		size_t r, i;

		for (r = 0; r < 5; r++) {
			n = points(rounds + r * 8, 2e6, 1300, 0.23, 0);
			for (i = 0; i < n; i++)
				rounds[r * 8 + i].sys_ns *= f[r];
		}
		rc = rp_cost_fit_host_spread(rounds, 5, 8, &sp);
		ok(rc == 0 && sp.fits == RP_HOST_RESAMPLES, "every resample of 5 rounds fitted (%u)",
		   sp.fits);
		ok(sp.new_lo >= 1300 * 0.90 - 1e-6 && sp.new_lo <= 1235 + 1e-6 &&
		   sp.new_hi >= 1365 - 1e-6 && sp.new_hi <= 1300 * 1.10 + 1e-6,
		   "new_ns 1170 <= 5th %.3f <= 1235, 1365 <= 95th %.3f <= 1430", sp.new_lo,
		   sp.new_hi);
		ok(sp.byte_lo >= 0.23 * 0.90 - 1e-9 && sp.byte_lo <= 0.23 * 0.95 + 1e-9 &&
		   sp.byte_hi >= 0.23 * 1.05 - 1e-9 && sp.byte_hi <= 0.23 * 1.10 + 1e-9,
		   "byte_ns within the same factors (%.5f-%.5f)", sp.byte_lo, sp.byte_hi);
		rc = rp_cost_fit_host_spread(rounds, 5, 8, &again);
		ok(rc == 0 && again.new_lo == sp.new_lo && again.new_hi == sp.new_hi &&
		   again.byte_lo == sp.byte_lo && again.byte_hi == sp.byte_hi,
		   "the same runs give the same spread");

		for (r = 0; r < 5; r++)
			points(rounds + r * 8, 2e6, 1300, 0.23, 0);
		rc = rp_cost_fit_host_spread(rounds, 5, 8, &sp);
		ok(rc == 0 && fabs(sp.new_lo - 1300) < 1e-3 && fabs(sp.new_hi - 1300) < 1e-3,
		   "rounds that agree: no spread (%.6f-%.6f)", sp.new_lo, sp.new_hi);

		ok(rp_cost_fit_host_spread(rounds, 1, 8, &sp) == -1 &&
		   strstr(error_text(), "2 rounds") && !strcmp(sp.why, error_text()) && !sp.fits,
		   "one round refused, the reason also in the spread: %s", sp.why);
		error_clear();

		/* one folio size in every round: no resample can be fitted */
		for (r = 0; r < 5; r++)
			for (i = 2; i < 8; i++)
				rounds[r * 8 + i] = rounds[r * 8 + i % 2];
		ok(rp_cost_fit_host_spread(rounds, 5, 8, &sp) == -1 &&
		   strstr(error_text(), "do not determine") && !strcmp(sp.why, error_text()) &&
		   !sp.fits, "resamples that cannot be fitted, the reason also in the spread: %s",
		   sp.why);
		error_clear();
	}
	return done_testing();
}
