// SPDX-License-Identifier: GPL-2.0
/*
 * sites-exit.c - a process that exits while its threads are in mmap, for
 * tests/guest/sites-hostile.sh: under the call-site tracer a thread is then stopped in
 * its call or being unwound when exit_group kills it.
 *
 * NR_THREADS threads run mapper(): mmap 16 pages, write each, count the call as done,
 * forever. The main thread waits until at least MIN_DONE calls are done, prints
 * "EXPECT fn=mapper calls>=N faults>=F" (N: calls done so far, each with its 16 faults;
 * the threads keep going, so the final numbers can only be larger) and calls exit_group
 * with status 0 through _exit while the threads are still mapping.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096ul
#define PAGES		16
#define NR_THREADS	4
#define MIN_DONE	40

static atomic_ulong done;

__attribute__((noipa)) static void *mapper(void *arg)
{
	for (;;) {
		char *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned long i;

		if (p == MAP_FAILED)
			_exit(1);
		for (i = 0; i < PAGES; i++)
			p[i * PAGE] = 1;
		atomic_fetch_add(&done, 1);
	}
	return arg;
}

int main(void)
{
	struct timespec ms = { 0, 1000000 };
	pthread_t t[NR_THREADS];
	char line[128];
	unsigned long n;
	int i, len;

	for (i = 0; i < NR_THREADS; i++)
		if (pthread_create(&t[i], NULL, mapper, NULL))
			return 1;
	while (atomic_load(&done) < MIN_DONE)
		nanosleep(&ms, NULL);
	n = atomic_load(&done);
	len = snprintf(line, sizeof(line), "EXPECT fn=mapper calls>=%lu faults>=%lu\n"
		       "RESULT sites-exit pid=%d status=0\n", n, n * PAGES, (int)getpid());
	if (write(1, line, (size_t)len) != len)
		_exit(1);
	_exit(0);	/* exit_group: the mappers die wherever they are */
}
