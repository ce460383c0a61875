/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wl-common.h - helpers shared by the bundled workloads (one .c file each in workloads/).
 *
 * The workloads run as static binaries in a busybox guest while the patched kernel traces
 * every anonymous fault, and the guest tests assert exact fault counts. So everything here
 * is about keeping the measured phase free of noise: no allocation, no I/O and no first-use
 * page faults of our own between the two fault-counter readings.
 *
 * Each workload is one .c file built on its own (see the Makefile), so every function here
 * is static inline: a program that does not use one gets no unused-function warning.
 *
 * Conventions (docs/workloads.md):
 *   - exactly one "RESULT <workload> key=value ..." line per process on stdout, printed
 *     once the measurement is complete; the last key is always status= (0 = all checks
 *     passed), so a truncated line is detectable;
 *   - errors: one line "<program>: <message>" on stderr, exit 1; usage errors exit 2.
 */
#ifndef WL_COMMON_H
#define WL_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define WL_2M (2UL << 20) /* bytes: PMD size with 4K base pages, the alignment we promise */

static const char *wl_prog = "workload"; /* set by main() from its workload name */

static inline void wl_verror(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", wl_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Print "<prog>: <message>" on stderr; returns -1 so "return wl_error(...);" reads well. */
static inline int __attribute__((format(printf, 1, 2))) wl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wl_verror(fmt, ap);
	va_end(ap);
	return -1;
}

/* Report a runtime failure and exit 1. Only main() and the option parsing call this. */
static inline void __attribute__((noreturn, format(printf, 1, 2))) wl_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wl_verror(fmt, ap);
	va_end(ap);
	exit(1);
}

/* Print the usage text and exit 2 (usage error), or 0 for --help. */
static inline void __attribute__((noreturn)) wl_usage(const char *usage, int status)
{
	fprintf(status ? stderr : stdout, "usage: %s %s\n", wl_prog, usage);
	exit(status);
}

/*
 * getopt_long() with the usage rules every workload follows: long options only (and -h);
 * -h/--help prints the usage on stdout and exits 0; an unknown option, a missing value, or
 * a number of operands other than @nr_args once the options are done prints it on stderr
 * and exits 2. Return: the next option's val, or -1 when the options are done (the operands
 * start at optind).
 */
static inline int wl_getopt(int argc, char **argv, const struct option *opts, const char *usage,
			    int nr_args)
{
	int c = getopt_long(argc, argv, "h", opts, NULL);

	if (c == 'h') {
		wl_usage(usage, 0);
	}
	if (c == '?' || (c == -1 && argc - optind != nr_args)) {
		wl_usage(usage, 2);
	}
	return c;
}

/* The base page size in bytes (4K on x86_64; arm64 kernels may use 16K or 64K). */
static inline size_t wl_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * Exit 2 with "<what> must be a multiple of the page size" unless @size is a whole number
 * of pages and at most SIZE_MAX / 2 bytes. @what names the option or operand (--size, SIZE).
 */
static inline void wl_check_pages(const char *what, uint64_t size)
{
	size_t page = wl_page_size();

	if (size % page || size > SIZE_MAX / 2) {
		wl_error("%s must be a multiple of the page size (%zu bytes)", what, page);
		exit(2);
	}
}

/*
 * Parse a byte count: decimal digits with an optional K, M, G or T suffix (powers of 1024,
 * either case), e.g. "4096", "12K", "64M", "1G". Return: 0 and *out set, or -1 if @s is
 * empty, has other characters, is zero or overflows 64 bits.
 */
static inline int wl_parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9') {
		return -1;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10) {
			return -1;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	default:
		return -1;
	}
	if (shift && *++p != '\0') {
		return -1;
	}
	if (v == 0 || v > (UINT64_MAX >> shift)) {
		return -1;
	}
	*out = v << shift;
	return 0;
}

/* Parse a plain unsigned decimal number (no suffix; 0 allowed). Return: 0 or -1. */
static inline int wl_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9') {
		return -1;
	}
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Option-parsing wrappers: on a bad value, say which option and exit 2. */
static inline uint64_t wl_opt_size(const char *opt, const char *arg)
{
	uint64_t v;

	if (wl_parse_size(arg, &v)) {
		wl_error("invalid size for %s: '%s' (want e.g. 4096, 12K, 64M, 1G)", opt, arg);
		exit(2);
	}
	return v;
}

