/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host-calibrate.h - `foliotrace calibrate --host`: the bundled anon-touch workload
 * (build/workloads/ARCH/anon-touch) run natively under 4K and under each per-size mTHP
 * knob below the PMD size (or the sizes asked for), at two sizes, and, when asked
 * (vm_host_cal.cold), at one size with --between VM_HOST_CAL_BETWEEN (every fault cold:
 * user work between two touches evicts the fault path's cache lines), the settings
 * interleaved run after run so that the machine's load moves all of them alike; each
 * setting's median minor faults and kernel time (sampled, vm/ksample.h; else getrusage's
 * system time) fitted by rp_cost_fit_host() and rp_cost_fit_host_cold() (docs/cost-model.md,
 * "On this machine"). Knobs: vm/host-knobs.h, restored on every exit.
 */
#ifndef FT_VM_HOST_CALIBRATE_H
#define FT_VM_HOST_CALIBRATE_H

#include <stddef.h>

#include "replay/calibrate-host.h"

#define VM_HOST_CAL_RUNS 5		/* default runs per setting */
#define VM_HOST_CAL_MAX_MIB 8		/* anon-touch sizes a calibration takes at most */
#define VM_HOST_CAL_COLD_MIB "64"	/* default size of the cold runs, MiB */
#define VM_HOST_CAL_BETWEEN "2M"	/* their --between: twice a 1 MiB L2 */

struct vm_host_cal {
	unsigned int runs;		/* per (setting, size), >= 1; the median is kept */
	const unsigned int *kb;		/* mTHP sizes to calibrate, KiB; NULL/0: every */
	size_t nr_kb;			/* per-size knob below the PMD size */
	/* anon-touch footprints, MiB, two distinct at least, VM_HOST_CAL_MAX_MIB at most;
	 * NULL/0: 64 and 256 (not 1G: docs/cost-model.md). What a fault removed saves
	 * depends on the size of the process (docs/cost-model.md, "The footprint"). */
	const unsigned int *mib;
	size_t nr_mib;
	/* 1: also the cold runs, and cold_ns fitted; 0: no cold_ns (NULL), the model prices
	 * no fault cold. Off by default: on this machine the cold rule put the predicted
	 * change further from the measured one than no cold term, in every quiet run of
	 * bench/host-time.sh (docs/cost-model.md, "Cold faults"). */
	int cold;
	/* Optional: called after each setting's runs with its medians (the library prints
	 * nothing): kb 4 or the mTHP size, KiB; mib the anon-touch size; cold 1 for the
	 * --between runs. */
	void (*point)(unsigned int kb, unsigned int mib, int cold, const struct rp_host_point *p,
		      void *arg);
	/* Optional: called once if kernel time cannot be sampled here (why), before the runs
	 * measured by getrusage's tick-split system time instead. */
	void (*note)(const char *why, void *arg);
	void *arg;
	/* Optional out: how well the runs determine new_ns and byte_ns
	 * (rp_cost_fit_host_spread() over the rounds); fits 0 when it cannot be told (one
	 * run per setting, or resamples that cannot be fitted). */
	struct rp_host_spread *spread;
};

/*
 * vm_host_calibrate - refuse (vm_knobs_check()) or run the calibration and fit it into out
 * (its key this machine's, rp_cost_host_key()); the knobs as they were afterwards, on
 * failure too. The cold runs' anon-touch size is $FT_HOST_CALIBRATE_COLD_MIB (MiB; for
 * tests) or VM_HOST_CAL_COLD_MIB. Return: 0, or -1 with fail().
 */
int vm_host_calibrate(const struct vm_host_cal *o, struct rp_cost *out);

/* vm_host_calibrate_check - what vm_host_calibrate() refuses before it writes a knob, with
 * nothing written. Return: 0, or -1 with fail(). */
int vm_host_calibrate_check(const struct vm_host_cal *o);

#endif /* FT_VM_HOST_CALIBRATE_H */
