/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host-calibrate.h - `foliotrace calibrate --host`: the bundled anon-touch workload
 * (build/workloads/ARCH/anon-touch) run natively under 4K and under each per-size mTHP
 * knob below the PMD size (or the sizes asked for), at two sizes, the settings interleaved run after run so that
 * the machine's load moves all of them alike; each setting's median minor faults and
 * system time (getrusage of the child) fitted by rp_cost_fit_host() (docs/cost-model.md,
 * "On this machine"). Knobs: vm/host-knobs.h, restored on every exit.
 */
#ifndef FT_VM_HOST_CALIBRATE_H
#define FT_VM_HOST_CALIBRATE_H

#include <stddef.h>

#include "replay/calibrate-host.h"

#define VM_HOST_CAL_RUNS 5		/* default runs per setting */
#define VM_HOST_CAL_MIB "256,1024"	/* default anon-touch sizes, MiB */

struct vm_host_cal {
	unsigned int runs;		/* per (setting, size), >= 1; the median is kept */
	const unsigned int *kb;		/* mTHP sizes to calibrate, KiB; NULL/0: every */
	size_t nr_kb;			/* per-size knob below the PMD size */
	/* Optional: called after each setting's runs with its medians (the library prints
	 * nothing): kb 4 or the mTHP size, KiB; mib the anon-touch size. */
	void (*point)(unsigned int kb, unsigned int mib, const struct rp_host_point *p,
		      void *arg);
	void *arg;
};

/*
 * vm_host_calibrate - refuse (vm_knobs_check()) or run the calibration and fit it into out
 * (its key this machine's, rp_cost_host_key()); the knobs as they were afterwards, on
 * failure too. The anon-touch sizes are $FT_HOST_CALIBRATE_MIB (comma-separated MiB; for
 * tests) or VM_HOST_CAL_MIB. Return: 0, or -1 with fail().
 */
int vm_host_calibrate(const struct vm_host_cal *o, struct rp_cost *out);

/* vm_host_calibrate_check - what vm_host_calibrate() refuses before it writes a knob, with
 * nothing written. Return: 0, or -1 with fail(). */
int vm_host_calibrate_check(const struct vm_host_cal *o);

#endif /* FT_VM_HOST_CALIBRATE_H */