static inline uint64_t wl_opt_u64(const char *opt, const char *arg)
{
	uint64_t v;

	if (wl_parse_u64(arg, &v)) {
		wl_error("invalid number for %s: '%s'", opt, arg);
		exit(2);
	}
	return v;
}

/* Page-fault counters of this process (getrusage RUSAGE_SELF), in faults. */
struct wl_faults {
	long minflt; /* faults served without I/O: anonymous first touch, zero page, COW */
	long majflt; /* faults that needed I/O (none expected: the guest has no swap) */
};

/*
 * Read the counters. The first call in a process (and the first after fork(), when the
 * stack is copy-on-write) may itself fault: its code page, or the stack page that receives
 * the result, and the kernel counts that fault after taking the snapshot. Callers therefore
 * call wl_faults_warmup() first, so the two readings that bracket a measured phase add
 * nothing to it.
 */
static inline struct wl_faults wl_faults_now(void)
{
	struct rusage ru;
	struct wl_faults f;

	getrusage(RUSAGE_SELF, &ru);
	f.minflt = ru.ru_minflt;
	f.majflt = ru.ru_majflt;
	return f;
}

static inline void wl_faults_warmup(void)
{
	(void)wl_faults_now();
	(void)wl_faults_now();
}

static inline struct wl_faults wl_faults_since(struct wl_faults before)
{
	struct wl_faults now = wl_faults_now();

	now.minflt -= before.minflt;
	now.majflt -= before.majflt;
	return now;
}

/*
 * Map @size bytes (a multiple of the page size) of private anonymous read-write memory
 * whose start is 2M aligned and which has no VMA directly before or after it, so the kernel
 * cannot merge it with a neighbour and the VMA's bounds are exactly [start, start + size)
 * on every run, whatever ASLR did. A folio-order policy decides on naturally aligned blocks
 * inside the VMA, so a fault count is only reproducible if the VMA's alignment is.
 *
 * We map size + 4M and unmap the excess on both sides: the start is the first 2M boundary
 * at least one page above the raw mapping, so at least a page of hole stays below and at
 * least 2M above. (With only size + 2M, an already aligned raw mapping would keep its lower
 * edge, which may touch another mapping.) Nothing is touched here.
 *
 * Return: the start address, or NULL with errno set.
 */
static inline void *wl_map_aligned(size_t size)
{
	size_t page = wl_page_size();
	size_t len = size + 2 * WL_2M;
	uintptr_t raw, start, end;
	void *p;

	if (size == 0 || size % page || len < size) {
		errno = EINVAL;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		return NULL;
	}
	raw = (uintptr_t)p;
	start = (raw + page + WL_2M - 1) & ~(WL_2M - 1);
	end = start + size;
	if (munmap(p, start - raw) || munmap((void *)end, raw + len - end)) {
		return NULL;
	}
	return (void *)start;
}

/* SplitMix64 (Steele, Lea, Flood 2014): a tiny PRNG, so a seed fixes the whole run. */
static inline uint64_t wl_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) for n > 0; the modulo bias (n / 2^64) is irrelevant here. */
static inline uint64_t wl_rand_below(uint64_t *state, uint64_t n)
{
	return wl_rand(state) % n;
}

/*
 * Print "RESULT <workload> pid=<tgid> <fields>\n" on stdout and flush it (the pid lets a
 * test pick the process's own events out of a trace), so the line is complete
 * before the process holds, forks or exits. Return: 0, or -1 if stdout failed (full disk,
 * closed pipe), in which case the caller exits non-zero rather than report a silent success.
 */
static inline int __attribute__((format(printf, 1, 2))) wl_result(const char *fmt, ...)
{
	va_list ap;

	printf("RESULT %s pid=%d ", wl_prog, (int)getpid());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (fflush(stdout) || ferror(stdout)) {
		return wl_error("cannot write the result line: %s", strerror(errno));
	}
	return 0;
}

#endif /* WL_COMMON_H */
