// SPDX-License-Identifier: GPL-2.0
/*
 * kill-at-write.c - an LD_PRELOAD shim for tests/cli/hostile-interrupt.sh: interrupt a
 * process at a known point of an SQLite write, with no test hook in foliotrace itself.
 *
 *	KILL_AT_WRITE_FILE=SUFFIX	watch pwrite64() to files whose path ends with SUFFIX
 *	KILL_AT_WRITE_N=N		at the Nth such write (1-based), before it happens,
 *	KILL_AT_WRITE_SIG=SIG		raise signal SIG (default 9, SIGKILL)
 *
 * SQLite (journal_mode DELETE) writes and syncs the rollback journal before it writes the
 * first page of the database file, so write N of "x.db" is made with a hot journal beside
 * it and N - 1 pages of the transaction already in the database file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	static long count;
	const char *suffix = getenv("KILL_AT_WRITE_FILE");
	const char *nth = getenv("KILL_AT_WRITE_N"), *sig = getenv("KILL_AT_WRITE_SIG");
	char link[64], path[PATH_MAX];
	ssize_t len;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (suffix && len > 0) {
		size_t sl = strlen(suffix);

		path[len] = '\0';
		if ((size_t)len >= sl && !strcmp(path + len - sl, suffix) &&
		    ++count == (nth ? atol(nth) : 1))
			raise(sig ? atoi(sig) : SIGKILL);
	}
	return real(fd, buf, n, off);
}
