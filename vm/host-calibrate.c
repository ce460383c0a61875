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
#include "vm/spawn.h"

#define MAX_MIB 8		/* anon-touch sizes */
#define PMD_KB 2048		/* sizes from here are PMD maps: not calibrated */

/* One run's measures. */
struct run {
	uint64_t minflt;
	uint64_t sys_ns;
};

/* The anon-touch sizes, MiB: $FT_HOST_CALIBRATE_MIB or the default. */
static int parse_mib(unsigned int *mib, size_t *n)
{
	const char *e = getenv("FT_HOST_CALIBRATE_MIB");
	const char *s = e && *e ? e : VM_HOST_CAL_MIB;
	char *end;
	unsigned long v;

	*n = 0;
	for (;;) {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || !v || v > 1UL << 20 || *n == MAX_MIB ||
		    (*end && *end != ','))
			return fail("FT_HOST_CALIBRATE_MIB %s: comma-separated MiB, 1 to %d of them",
				    s, MAX_MIB);
		mib[(*n)++] = (unsigned int)v;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

/* Run anon-touch MIB M once under the knobs as they are. */
static int run_once(const char *prog, unsigned int mib, struct run *r)
{
	char arg[32];
	struct rusage ru;
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
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	vm_knobs_child(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			vm_knobs_child(0);
			return fail("wait4: %s", strerror(errno));
		}
	vm_knobs_child(0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return fail("%s %s %s %d", prog, arg, WIFEXITED(st) ? "exited" : "killed by signal",
			    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	r->minflt = (uint64_t)ru.ru_minflt;
	r->sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000 + (uint64_t)ru.ru_stime.tv_usec * 1000;
	return 0;
}

static uint64_t median_u64(uint64_t *v, size_t n)
{
	rp_u64_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The calibration proper, knobs saved; runs[(r * nset + s) * nmib + m]. */
static int calibrate(const struct vm_host_cal *o, const char *prog, const unsigned int *set,
		     size_t nset, const unsigned int *mib, size_t nmib, struct rp_cost *out)
{
	struct rp_host_point *p = xcalloc(nset * nmib, sizeof(*p));
	struct run *runs = xcalloc((size_t)o->runs * nset * nmib, sizeof(*runs));
	uint64_t *v = xcalloc(o->runs, sizeof(*v)), *w = xcalloc(o->runs, sizeof(*w));
	struct run warm;
	size_t s, m, i;
	unsigned int r;
	int ret = -1;

	/* warm-up: the binary's pages in the page cache, the allocator's free lists */
	if (vm_knobs_set(4) || run_once(prog, mib[0], &warm))
		goto out;
	for (r = 0; r < o->runs; r++)
		for (s = 0; s < nset; s++)
			for (m = 0; m < nmib; m++)
				if (vm_knobs_set(set[s]) ||
				    run_once(prog, mib[m], &runs[(r * nset + s) * nmib + m]))
					goto out;
	if (vm_knobs_set(4))
		goto out;
	for (s = 0; s < nset; s++)
		for (m = 0; m < nmib; m++) {
			for (r = 0; r < o->runs; r++) {
				v[r] = runs[(r * nset + s) * nmib + m].minflt;
				w[r] = runs[(r * nset + s) * nmib + m].sys_ns;
			}
			i = s * nmib + m;
			p[i].faults = (double)median_u64(v, o->runs);
			p[i].sys_ns = (double)median_u64(w, o->runs);
			p[i].bytes = (double)mib[m] * (1 << 20);
			if (o->point)
				o->point(set[s], mib[m], &p[i], o->arg);
		}
	ret = rp_cost_fit_host(p, nset * nmib, out, NULL);
	out->samples = (int64_t)o->runs * (int64_t)(nset * nmib);
	out->traces = 0;
out:
	free(p);
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
	unsigned int mib[MAX_MIB];		/* anon-touch sizes, MiB */
	size_t nmib;
};

static int prepare(const struct vm_host_cal *o, struct rp_cost_key *key, struct plan *pl)
{
	unsigned int kb[VM_KNOBS_MAX];
	char rel[128];
	size_t i, j;
	int n;

	if (!o->runs)
		return fail("calibration runs: at least 1 per setting");
	if (rp_cost_host_key(key) || parse_mib(pl->mib, &pl->nmib))
		return -1;
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
	ret = calibrate(o, pl.prog, pl.set, pl.nset, pl.mib, pl.nmib, out);
	if (vm_knobs_restore())
		ret = -1;
	return ret;
}
