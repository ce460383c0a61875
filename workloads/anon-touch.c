// SPDX-License-Identifier: GPL-2.0
/*
 * anon-touch - first-touch faults over one 2M-aligned anonymous VMA.
 *
 * The reference workload of the guest tests: SIZE bytes are touched at a fixed stride in
 * ascending order, so under an order-0 policy every touched page is exactly one anonymous
 * fault (two with --read-first: the zero page, then its copy on write), and under a
 * fixed-order policy the count follows from the block size. --pagemap-check then shows
 * from /proc/self/pagemap whether the kernel really backed each naturally aligned block
 * with physically contiguous memory, which is how a silently ignored order knob is caught.
 *
 * After the measured phase it checks what it reads back: every written byte holds its
 * pattern and, when each page is written once, the rest of the page is zero, so a kernel
 * that maps the wrong page of a large folio or forgets to zero it fails with status=1.
 *
 * For the 6.12 THP shrinker (tests/guest/shrinker-612.sh): --fill SIZE then writes every
 * page of a second, MADV_NOHUGEPAGE VMA (memory pressure in 4K pages after the THPs of the
 * first), and --zeros writes zero bytes instead of the pattern, so the written pages stay
 * zero-filled: the kernel's thp_underused() reads page contents and counts them as unused,
 * while a trace only knows they were written. rss_kb (VmRSS at the end, /proc/self/statm)
 * shows what the shrinker left.
 *
 * For khugepaged (tests/guest/khugepaged-612.sh): --clear-refs writes 1 to
 * /proc/self/clear_refs after the checks, before the hold, clearing every page's accessed
 * (young) and referenced bits, which a trace does not hold: khugepaged then finds no
 * referenced page in a range and does not collapse it (SCAN_LACK_REFERENCED_PAGE).
 *
 * For the cost model's COW terms (calibrate, docs/cost-model.md): --fork then forks a
 * child that writes one byte of every touched page, each a copy on write of a page of
 * the folio the measured phase mapped (a large one under an mTHP policy), and exits; the
 * parent waits. fork_minflt is the child's minor faults (its COWs, its stack).
 *
 * For latency_ns without interrupt time (docs/events.md, "Latency and interrupts"):
 * --timer-us N arms an interval timer (ITIMER_REAL, every N microseconds of guest time)
 * over the measured phase only, so that timer interrupts land inside its faults; an empty
 * SIGALRM handler counts them (timer_signals, delivered on return to user space, outside
 * every fault's latency). The faults are the same as without it.
 */
#include "wl-common.h"

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

static const char usage[] =
	"SIZE [--stride BYTES] [--nohugepage] [--read-first] [--pagemap-check ORDER]"
	" [--hold SECONDS] [--fill SIZE] [--zeros] [--between BYTES] [--clear-refs] [--fork]"
	" [--timer-us N]";

#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_PFN_MASK ((1ULL << 55) - 1)
#define MAX_CHECK_ORDER 20 /* 2^20 pages = 4G blocks with 4K pages: plenty */

static int zeros; /* --zeros: every byte written is 0 */

/*
 * The byte written at the i-th touched offset: varies with i so a misplaced page shows;
 * 0 with --zeros (the page stays zero-filled).
 */
static inline unsigned char pattern(size_t i)
{
	return zeros ? 0 : (unsigned char)(i * 131 + 7) | 1;
}

/* VmRSS in KiB (resident pages of /proc/self/statm), 0 if it cannot be read. */
static uint64_t rss_kb(void)
{
	char buf[128];
	unsigned long long vsz, res;
	int fd = open("/proc/self/statm", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0) {
		close(fd);
	}
	if (n <= 0) {
		return 0;
	}
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &vsz, &res) != 2) {
		return 0;
	}
	return res * wl_page_size() / 1024;
}

/* --between: a private buffer read line by line between two writes (user work that
 * evicts the fault path's cache lines, as a program's own work does), and its size */
static volatile unsigned char *between_buf;
static size_t between_len;

/* Read every 64-byte line of the --between buffer once (volatile: every read is done). */
static void between_work(void)
{
	size_t i;

	for (i = 0; i < between_len; i += 64) {
		(void)between_buf[i];
	}
}

