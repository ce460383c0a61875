/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate-host.h - the cost model fitted from this machine's own kernel (`foliotrace
 * calibrate --host`, docs/cost-model.md "On this machine"): runs of a calibration workload
 * under 4K and each mTHP size, each reduced to its minor faults, the bytes it faulted in
 * and its system time (getrusage), and fitted per run:
 *
 *	sys_ns = base + new_ns * faults + byte_ns * bytes
 *
 * System time holds what the handler's latency does not: the fault's entry and exit, and
 * the teardown at exit (zap of the PTEs, the folios freed and uncharged, the page-table
 * pages): per folio in new_ns, per byte in byte_ns. base (exec, the page tables' and the
 * binary's faults, exit) is the same in every run and is not stored. The model is keyed
 * (host arch, kernel release, native, native); `replay --cost-model native` applies it.
 */
#ifndef FT_REPLAY_CALIBRATE_HOST_H
#define FT_REPLAY_CALIBRATE_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "replay/cost.h"

#define RP_COST_NATIVE "native"		/* accel and clock of a host model */

/* One setting's runs reduced to their medians. */
struct rp_host_point {
	double faults;		/* minor faults of a run */
	double bytes;		/* bytes of anonymous memory it faulted in */
	double sys_ns;		/* its system time, ns */
};

/*
 * rp_cost_fit_host - fit new_ns and byte_ns (and the unstored base, into *base_ns if not
 * NULL) to n points, by least squares on relative residuals (a 1G run does not outweigh a
 * 256M one). Needs points of at least two byte counts and two fault counts per byte
 * count. Return: 0 with out's coefficients (not its key), or -1 with fail() (too few
 * points, the points do not separate the terms, a cost that is not positive).
 */
int rp_cost_fit_host(const struct rp_host_point *p, size_t n, struct rp_cost *out,
		     double *base_ns);

/*
 * rp_cost_fit_host_cold - fit cold_ns to n points of runs whose faults are all cold
 * (anon-touch --between: user work between two touches that evicts the fault path's
 * cache lines), given out's new_ns and byte_ns (rp_cost_fit_host()): their system time
 * less byte_ns per byte is fitted as base + (new_ns + cold_ns) * faults, by least squares
 * on relative residuals, base their own (the buffer read between touches is faulted in
 * too). A fit below 0 (no cost measured beyond the hot one) is stored as 0. Needs two
 * fault counts. Return: 0 with out's cold_ns, or -1 with fail().
 */
int rp_cost_fit_host_cold(const struct rp_host_point *p, size_t n, struct rp_cost *out);

#define RP_HOST_RESAMPLES 200	/* resamples of the rounds for rp_cost_fit_host_spread() */

/* How well a calibration's rounds determine its fit: percentiles over resamples. */
struct rp_host_spread {
	double new_lo, new_hi;		/* new_ns, ns: 5th and 95th percentiles */
	double byte_lo, byte_hi;	/* byte_ns, ns per byte: the same */
	unsigned int fits;		/* resamples fitted (one that cannot be fitted is left out) */
	char why[160];			/* fits 0: why there is no spread, as fail() said it */
};

/*
 * rp_cost_fit_host_spread - the spread of rp_cost_fit_host() over RP_HOST_RESAMPLES
 * resamples of a calibration's rounds: each resample draws `rounds` rounds with
 * replacement (a round's points together: they ran one after the other, under one load),
 * takes each point's median over the rounds drawn, and is fitted as the calibration is;
 * out holds the 5th and 95th percentiles of new_ns and byte_ns over the fits. run[r * n +
 * i] is round r's run of point i (its bytes the same in every round). The draws are from
 * a fixed seed: the same runs give the same spread. Needs 2 rounds or more. Return: 0, or
 * -1 with fail() (too few rounds, or fewer than half the resamples could be fitted).
 */
int rp_cost_fit_host_spread(const struct rp_host_point *run, size_t rounds, size_t n,
			    struct rp_host_spread *out);

/* rp_cost_host_key - this machine's key: uname's arch (aarch64 as arm64, as traces name
 * it), its kernel release, native, native. Return: 0, or -1 with fail(). */
int rp_cost_host_key(struct rp_cost_key *key);

/*
 * rp_cost_lookup_native - the host model for trace_id of db: the row of mdb (the model's
 * database, db itself or another) of the trace's arch with accel and clock native, of the
 * kernel fitted last (`calibrate --host` on the machine whose time is predicted).
 * Return: 1 with *m filled, or -1 with fail() when there is none (naming the trace's
 * arch), or a database error.
 */
int rp_cost_lookup_native(sqlite3 *mdb, sqlite3 *db, int64_t trace_id, struct rp_cost *m);

#endif /* FT_REPLAY_CALIBRATE_HOST_H */
