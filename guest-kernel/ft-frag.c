// SPDX-License-Identifier: GPL-2.0
/*
 * ft-frag.c - fragment the guest's free memory before the workload starts (--fragment).
 *
 *	ft-frag SPEC READYFILE
 *
 * SPEC is guest-kernel/fragspec.h's grammar. Started by /init (as root, before tracing
 * starts, so none of its faults are traced and it is never part of the workload's process
 * tree). It
 *   1. maps all free memory but a reserve (3 x min_free_kbytes + 8 MiB, for the kernel's
 *      watermarks and page tables), MADV_NOHUGEPAGE so every page is order 0 whatever the
 *      knob, and mlock()s it, which faults every page in;
 *   2. reads each page's pfn from /proc/self/pagemap and, in every naturally aligned block
 *      of 2^(N+1) pfns, keeps one of its pages (the one nearest above a seeded pseudo-random
 *      offset) and munmap()s the others: the freed pages of a block cannot merge into a
 *      block above order N while the kept one is allocated;
 *   3. checks pct:P, writes READYFILE (one line: pages taken, kept, freed, the % of buddyinfo's free
 *      pages at order <= N) and sleeps, holding the kept pages, until killed.
 * /init sets vm.compact_unevictable_allowed = 0 first: compaction then does not move the
 * kept (mlocked) pages and cannot undo the fragmentation.
 * Deterministic for a given seed and pfn layout (the same guest, memory and boot).
 * Exit status: 1 on failure (the reason on stderr), never 0 (it is killed).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fragspec.h"

static void die(const char *what)
{
	fprintf(stderr, "ft-frag: %s\n", what);
	exit(1);
}

/* a /proc file's "KEY value" line (meminfo, kB) or a one-number file */
static long read_num(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			v = atol(line);
			break;
		}
		if (!strncmp(line, key, strlen(key))) {
			v = atol(line + strlen(key));
			break;
		}
	}
	fclose(f);
	return v;
}

/* splitmix64: the offset of the kept page in each block, from the seed and the block */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct pg {
	uint64_t pfn;
	size_t idx;	/* page index in the mapping */
};

