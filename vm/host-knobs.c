// SPDX-License-Identifier: GPL-2.0
/*
 * host-knobs.c - the host's mTHP knobs saved, set, restored; see host-knobs.h. The saved
 * values live in static arrays so that the signal handler restores them with open(),
 * write() and close() only (async-signal-safe), whatever the program was doing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "vm/host-knobs.h"

#define VALUE_MAX 16		/* longest setting: "madvise", "inherit", "within_size" */

static char knob_path[VM_KNOBS_MAX][PATH_MAX];
static char knob_saved[VM_KNOBS_MAX][VALUE_MAX];
static unsigned int knob_kb[VM_KNOBS_MAX];	/* 0 for TOP/enabled */
static volatile sig_atomic_t nr_saved;		/* knobs saved: the handler restores these */
static volatile pid_t child;
static char child_group[PATH_MAX];		/* removed by the handler after the child */
static int lock_fd = -1;			/* VM_KNOBS_LOCK, held while saved */
static struct sigaction old_act[3];
static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };

const char *vm_knobs_top(void)
{
	const char *t = getenv("FT_HOST_THP_SYSFS");

	return t && *t ? t : "/sys/kernel/mm/transparent_hugepage";
}

static int by_kb(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The per-size knobs' sizes, KiB, ascending: hugepages-<N>kB directories with enabled. */
static int sizes(unsigned int *kb, size_t max)
{
	char p[PATH_MAX];
	struct dirent *d;
	unsigned int n;
	char tail;
	DIR *dir;
	size_t nr = 0;

	dir = opendir(vm_knobs_top());
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (sscanf(d->d_name, "hugepages-%ukB%c", &n, &tail) == 1 && n && nr < max) {
			snprintf(p, sizeof(p), "%s/%s/enabled", vm_knobs_top(), d->d_name);
			if (!access(p, F_OK))
				kb[nr++] = n;
		}
	closedir(dir);
	qsort(kb, nr, sizeof(*kb), by_kb);
	return (int)nr;
}

int vm_knobs_check(unsigned int *kb, size_t max)
{
	const char *u = getenv("FT_HOST_UID");
	struct utsname un;
	int n = sizes(kb, max);
	long uid = u && *u ? strtol(u, NULL, 10) : (long)geteuid();

	if (n <= 0) {
		if (uname(&un))
			snprintf(un.release, sizeof(un.release), "?");
		return fail("this kernel (%s) has no %s/hugepages-*kB/enabled: per-size mTHP "
			    "needs Linux 6.8+", un.release, vm_knobs_top());
	}
	if (uid != 0)
		return fail("writing %s needs root (effective uid %ld)", vm_knobs_top(), uid);
	return n;
}

/* The setting of a knob file: the bracketed word ("always [madvise] never"), or, in a fake
 * tree of plain files, the file's first word. */
static int read_knob(const char *path, char *v, size_t n)
{
	char buf[256], *s, *e;
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return fail("cannot read %s: %s", path, strerror(errno));
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	s = strchr(buf, '[');
	if (s && (e = strchr(++s, ']')))
		*e = 0;
	else
		s = strtok(buf, " \t\n") ? buf : NULL;
	if (!s || !*s || strlen(s) >= n || strpbrk(s, " \t\n"))
		return fail("cannot read the setting of %s", path);
	snprintf(v, n, "%s", s);
	return 0;
}

/* Write v to path with system calls only (also from the signal handler). */
static int write_raw(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
	return close(fd) == 0 && ok ? 0 : -1;
}

static int write_knob(const char *path, const char *v)
{
	if (write_raw(path, v))
		return fail("cannot write %s to %s: %s", v, path, strerror(errno));
	return 0;
}

/* Restore every saved knob; the index of the first that failed, or -1. */
static int restore_raw(void)
{
	int i, bad = -1;

	for (i = 0; i < nr_saved; i++)
		if (write_raw(knob_path[i], knob_saved[i]) && bad < 0)
			bad = i;
	return bad;
}

static void on_signal(int sig)
{
	pid_t c = child;

	if (c > 0) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	if (*child_group)
		rmdir(child_group);
	restore_raw();
	nr_saved = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The knobs' lock, not waited for: a second writer is refused, not queued. */
int vm_knobs_lock(void)
{
	const char *p = getenv("FT_HOST_KNOBS_LOCK");

	if (lock_fd >= 0)
		return 0;
	if (!p || !*p)
		p = VM_KNOBS_LOCK;
	lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock_fd < 0)
		return fail("cannot open the mTHP knobs' lock %s: %s", p, strerror(errno));
	if (flock(lock_fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	close(lock_fd);
	lock_fd = -1;
	if (errno == EWOULDBLOCK)
		return fail("another program is changing this machine's mTHP knobs (it holds %s)", p);
	return fail("cannot lock %s: %s", p, strerror(errno));
}

void vm_knobs_unlock(void)
{
	if (lock_fd >= 0)
		close(lock_fd);	/* closing the only descriptor releases the flock */
	lock_fd = -1;
}

int vm_knobs_save(void)
{
	unsigned int kb[VM_KNOBS_MAX - 1];
	struct sigaction sa;
	int n = sizes(kb, VM_KNOBS_MAX - 1), i;

	nr_saved = 0;
	if (vm_knobs_lock())
		return -1;
	for (i = 0; i <= n; i++) {
		if (i == 0)
			snprintf(knob_path[i], PATH_MAX, "%s/enabled", vm_knobs_top());
		else
			snprintf(knob_path[i], PATH_MAX, "%s/hugepages-%ukB/enabled",
				 vm_knobs_top(), kb[i - 1]);
		knob_kb[i] = i ? kb[i - 1] : 0;
		if (read_knob(knob_path[i], knob_saved[i], VALUE_MAX)) {
			vm_knobs_unlock();
			return -1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old_act[i]);
	nr_saved = n + 1;	/* every value read: the handler may restore from here on */
	return 0;
}

int vm_knobs_set(unsigned int kb)
{
	int i, on = -1;

	if (!nr_saved)
		return fail("the knobs were not saved before being set");
	for (i = 1; i < nr_saved; i++)
		if (knob_kb[i] == kb)
			on = i;
	if (kb != 4 && on < 0)
		return fail("no %s/hugepages-%ukB/enabled", vm_knobs_top(), kb);
	/* every knob never first, the chosen size last: never two sizes on at once */
	for (i = 0; i < nr_saved; i++)
		if (i != on && write_knob(knob_path[i], "never"))
			return -1;
	return on < 0 ? 0 : write_knob(knob_path[on], "always");
}

void vm_knobs_child(pid_t pid)
{
	child = pid;
}

void vm_knobs_child_group(const char *dir)
{
	*child_group = 0;	/* never half a path under the handler */
	if (dir && strlen(dir) < sizeof(child_group)) {
		memcpy(child_group + 1, dir + 1, strlen(dir));
		child_group[0] = dir[0];
	}
}

int vm_knobs_restore(void)
{
	int i, bad;

	if (!nr_saved)
		return 0;
	bad = restore_raw();
	if (bad >= 0)
		fail("cannot restore %s to %s: %s", knob_path[bad], knob_saved[bad],
		     strerror(errno));
	nr_saved = 0;
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old_act[i], NULL);
	vm_knobs_unlock();
	return bad >= 0 ? -1 : 0;
}