/*
 * The measured phase: write one byte every @stride bytes of [p, p + size), ascending; with
 * @read_first, first read all of them, then write all of them; with --between, read the
 * buffer between two writes. Not inlined so its code page is faulted in by the warm-up
 * call, outside the measurement.
 * Return: the OR of every byte read (0 if fresh anonymous memory reads as zero).
 */
static __attribute__((noinline)) unsigned char touch(volatile unsigned char *p, size_t size,
						     size_t stride, int read_first)
{
	unsigned char seen = 0;
	size_t off, i;

	if (read_first) {
		for (off = 0; off < size; off += stride) {
			seen |= p[off];
		}
	}
	for (off = 0, i = 0; off < size; off += stride, i++) {
		p[off] = pattern(i);
		if (between_len) {
			between_work();
		}
	}
	return seen;
}

/* Return: true if the @n bytes at @p are all zero. */
static int all_zero(const unsigned char *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/*
 * Return: 0 if every written byte holds its pattern and, if @whole_pages (each page written
 * once), the rest of each written page is zero; -1 with a message otherwise. Reads only
 * pages the touch phase mapped, so it adds no fault to the trace.
 */
static int verify(const unsigned char *p, size_t size, size_t stride, size_t page,
		  int whole_pages)
{
	size_t off, i;

	for (off = 0, i = 0; off < size; off += stride, i++) {
		size_t ps = off & ~(page - 1), pe = ps + page < size ? ps + page : size;

		if (p[off] != pattern(i)) {
			return wl_error("byte at %p reads 0x%02x, wrote 0x%02x", (void *)(p + off),
					p[off], pattern(i));
		}
		if (whole_pages && (!all_zero(p + ps, off - ps) ||
				    !all_zero(p + off + 1, pe - off - 1))) {
			return wl_error("page at %p was not zeroed", (void *)(p + ps));
		}
	}
	return 0;
}

struct contig {
	uint64_t blocks;  /* naturally aligned 2^order-page blocks wholly inside the VMA */
	uint64_t contig;  /* of those: all pages present, PFNs consecutive */
	uint64_t aligned; /* of those contiguous: first PFN a multiple of 2^order too */
};

/*
 * Count the physically contiguous 2^@order-page blocks of [start, start + size) from
 * /proc/self/pagemap (one u64 per virtual page: bit 63 present, bits 0-54 the PFN, which
 * the kernel hides as 0 without CAP_SYS_ADMIN). Reads in fixed chunks from a static
 * buffer, so any order needs no allocation. Return: 0, or -1 with a message.
 */
static int pagemap_check(uintptr_t start, size_t size, unsigned int order, struct contig *c)
{
	static uint64_t buf[512];
	size_t page = wl_page_size();
	uint64_t npb = 1ULL << order, bsize = npb * page;
	uint64_t first = (start + bsize - 1) / bsize * bsize / page; /* first vpn checked */
	uint64_t last = (start + size) / bsize * bsize / page;      /* end vpn, exclusive */
	uint64_t vpn, base = 0;
	int fd, ok = 0, ret = -1;

	memset(c, 0, sizeof(*c));
	if (last <= first) {
		return 0;
	}
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0) {
		return wl_error("cannot open /proc/self/pagemap: %s", strerror(errno));
	}
	for (vpn = first; vpn < last;) {
		size_t n = last - vpn < 512 ? last - vpn : 512, k;
		ssize_t got = pread(fd, buf, n * 8, (off_t)(vpn * 8));

		if (got != (ssize_t)(n * 8)) {
			wl_error("cannot read /proc/self/pagemap: %s",
				 got < 0 ? strerror(errno) : "short read");
			goto out;
		}
		for (k = 0; k < n; k++, vpn++) {
			uint64_t j = (vpn - first) & (npb - 1);
			uint64_t pfn = buf[k] & PAGEMAP_PFN_MASK;
			int present = !!(buf[k] & PAGEMAP_PRESENT);

			if (present && pfn == 0) {
				wl_error("/proc/self/pagemap hides PFNs (needs CAP_SYS_ADMIN)");
				goto out;
			}
			if (j == 0) {
				base = pfn;
				ok = present;
				c->blocks++;
			} else {
				ok = ok && present && pfn == base + j;
			}
			if (j == npb - 1 && ok) {
				c->contig++;
				c->aligned += base % npb == 0;
			}
		}
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/* Clear the accessed and referenced bits of every page of this process (clear_refs 1). */
static void write_clear_refs(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY);

	if (fd < 0 || write(fd, "1\n", 2) != 2) {
		wl_die("cannot write /proc/self/clear_refs: %s", strerror(errno));
	}
	close(fd);
}

/* --timer-us: SIGALRMs received while the interval timer was armed */
static volatile sig_atomic_t timer_signals;

static void on_alarm(int sig)
{
	timer_signals++;
}

/* Arm (@usec > 0) or disarm (0) the --timer-us interval timer. */
static void set_timer(uint64_t usec)
{
	struct itimerval it = { 0 };
	struct sigaction sa = { 0 };

	if (usec) {
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		if (sigaction(SIGALRM, &sa, NULL)) {
			wl_die("sigaction(SIGALRM): %s", strerror(errno));
		}
		it.it_interval.tv_sec = (time_t)(usec / 1000000);
		it.it_interval.tv_usec = (suseconds_t)(usec % 1000000);
		it.it_value = it.it_interval;
	}
	if (setitimer(ITIMER_REAL, &it, NULL)) {
		wl_die("setitimer: %s", strerror(errno));
	}
}

/*
 * --fork: a child writes one byte every @step bytes of [p, p + size), each a COW of the
 * page the parent mapped, and exits; the parent waits. *minflt: the child's minor faults.
 * Return: 0, or -1 with a message (fork, wait or the child failed).
 */
static int fork_cows(unsigned char *p, uint64_t size, uint64_t step, long *minflt)
{
	struct rusage ru;
	uint64_t off;
	int wstatus;
	pid_t pid;

	*minflt = 0;
	fflush(stdout); /* nothing buffered may be printed twice */
	pid = fork();
	if (pid < 0) {
		return wl_error("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		for (off = 0; off < size; off += step) {
			((volatile unsigned char *)p)[off] ^= 0x80;
		}
		_exit(0);
	}
	if (waitpid(pid, &wstatus, 0) != pid) {
		return wl_error("waitpid: %s", strerror(errno));
	}
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		return wl_error("the --fork child failed (wait status %d)", wstatus);
	}
	if (!getrusage(RUSAGE_CHILDREN, &ru)) {
		*minflt = ru.ru_minflt;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stride", required_argument, NULL, 's' },
		{ "nohugepage", no_argument, NULL, 'n' },
		{ "read-first", no_argument, NULL, 'r' },
		{ "pagemap-check", required_argument, NULL, 'p' },
		{ "hold", required_argument, NULL, 'H' },
		{ "fill", required_argument, NULL, 'f' },
		{ "zeros", no_argument, NULL, 'z' },
		{ "between", required_argument, NULL, 'b' },
		{ "clear-refs", no_argument, NULL, 'c' },
		{ "fork", no_argument, NULL, 'F' },
		{ "timer-us", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t page = wl_page_size();
	uint64_t size, stride = 4096, hold = 0, order = 0, writes, touched, fill = 0, off;
	uint64_t timer_us = 0;
	int nohugepage = 0, read_first = 0, check = 0, clear_refs = 0, do_fork = 0, status = 0, c;
	struct wl_faults before, delta;
	struct contig cg = { 0 };
	unsigned char seen;
	char extra[160] = "", more[128] = "";
	unsigned char *p, *q;

	wl_prog = "anon-touch";
	while ((c = wl_getopt(argc, argv, opts, usage, 1)) != -1) {
		switch (c) {
		case 's':
			stride = wl_opt_size("--stride", optarg);
			break;
		case 'n':
			nohugepage = 1;
			break;
		case 'r':
			read_first = 1;
			break;
		case 'p':
			order = wl_opt_u64("--pagemap-check", optarg);
			if (order > MAX_CHECK_ORDER) {
				wl_error("--pagemap-check ORDER must be 0..%d", MAX_CHECK_ORDER);
				exit(2);
			}
			check = 1;
			break;
		case 'H':
			hold = wl_opt_u64("--hold", optarg);
			break;
		case 'f':
			fill = wl_opt_size("--fill", optarg);
			wl_check_pages("--fill", fill);
			break;
		case 'z':
			zeros = 1;
			break;
		case 'b':
			between_len = wl_opt_size("--between", optarg);
			break;
		case 'c':
			clear_refs = 1;
			break;
		case 'F':
			do_fork = 1;
			break;
		case 'T':
			timer_us = wl_opt_u64("--timer-us", optarg);
			if (!timer_us) {
				wl_error("--timer-us N must be at least 1");
				exit(2);
			}
			break;
		}
	}
	size = wl_opt_size("SIZE", argv[optind]);
	wl_check_pages("SIZE", size);
	if (stride > size) {
		stride = size; /* one write either way; keeps the offsets from overflowing */
	}

	p = wl_map_aligned(size);
	if (!p) {
		wl_die("cannot map %" PRIu64 " bytes: %s", size, strerror(errno));
	}
	if (nohugepage && madvise(p, size, MADV_NOHUGEPAGE)) {
		wl_die("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	}
	/* the --between buffer: 4K pages whatever the folio policy (its faults, before the
	 * measured phase, are the same under every policy), filled so that it is present */
	if (between_len) {
		between_buf = wl_map_aligned(between_len);
		if (!between_buf) {
			wl_die("cannot map the --between buffer of %zu bytes: %s", between_len,
			       strerror(errno));
		}
		madvise((void *)between_buf, between_len, MADV_NOHUGEPAGE);
		memset((void *)between_buf, 1, between_len);
	}

	/* Fault in touch()'s code and getrusage()'s stack use before the first reading. */
	touch(p, 0, stride, read_first);
	wl_faults_warmup();
	before = wl_faults_now();
	if (timer_us) {
		set_timer(timer_us);
	}
	seen = touch(p, size, stride, read_first);
	if (timer_us) {
		set_timer(0);
	}
	delta = wl_faults_since(before);

	writes = (size - 1) / stride + 1;
	/* Distinct pages: one per write if the stride is at least a page, else every page
	 * from the first to the last write. */
	touched = stride >= page ? writes : (writes - 1) * stride / page + 1;
	if (seen) {
		status = wl_error("fresh anonymous memory did not read as zero");
	}
	if (!status && verify(p, size, stride, page, stride >= page)) {
		status = -1;
	}
	if (check) {
		if (pagemap_check((uintptr_t)p, size, (unsigned int)order, &cg)) {
			exit(1);
		}
		snprintf(extra, sizeof(extra),
			 " contig_order=%" PRIu64 " contig_blocks=%" PRIu64 " blocks=%" PRIu64
			 " contig_aligned=%" PRIu64, order, cg.contig, cg.blocks, cg.aligned);
	}
	/* --fill: every page of a second VMA, 4K pages under every policy, after the first */
	if (fill) {
		q = wl_map_aligned(fill);
		if (!q) {
			wl_die("cannot map %" PRIu64 " bytes: %s", fill, strerror(errno));
		}
		if (madvise(q, fill, MADV_NOHUGEPAGE)) {
			wl_die("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
		}
		for (off = 0; off < fill; off += page) {
			((volatile unsigned char *)q)[off] = 1;
		}
		snprintf(more, sizeof(more), " fill=%" PRIu64 " fill_addr=%p", fill, (void *)q);
	}
	if (do_fork) {
		long minflt;

		if (fork_cows(p, size, stride >= page ? stride : page, &minflt)) {
			status = -1;
		}
		snprintf(more + strlen(more), sizeof(more) - strlen(more), " fork_minflt=%ld",
			 minflt);
	}
	/* last, after every read of the memory: the checks above set the accessed bits */
	if (clear_refs) {
		write_clear_refs();
		snprintf(more + strlen(more), sizeof(more) - strlen(more), " clear_refs=1");
	}
	if (timer_us) {
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 " timer_us=%" PRIu64 " timer_signals=%d", timer_us, (int)timer_signals);
	}
	if (fill || zeros) {
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 " zeros=%d rss_kb=%" PRIu64, zeros, rss_kb());
	}
	if (wl_result("size=%" PRIu64 " stride=%" PRIu64 " writes=%" PRIu64 " touched=%" PRIu64
		      " minflt=%ld majflt=%ld addr=%p%s%s status=%d",
		      size, stride, writes, touched, delta.minflt, delta.majflt, (void *)p, extra,
		      more, status ? 1 : 0)) {
		exit(1);
	}
	/* Hold the memory mapped (after the result line, which gives its address) so the
	 * tracer or a test can inspect /proc/PID/maps, smaps or the guest's vmstat. */
	if (hold) {
		sleep((unsigned int)hold);
	}
	return status ? 1 : 0;
}
