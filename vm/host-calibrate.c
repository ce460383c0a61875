// SPDX-License-Identifier: GPL-2.0
/* host-calibrate.c - calibration runs on this machine's kernel; see host-calibrate.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/measure.h"
#include "vm/host-calibrate.h"
#include "vm/host-knobs.h"
#include "vm/ksample.h"
#include "vm/spawn.h"

#define PMD_KB 2048		/* sizes from here are PMD maps: not calibrated */

/* The anon-touch footprints without vm_host_cal.mib, MiB */
static const unsigned int default_mib[] = { 64, 256 };

/* One run's measures. */
struct run {
	uint64_t minflt;
	uint64_t sys_ns;	/* kernel time: sampled (vm/ksample.h), else the rusage's */
};

/* The cold runs' anon-touch size, MiB: $FT_HOST_CALIBRATE_COLD_MIB (for tests) or
 * VM_HOST_CAL_COLD_MIB. */
static int cold_mib(unsigned int *mib)
{
	const char *e = getenv("FT_HOST_CALIBRATE_COLD_MIB");
	const char *s = e && *e ? e : VM_HOST_CAL_COLD_MIB;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (end == s || *end || errno || !v || v > 1UL << 20)
		return fail("FT_HOST_CALIBRATE_COLD_MIB %s: one size, MiB", s);
	*mib = (unsigned int)v;
	return 0;
}

/* Run anon-touch MIB M once under the knobs as they are, cold (--between) or not; its
 * kernel time sampled by k (NULL: the rusage's). */
static int run_once(struct vm_ksampler *k, const char *prog, unsigned int mib, int cold,
		    struct run *r)
{
	struct vm_ksample ks;
	char arg[32];
	sigset_t block, old;
	pid_t pid;
	int st, fd;

