// SPDX-License-Identifier: GPL-2.0
/*
 * sites-demo.c - anonymous memory from known functions, for `record --sites`
 * (tests/guest/sites.sh, docs/sites.md).
 *
 *	sites-demo [--help]
 *
 * map_dense    mmap 64 pages, writes every page                    -> 64 faults
 * map_sparse   mmap 256 pages, writes every 8th page               -> 32 faults
 * heap_user    malloc(1 MiB) (above glibc's 128 KiB mmap threshold: its own mmap) written
 *              whole, and 64 x malloc(8000) (below it: the brk heap) written whole
 * grow_buffer  malloc(256 KiB) written whole (mmap), realloc to 1 MiB (mremap of the chunk)
 *              and the new part written
 *
 * Prints one line per function, "EXPECT fn=NAME faults=N", then "RESULT sites-demo pid=N
 * status=0|1" (status 1: a byte read back was wrong), with the anonymous faults its
 * memory takes under the order-0 policy, from this program's own arithmetic: the distinct
 * base pages written inside what the function's calls mapped. For the brk heap that is
 * every page from the first page above the break before heap_user's first malloc up to
 * the page holding the top chunk's size field just past the last chunk (glibc writes it:
 * 8 bytes at chunk end), since heap_user is the first to use malloc (its tcache and
 * chunks fill the heap from the old break on, each written whole). Output goes through
 * write(2) and a stack buffer: stdio would malloc its buffer from the heap measured.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE		4096ul
#define SMALL		8000ul	/* below the mmap threshold */
#define NR_SMALL	64
#define BIG		(1ul << 20)	/* above it */
#define GROW_FROM	(256ul << 10)
#define GROW_TO		(1ul << 20)

static char outbuf[1024];
static size_t outlen;

static void expect(const char *fn, unsigned long faults)
{
	outlen += (size_t)snprintf(outbuf + outlen, sizeof(outbuf) - outlen,
				   "EXPECT fn=%s faults=%lu\n", fn, faults);
}

/* Base pages that [a, b) touches. */
static unsigned long pages(uintptr_t a, uintptr_t b)
{
	return (b + PAGE - 1) / PAGE - a / PAGE;
}

__attribute__((noipa)) static char *map_dense(void)
{
	char *p = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	unsigned long i;

	if (p == MAP_FAILED)
		exit(1);
	for (i = 0; i < 64; i++)
		p[i * PAGE] = 1;
	expect("map_dense", 64);
	return p;
}

__attribute__((noipa)) static char *map_sparse(void)
{
	char *p = mmap(NULL, 256 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	unsigned long i;

	if (p == MAP_FAILED)
		exit(1);
	for (i = 0; i < 256; i += 8)
		p[i * PAGE] = 1;
	expect("map_sparse", 32);
	return p;
}

__attribute__((noipa)) static void heap_user(char **keep)
{
	uintptr_t brk0 = (uintptr_t)sbrk(0), last_end = 0;
	unsigned long faults;
	char *big = malloc(BIG);
	int i;

	if (!big)
		exit(1);
	memset(big, 1, BIG);
	/* an mmapped chunk: a 16-byte header, then the data */
	faults = pages((uintptr_t)big - 16, (uintptr_t)big + BIG);
	for (i = 0; i < NR_SMALL; i++) {
		keep[i] = malloc(SMALL);
		if (!keep[i])
			exit(1);
		memset(keep[i], 1, malloc_usable_size(keep[i]));
		last_end = (uintptr_t)keep[i] + malloc_usable_size(keep[i]);
	}
	/* the heap from the break on, through the top chunk's size field after the last */
	faults += pages((brk0 + PAGE - 1) & ~(PAGE - 1), last_end + 8);
	keep[NR_SMALL] = big;
	expect("heap_user", faults);
}

__attribute__((noipa)) static char *grow_buffer(void)
{
	char *p = malloc(GROW_FROM), *q;
	unsigned long faults;

	if (!p)
		exit(1);
	memset(p, 1, GROW_FROM);
	faults = pages((uintptr_t)p - 16, (uintptr_t)p + GROW_FROM);
	q = realloc(p, GROW_TO);
	if (!q)
		exit(1);
	memset(q + GROW_FROM, 2, GROW_TO - GROW_FROM);
	/* the pages the first part already had moved with it; only the rest fault */
	faults += pages((uintptr_t)q - 16, (uintptr_t)q + GROW_TO) -
		  pages((uintptr_t)q - 16, (uintptr_t)q + GROW_FROM);
	expect("grow_buffer", faults);
	return q;
}

int main(int argc, char **argv)
{
	static char *keep[NR_SMALL + 1];
	char *a, *b, *c;
	int bad;

	if (argc > 1) {
		static const char usage[] = "usage: sites-demo\n";

		/* --help: the usage on stdout; anything else is a usage error */
		if (!strcmp(argv[1], "--help"))
			return write(1, usage, sizeof(usage) - 1) < 0;
		if (write(2, usage, sizeof(usage) - 1) < 0)
			return 2;
		return 2;
	}
	heap_user(keep);
	a = map_dense();
	b = map_sparse();
	c = grow_buffer();
	bad = a[0] + b[0] + c[0] + c[GROW_FROM] != 5;
	outlen += (size_t)snprintf(outbuf + outlen, sizeof(outbuf) - outlen,
				   "RESULT sites-demo pid=%d status=%d\n", (int)getpid(), bad);
	if (write(1, outbuf, outlen) != (ssize_t)outlen)
		return 1;
	return bad;
}