static int by_pfn(const void *a, const void *b)
{
	const struct pg *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

static int by_idx(const void *a, const void *b)
{
	const struct pg *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* % of the free pages in /proc/buddyinfo (all zones) in blocks of order <= order */
static double pct_low(int order)
{
	char line[512];
	double low = 0, all = 0;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		die("cannot read /proc/buddyinfo");
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		int o = 0;

		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')		/* the zone's name */
			p++;
		for (;;) {
			char *end;
			double n = strtod(p, &end);

			if (end == p)
				break;
			all += n * (double)(1UL << o);
			if (o <= order)
				low += n * (double)(1UL << o);
			p = end;
			o++;
		}
	}
	fclose(f);
	return all > 0 ? 100.0 * low / all : 0;
}

int main(int argc, char **argv)
{
	struct ft_fragspec fs;
	const char *why;
	long page = sysconf(_SC_PAGESIZE), free_kb, min_kb;
	size_t npages, i, kept = 0, freed = 0;
	struct pg *pgs;
	uint64_t *pm;
	char *base;
	double pct;
	FILE *out;
	int fd;

	if (argc != 3)
		die("usage: ft-frag SPEC READYFILE");
	if (ft_fragspec_parse(argv[1], &fs, &why)) {
		fprintf(stderr, "ft-frag: bad spec '%s': %s\n", argv[1], why);
		return 1;
	}
	free_kb = read_num("/proc/meminfo", "MemFree:");
	min_kb = read_num("/proc/sys/vm/min_free_kbytes", NULL);
	if (free_kb < 0 || min_kb < 0)
		die("cannot read MemFree or min_free_kbytes");
	if (free_kb <= 3 * min_kb + 8192 + 4096)
		die("too little free memory to fragment");
	npages = (size_t)(free_kb - 3 * min_kb - 8192) * 1024 / (size_t)page;
	/* a VMA per kept page at worst: raise the limit (65530) for small orders */
	if (npages / 2 + 1000 > 65530) {
		FILE *m = fopen("/proc/sys/vm/max_map_count", "w");

		if (!m || fprintf(m, "%zu\n", npages / 2 + 1000) < 0 || fclose(m))
			die("cannot raise vm.max_map_count");
	}
	base = mmap(NULL, npages * (size_t)page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		die("mmap of the free memory failed");
	if (madvise(base, npages * (size_t)page, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE) failed");
	if (mlock(base, npages * (size_t)page))
		die("mlock of the free memory failed");
	fprintf(stderr, "ft-frag: MemFree %ld kB, min_free_kbytes %ld, took %zu pages, MemFree now %ld kB\n",
		free_kb, min_kb, npages, read_num("/proc/meminfo", "MemFree:"));

	pm = malloc(npages * sizeof(*pm));
	pgs = malloc(npages * sizeof(*pgs));
	if (!pm || !pgs)
		die("out of memory for the pfn table");
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, pm, npages * sizeof(*pm),
			    (off_t)((uintptr_t)base / (uintptr_t)page * sizeof(*pm))) !=
		      (ssize_t)(npages * sizeof(*pm)))
		die("cannot read /proc/self/pagemap");
	close(fd);
	for (i = 0; i < npages; i++) {
		if (!(pm[i] >> 63) || !(pm[i] & ((1ULL << 55) - 1)))
			die("a locked page is not present or its pfn is hidden (not root?)");
		pgs[i].pfn = pm[i] & ((1ULL << 55) - 1);
		pgs[i].idx = i;
	}
	free(pm);

	/*
	 * Per aligned block of 2^(N+1) pfns: keep the page whose offset is first at or after
	 * the seeded offset r (cyclically); mark the others freed (pfn = 0).
	 */
	qsort(pgs, npages, sizeof(*pgs), by_pfn);
	for (i = 0; i < npages;) {
		int shift = fs.order + 1;
		uint64_t blk = pgs[i].pfn >> shift, mask = (1ULL << shift) - 1;
		uint64_t r = mix(fs.seed ^ (blk << 8)) & mask, best_d = mask + 1;
		size_t j, end = i, best = i;

		while (end < npages && pgs[end].pfn >> shift == blk)
			end++;
		for (j = i; j < end; j++) {
			uint64_t d = ((pgs[j].pfn & mask) - r) & mask;

			if (d < best_d) {
				best_d = d;
				best = j;
			}
		}
		for (j = i; j < end; j++)
			if (j != best)
				pgs[j].pfn = 0;
		kept++;
		i = end;
	}
	/* free in virtual order, one munmap per run of consecutive freed pages */
	qsort(pgs, npages, sizeof(*pgs), by_idx);
	for (i = 0; i < npages;) {
		size_t end = i;

		if (pgs[i].pfn) {
			i++;
			continue;
		}
		while (end < npages && !pgs[end].pfn)
			end++;
		if (munmap(base + i * (size_t)page, (end - i) * (size_t)page))
			die("munmap failed (vm.max_map_count?)");
		freed += end - i;
		i = end;
	}
	free(pgs);
	sleep(1);	/* let the per-cpu page lists drain to the buddy allocator */
	pct = pct_low(fs.order);
	if (fs.pct && pct < fs.pct) {
		fprintf(stderr, "ft-frag: only %.1f%% of free memory is in blocks of order <= %d, "
			"%d%% requested\n", pct, fs.order, fs.pct);
		return 1;
	}
	out = fopen(argv[2], "w");
	if (!out)
		die("cannot write the ready file");
	fprintf(out, "taken=%zu kept=%zu freed=%zu pct_at_or_below_order=%.1f\n",
		npages, kept, freed, pct);
	if (fclose(out))
		die("cannot write the ready file");
	for (;;)
		pause();
}
