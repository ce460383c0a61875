// SPDX-License-Identifier: GPL-2.0
/* ksample.c - a command's kernel time, sampled per cgroup; see ksample.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "vm/ksample.h"

#define MAX_CPUS 256
#define RING_PAGES 256		/* per cpu: 1 MiB, 65536 samples, drained every 10 ms */

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint64_t tail;
};

struct vm_ksampler {
	char dir[4096];		/* the group's directory */
	char procs[4200];	/* its cgroup.procs */
	struct ring ring[MAX_CPUS];
	int nr;
	size_t page;
	uint64_t kernel, user, lost;	/* samples */
};

static char why[256];

const char *vm_ksample_why(void)
{
	return why;
}

/* The caller's cgroup v2 directory: the cgroup2 mount of /proc/self/mounts and the
 * "0::PATH" line of /proc/self/cgroup. Return: 0, or -1 with why set. */
static int own_group(char *dir, size_t n)
{
	char line[4096], mnt[4096] = "", type[64], path[4096] = "";
	FILE *f = fopen("/proc/self/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", mnt, type) == 2 && !strcmp(type, "cgroup2"))
			break;
		else
			*mnt = 0;
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3) && sscanf(line + 3, "%4095s", path) == 1)
			break;
	if (f)
		fclose(f);
	if (!*mnt || !*path) {
		snprintf(why, sizeof(why), "no cgroup v2 %s", *mnt ? "group of this process" :
			 "mount");
		return -1;
	}
	if ((size_t)snprintf(dir, n, "%.2000s%.2000s", mnt, strcmp(path, "/") ? path : "") >= n) {
		snprintf(why, sizeof(why), "cgroup path too long");
		return -1;
	}
	return 0;
}

struct vm_ksampler *vm_ksample_open(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = VM_KSAMPLE_PERIOD_NS, .sample_type = PERF_SAMPLE_IP,
		.exclude_hv = 1,
	};
	struct vm_ksampler *k = xcalloc(1, sizeof(*k));
	char base[4096];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int gfd = -1, c;
	void *m;

	*why = 0;
	k->page = (size_t)sysconf(_SC_PAGESIZE);
	if (own_group(base, sizeof(base)))
		goto fail;
	snprintf(k->dir, sizeof(k->dir), "%.4000s/foliotrace-ksample-%d", base, (int)getpid());
	snprintf(k->procs, sizeof(k->procs), "%s/cgroup.procs", k->dir);
	if (mkdir(k->dir, 0755) && errno != EEXIST) {
		snprintf(why, sizeof(why), "mkdir %.180s: %s", k->dir, strerror(errno));
		*k->dir = 0;
		goto fail;
	}
	gfd = open(k->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (gfd < 0 || ncpu < 1 || ncpu > MAX_CPUS) {
		snprintf(why, sizeof(why), "%.180s: %s", k->dir, gfd < 0 ? strerror(errno) :
			 "too many cpus");
		goto fail;
	}
	for (c = 0; c < ncpu; c++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, gfd, c, -1,
				      PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);

		if (fd < 0 && errno == ENODEV)
			continue;	/* an offline cpu */
		if (fd < 0) {
			snprintf(why, sizeof(why), "perf_event_open (cpu-clock, cgroup): %s",
				 strerror(errno));
			goto fail;
		}
		m = mmap(NULL, (RING_PAGES + 1) * k->page, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		if (m == MAP_FAILED) {
			snprintf(why, sizeof(why), "mmap of a perf ring: %s", strerror(errno));
			close(fd);
			goto fail;
		}
		k->ring[k->nr].fd = fd;
		k->ring[k->nr++].meta = m;
	}
	close(gfd);
	return k;
fail:
	if (gfd >= 0)
		close(gfd);
	vm_ksample_close(k);
	return NULL;
}

int vm_ksample_enter(const struct vm_ksampler *k)
{
	int fd, ok;

	if (!k)
		return 0;
	fd = open(k->procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/* Count the records written since the last drain, and free their room. */
static void drain(struct vm_ksampler *k)
{
	uint64_t size = RING_PAGES * k->page, head, lost;
	struct perf_event_header h;
	unsigned char *data;
	int r;

	for (r = 0; r < k->nr; r++) {
		struct ring *g = &k->ring[r];

		data = (unsigned char *)g->meta + k->page;
		head = __atomic_load_n(&g->meta->data_head, __ATOMIC_ACQUIRE);
		while (g->tail + sizeof(h) <= head) {
			/* headers are 8-byte aligned in a ring of pages: never split */
			memcpy(&h, data + g->tail % size, sizeof(h));
			if (!h.size)
				break;
			if (h.type == PERF_RECORD_SAMPLE) {
				if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER)
					k->user++;
				else
					k->kernel++;
			} else if (h.type == PERF_RECORD_LOST) {
				/* u64 id, u64 lost: the second may wrap the ring's end */
				uint64_t at = (g->tail + sizeof(h) + 8) % size;

				if (at + 8 <= size)
					memcpy(&lost, data + at, 8);
				else
					lost = 1;
				k->lost += lost ? lost : 1;
			}
			g->tail += h.size;
		}
		__atomic_store_n(&g->meta->data_tail, g->tail, __ATOMIC_RELEASE);
	}
}

static uint64_t tv_ns(struct timeval t)
{
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_usec * 1000;
}

int vm_ksample_wait(struct vm_ksampler *k, pid_t pid, int *st, struct vm_ksample *out)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct rusage ru;
	pid_t w;

	memset(out, 0, sizeof(*out));
	if (k)
		k->kernel = k->user = k->lost = 0;
	for (;;) {
		w = wait4(pid, st, k ? WNOHANG : 0, &ru);
		if (w < 0 && errno != EINTR)
			return fail("wait4: %s", strerror(errno));
		if (k)
			drain(k);
		if (w == pid)
			break;
		if (k)
			nanosleep(&tick, NULL);
	}
	out->stime_ns = tv_ns(ru.ru_stime);
	out->utime_ns = tv_ns(ru.ru_utime);
	out->minflt = (uint64_t)ru.ru_minflt;
	if (!k) {
		out->kernel_ns = out->stime_ns;
		out->user_ns = out->utime_ns;
		return 0;
	}
	if (k->lost)
		return fail("the kernel-time sampler lost %llu samples", (unsigned long long)k->lost);
	out->sampled = 1;
	out->kernel_ns = k->kernel * VM_KSAMPLE_PERIOD_NS;
	out->user_ns = k->user * VM_KSAMPLE_PERIOD_NS;
	return 0;
}

const char *vm_ksample_dir(const struct vm_ksampler *k)
{
	return k ? k->dir : NULL;
}

void vm_ksample_close(struct vm_ksampler *k)
{
	int r, i;

	if (!k)
		return;
	for (r = 0; r < k->nr; r++) {
		munmap(k->ring[r].meta, (RING_PAGES + 1) * k->page);
		close(k->ring[r].fd);
	}
	/* empty once its last process is reaped; a straggler that outlived the command is
	 * waited for a little, then the empty group is left for the next open to reuse */
	for (i = 0; *k->dir && i < 50 && rmdir(k->dir) && errno == EBUSY; i++)
		usleep(20000);
	free(k);
}