	snprintf(arg, sizeof(arg), "%uM", mib);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	/* no signal between the fork and vm_knobs_child(): the handler must see the child */
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return fail("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		if (vm_ksample_enter(k))
			_exit(126);
		if (cold)
			execl(prog, prog, arg, "--between", VM_HOST_CAL_BETWEEN, (char *)NULL);
		else
			execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	vm_knobs_child(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (vm_ksample_wait(k, pid, &st, &ks)) {
		vm_knobs_child(0);
		return -1;
	}
	vm_knobs_child(0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return fail("%s %s%s %s %d", prog, arg, cold ? " --between " VM_HOST_CAL_BETWEEN : "",
			    WIFEXITED(st) ? "exited" : "killed by signal",
			    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	r->minflt = ks.minflt;
	r->sys_ns = ks.kernel_ns;
	return 0;
}

static uint64_t median_u64(uint64_t *v, size_t n)
{
	rp_u64_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The spread of the hot fit over resamples of the rounds (rp_cost_fit_host_spread()): fits
 * 0 and why set if it cannot be told (not an error of the calibration). runs as
 * calibrate()'s. */
static void spread(const struct vm_host_cal *o, const struct run *runs, size_t nset,
		   const unsigned int *mib, size_t nmib, size_t nk, struct rp_host_spread *sp)
{
	struct rp_host_point *p = xcalloc((size_t)o->runs * nset * nmib, sizeof(*p));
	size_t s, m, i;
	unsigned int r;

	for (r = 0; r < o->runs; r++)
		for (s = 0; s < nset; s++)
			for (m = 0; m < nmib; m++) {
				const struct run *x = &runs[(r * nset + s) * nk + m];

				i = (r * nset + s) * nmib + m;
				p[i].faults = (double)x->minflt;
				p[i].sys_ns = (double)x->sys_ns;
				p[i].bytes = (double)mib[m] * (1 << 20);
			}
	if (rp_cost_fit_host_spread(p, o->runs, nset * nmib, sp))
		error_clear();	/* sp->why says it */
	free(p);
}

/*
 * The calibration proper, knobs saved: per round, per setting, anon-touch at each size
 * (hot) and, if o->cold, at cold_mib with --between (cold); runs[(r * nset + s) * nk + m],
 * m < nmib the hot sizes, m == nmib the cold run.
 */
static int calibrate(const struct vm_host_cal *o, const char *prog, const unsigned int *set,
		     size_t nset, const unsigned int *mib, size_t nmib, unsigned int cold_mib,
		     struct rp_cost *out)
{
	size_t nk = nmib + (o->cold ? 1 : 0);
	struct rp_host_point *p = xcalloc(nset * nk, sizeof(*p));
	struct rp_host_point *hot = xcalloc(nset * nmib, sizeof(*hot));
	struct rp_host_point *cold = xcalloc(nset, sizeof(*cold));
	struct run *runs = xcalloc((size_t)o->runs * nset * nk, sizeof(*runs));
	uint64_t *v = xcalloc(o->runs, sizeof(*v)), *w = xcalloc(o->runs, sizeof(*w));
	struct vm_ksampler *k = vm_ksample_open();
	struct run warm;
	size_t s, m, i;
	unsigned int r;
	int ret = -1;

	if (!k && o->note)
		o->note(vm_ksample_why(), o->arg);
	vm_knobs_child_group(vm_ksample_dir(k));
	/* warm-up: the binary's pages in the page cache, the allocator's free lists */
	if (vm_knobs_set(4) || run_once(k, prog, mib[0], 0, &warm) ||
	    (o->cold && run_once(k, prog, cold_mib, 1, &warm)))
		goto out;
	for (r = 0; r < o->runs; r++)
		for (s = 0; s < nset; s++)
			for (m = 0; m < nk; m++)
				if (vm_knobs_set(set[s]) ||
				    run_once(k, prog, m < nmib ? mib[m] : cold_mib, m == nmib,
					     &runs[(r * nset + s) * nk + m]))
					goto out;
	if (vm_knobs_set(4))
		goto out;
	for (s = 0; s < nset; s++)
		for (m = 0; m < nk; m++) {
			for (r = 0; r < o->runs; r++) {
				v[r] = runs[(r * nset + s) * nk + m].minflt;
				w[r] = runs[(r * nset + s) * nk + m].sys_ns;
			}
			i = s * nk + m;
			p[i].faults = (double)median_u64(v, o->runs);
			p[i].sys_ns = (double)median_u64(w, o->runs);
			p[i].bytes = (double)(m < nmib ? mib[m] : cold_mib) * (1 << 20);
			if (m < nmib)
				hot[s * nmib + m] = p[i];
			else
				cold[s] = p[i];
			if (o->point)
				o->point(set[s], m < nmib ? mib[m] : cold_mib, m == nmib, &p[i],
					 o->arg);
		}
	ret = rp_cost_fit_host(hot, nset * nmib, out, NULL) ||
	      (o->cold && rp_cost_fit_host_cold(cold, nset, out)) ? -1 : 0;
	if (!ret && o->spread)
		spread(o, runs, nset, mib, nmib, nk, o->spread);
	out->samples = (int64_t)o->runs * (int64_t)(nset * nk);
	out->traces = 0;
out:
	vm_knobs_child_group(NULL);
	vm_ksample_close(k);
	free(p);
	free(hot);
	free(cold);
	free(runs);
	free(v);
	free(w);
	return ret;
}

/* What a calibration runs, decided before any knob is written. */
struct plan {
	char prog[4096];			/* the anon-touch binary */
	unsigned int set[VM_KNOBS_MAX];		/* settings: 4, then the sizes, KiB */
	size_t nset;
	unsigned int mib[VM_HOST_CAL_MAX_MIB];		/* anon-touch sizes, MiB */
	size_t nmib;
	unsigned int cold_mib;			/* the cold runs' size, MiB */
};

static int prepare(const struct vm_host_cal *o, struct rp_cost_key *key, struct plan *pl)
{
	unsigned int kb[VM_KNOBS_MAX];
	char rel[128];
	size_t i, j;
	int n;

	if (!o->runs)
		return fail("calibration runs: at least 1 per setting");
	if (rp_cost_host_key(key) || cold_mib(&pl->cold_mib))
		return -1;
	if (o->nr_mib > VM_HOST_CAL_MAX_MIB)
		return fail("%zu calibration footprints: %d at most", o->nr_mib,
			    VM_HOST_CAL_MAX_MIB);
	pl->nmib = o->nr_mib ? o->nr_mib : sizeof(default_mib) / sizeof(*default_mib);
	memcpy(pl->mib, o->nr_mib ? o->mib : default_mib, pl->nmib * sizeof(*pl->mib));
	/* the fit tells byte_ns from base by the footprints (rp_cost_fit_host()) */
	for (i = 1; i < pl->nmib && pl->mib[i] == pl->mib[0]; i++)
		;
	if (i == pl->nmib)
		return fail("one calibration footprint (%u MiB): the fit needs two sizes or more",
			    pl->mib[0]);
	n = vm_knobs_check(kb, VM_KNOBS_MAX - 1);
	if (n < 0)
		return -1;
	pl->nset = 0;
	pl->set[pl->nset++] = 4;
	for (i = 0; i < (size_t)n; i++) {
		for (j = 0; j < o->nr_kb && o->kb[j] != kb[i]; j++)
			;
		if (o->nr_kb ? j < o->nr_kb : kb[i] > 4 && kb[i] < PMD_KB)
			pl->set[pl->nset++] = kb[i];
	}
	for (j = 0; j < o->nr_kb; j++) {
		for (i = 1; i < pl->nset && pl->set[i] != o->kb[j]; i++)
			;
		if (i == pl->nset)
			return fail("no %s/hugepages-%ukB/enabled on this kernel", vm_knobs_top(),
				    o->kb[j]);
	}
	if (pl->nset < 2)
		return fail("%s has no mTHP size between 4K and the PMD size", vm_knobs_top());
	snprintf(rel, sizeof(rel), "build/workloads/%s/anon-touch", key->arch);
	snprintf(pl->prog, sizeof(pl->prog), "%s", vm_path(rel));
	if (access(pl->prog, X_OK))
		return fail("no calibration workload %s: build it (make)", pl->prog);
	return 0;
}

int vm_host_calibrate_check(const struct vm_host_cal *o)
{
	struct rp_cost_key key;
	struct plan pl;

	return prepare(o, &key, &pl);
}

int vm_host_calibrate(const struct vm_host_cal *o, struct rp_cost *out)
{
	struct plan pl;
	int ret;

	memset(out, 0, sizeof(*out));
	if (prepare(o, &out->key, &pl) || vm_knobs_save())
		return -1;
	ret = calibrate(o, pl.prog, pl.set, pl.nset, pl.mib, pl.nmib, pl.cold_mib, out);
	if (vm_knobs_restore())
		ret = -1;
	return ret;
}
