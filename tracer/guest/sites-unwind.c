// SPDX-License-Identifier: GPL-2.0
/*
 * sites-unwind.c - remote unwinding of a thread stopped at a traced system call, with our
 * own libunwind accessors (docs/sites.md, "Unwinding" and "Cost").
 *
 * libunwind-ptrace's accessors (_UPT_accessors) read the tracee a word at a time with
 * PTRACE_PEEKDATA (and DWARF is read a byte at a time through them), read every register
 * with PTRACE_PEEKUSER, and for each frame they name read /proc/PID/maps and map the
 * module's file again. They also only find unwind info through PT_GNU_EH_FRAME, which
 * `gcc -static` leaves out. Ours:
 *
 * - registers: from the one PTRACE_GETREGS(ET) the tracer made at the stop;
 * - memory: 4 KiB chunks read with process_vm_readv (or /proc/PID/mem where the kernel
 *   has no process_vm_readv) into a small cache. A chunk of a
 *   stack or any writable mapping is valid for one unwind; a chunk of a read-only file
 *   mapping (text, .eh_frame) is kept until the process's file mappings change or it
 *   execs;
 * - unwind info: sites-elf.c's table of the module's .eh_frame, handed to libunwind's own
 *   dwarf_search_unwind_table() as a remote table at an address no process can map
 *   (TABLE_ADDR), which access_mem serves from the tracer's memory;
 * - names: sites-elf.c's sorted symbols, per module, indexed once;
 * - /proc/PID/maps: read again only after a traced call that may have changed the known
 *   file mappings (an unmap/move/fixed map over one) or an exec, or when a file was
 *   mapped since and an address is in no known mapping;
 * - one libunwind address space per process, caching (UNW_CACHE_GLOBAL) the register
 *   rules per instruction address; flushed when the file mappings change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <libunwind.h>

#include "sites-elf.h"
#include "sites-unwind.h"

/* libunwind's remote table lookup (exported by libunwind-generic; libunwind-ptrace uses it) */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define MAX_PROCS	128	/* processes with a live cache; the least recent is evicted */
#define NR_WARM		4	/* address spaces made at the start (ft_unwind_init) */
#define CHUNK		4096ul	/* bytes read from the tracee at once */
#define NR_CHUNKS	256	/* chunks cached (1 MiB), direct-mapped by address */
/*
 * Chunks of the stack read at the stop, from the stack pointer's up: what the unwinder
 * reads once the thread runs again. Per process: up to the highest stack address its
 * unwinds read (the outermost frames, which a call from deeper in the program walks too),
 * or, on another thread's stack, as many bytes above the stack pointer as any unwind read
 * and a chunk more; at most SNAP_CHUNKS (32 KiB). Each chunk is a page the kernel copies
 * while the thread waits, some 20 µs under TCG. A process's first call is unwound before
 * its thread goes on, which sets both; a later read beyond the copy is counted
 * (late_reads) and widens the next copies.
 */
#define SNAP_CHUNKS	8
/* where libunwind is told the unwind table is: above every user address space (x86_64
 * and arm64 user addresses are below 2^56) */
#define TABLE_ADDR	0xfff0000000000000ull

struct map {
	uint64_t start, end;	/* bytes */
	uint64_t pgoff;		/* file offset of start, bytes */
	unsigned long dev, ino;	/* makedev(major, minor) and inode of the file */
	int writable;
	const char *path;	/* interned: valid for the tracer's life */
	struct ft_elf *elf;	/* NULL: not indexed yet or not an ELF file */
	int elf_tried;
};

struct proc {
	pid_t tgid;		/* 0: free slot */
	pid_t peer;		/* a process that may share this address space (vfork) */
	int memfd;		/* /proc/TGID/mem, opened on first use; -1: not open */
	unw_addr_space_t as;
	struct map *maps;	/* file mappings, by address */
	int nr_maps, cap;
	int stale;		/* maps must be read again before the next unwind */
	int added;		/* a file was mapped since: read maps again on a lookup miss */
	uint64_t keep_since;	/* kept chunks read in an unwind before this are stale */
	uint64_t last_use;	/* unwind sequence number of its last unwind */
	uint64_t stack_bytes;	/* the deepest an unwind read above the stack pointer,
				 * bytes; 0: not known before its first unwind */
	uint64_t stack_top;	/* the highest stack address an unwind read: the outermost
				 * frames of the thread it unwound */
};

struct chunk {
	pid_t pid;		/* 0: empty */
	int keep;		/* in a read-only file mapping: valid across unwinds */
	uint64_t addr;
	uint64_t seq;		/* the unwind it was read in */
	unsigned char b[CHUNK];
};

/* The unwind in progress: what the accessors work on (their arg). */
struct ctx {
	pid_t tid;
	struct proc *p;
	const struct user_regs_struct *r;
	const struct ft_elf *tab;	/* whose table TABLE_ADDR holds now */
	int resumed;			/* the thread runs again: its stack was snapshot */
	uint64_t sp;			/* the stack pointer */
	uint64_t stack_end;		/* end of the stack it read, bytes */
};

struct ft_unwind_stats ft_unwind_stats;
static struct proc procs[MAX_PROCS];
static struct chunk chunks[NR_CHUNKS];
static uint64_t seq;	/* unwinds so far */
static struct proc *snapped;	/* its stack was read for the next ft_unwind() */
/*
 * The stack copy of ft_unwind_snapshot(), for the unwind of sequence number seq: a buffer
 * of its own, out of the direct-mapped chunk cache, where a text chunk read later in the
 * same unwind could evict a copied chunk and have it read again from the running thread.
 */
static struct {
	pid_t pid;
	uint64_t seq;
	uint64_t base, len;	/* bytes */
	unsigned char b[SNAP_CHUNKS * CHUNK];
} snap;
static int no_vm_readv;		/* process_vm_readv said ENOSYS: /proc/PID/mem instead */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- processes and their file mappings ------------------------------------------- */

/*
 * The one copy of a module path. Frames keep pointers to it while maps are read again
 * (a reload in the middle of an unwind), and a run has few distinct paths.
 */
static const char *intern(const char *s)
{
	static const char *tab[8192];
	uint32_t h = 2166136261u;
	const char *c;
	unsigned i, n;

	for (c = s; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	for (n = 0, i = h % 8192; n < 8192; n++, i = (i + 1) % 8192) {
		if (!tab[i])
			return tab[i] = strdup(s);
		if (!strcmp(tab[i], s))
			return tab[i];
	}
	return strdup(s);	/* table full: a copy that is never freed either */
}

static void maps_clear(struct proc *p)
{
	p->nr_maps = 0;
}

static struct proc *proc_find(pid_t tgid)
{
	int i;

	for (i = 0; i < MAX_PROCS; i++)
		if (procs[i].tgid == tgid)
			return &procs[i];
	return NULL;
}

static unw_accessors_t accessors;

/*
 * Forget p's process. The slot keeps its libunwind address space, flushed, for the next
 * process: creating one costs 2-6 ms under TCG (libunwind's caches, allocated and
 * zeroed), which would be the first stop's time of every process and every exec.
 */
static void proc_free(struct proc *p)
{
	unw_addr_space_t as = p->as;
	struct map *maps = p->maps;
	int cap = p->cap;

	if (p->memfd >= 0)
		close(p->memfd);
	if (as)
		unw_flush_cache(as, 0, 0);
	memset(p, 0, sizeof(*p));
	p->as = as;
	p->maps = maps;
	p->cap = cap;
	p->memfd = -1;
}

/* Give slot p an address space of its own, if it has none. Return: 0, or -1. */
static int proc_as(struct proc *p)
{
	if (p->as)
		return 0;
	p->as = unw_create_addr_space(&accessors, 0);
	if (!p->as)
		return -1;
	unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	return 0;
}

static struct proc *proc_get(pid_t tgid)
{
	struct proc *p = proc_find(tgid), *lru = NULL;
	int i;

	if (p)
		return p;
	/* a free slot, one with an address space if there is one */
	for (i = 0; i < MAX_PROCS; i++) {
		if (procs[i].tgid)
			continue;
		if (!lru || (procs[i].as && !lru->as))
			lru = &procs[i];
		if (procs[i].as)
			break;
	}
	if (!lru) {	/* none: the least recently unwound process's */
		lru = &procs[0];
		for (i = 1; i < MAX_PROCS; i++)
			if (procs[i].last_use < lru->last_use)
				lru = &procs[i];
		proc_free(lru);
	}
	if (proc_as(lru))
		return NULL;
	lru->tgid = tgid;
	lru->memfd = -1;
	lru->stale = 1;
	lru->keep_since = seq + 1;	/* no chunk of an earlier process with this id */
	lru->stack_bytes = 0;
	lru->stack_top = 0;
	return lru;
}

/*
 * The file mappings changed (or may have): read maps again before the next unwind, drop
 * what depends on them; also in a process that may share the address space (follow).
 */
static void mark_stale(struct proc *p, int follow)
{
	struct proc *peer;

	if (!p->stale) {
		p->stale = 1;
		p->keep_since = seq + 1;
		unw_flush_cache(p->as, 0, 0);
	}
	if (follow && p->peer && (peer = proc_find(p->peer)) && peer->peer == p->tgid)
		mark_stale(peer, 0);
}

static void load_maps(struct proc *p)
{
	char path[64], line[4352];
	FILE *f;

	maps_clear(p);
	p->stale = 0;
	p->added = 0;
	ft_unwind_stats.maps_reads++;
	snprintf(path, sizeof(path), "/proc/%d/maps", p->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		unsigned long ino;
		unsigned int maj, min;
		char perms[8], *name;
		struct map *m;
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &s, &e, perms, &off, &maj,
			   &min, &ino, &n) < 7 || !n)
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = '\0';
		if (*name != '/')
			continue;
		if (p->nr_maps == p->cap) {
			struct map *v = realloc(p->maps, (p->cap ? 2 * p->cap : 64) * sizeof(*v));

			if (!v)
				break;
			p->maps = v;
			p->cap = p->cap ? 2 * p->cap : 64;
		}
		m = &p->maps[p->nr_maps];
		memset(m, 0, sizeof(*m));
		m->path = intern(name);
		if (!m->path)
			break;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		m->dev = makedev(maj, min);
		m->ino = ino;
		m->writable = perms[1] == 'w';
		p->nr_maps++;
	}
	fclose(f);
}

static struct map *map_of(struct proc *p, uint64_t addr)
{
	int lo = 0, hi = p->nr_maps;

	while (lo < hi) {	/* maps are sorted and do not overlap */
		int mid = (lo + hi) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/*
 * The file mapping at addr, reading maps again first if a file was mapped since they were
 * read and addr is in none known (a new mapping only fills a hole: known ones stay valid).
 */
static struct map *map_at(struct proc *p, uint64_t addr)
{
	struct map *m = map_of(p, addr);

	if (!m && p->added) {
		load_maps(p);
		m = map_of(p, addr);
	}
	return m;
}

static int overlaps_file(struct proc *p, uint64_t addr, uint64_t len)
{
	int i;

	for (i = 0; i < p->nr_maps; i++)
		if (addr < p->maps[i].end && p->maps[i].start < addr + len)
			return 1;
	return 0;
}

static struct ft_elf *elf_of(struct map *m)
{
	if (!m->elf_tried) {
		m->elf_tried = 1;
		m->elf = ft_elf_get(m->path, m->dev, m->ino);
	}
	return m->elf;
}

/* --- accessors -------------------------------------------------------------------- */

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct ctx *c = arg;
	struct map *m = map_at(c->p, ip);
	struct ft_elf *e = m ? elf_of(m) : NULL;
	unw_dyn_info_t di;
	uint64_t bias;

	if (!e || !e->nr_fde || ft_elf_bias(e, m->start, m->pgoff, &bias) ||
	    ip < bias + e->lo || ip >= bias + e->hi)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.start_ip = bias + e->lo;
	di.end_ip = bias + e->hi;
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.u.rti.segbase = bias + e->base;
	di.u.rti.table_data = TABLE_ADDR;
	di.u.rti.table_len = e->nr_fde * sizeof(*e->tab) / sizeof(unw_word_t);
	c->tab = e;
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* DWARF info is freed by libunwind itself; only dynamic info comes here */
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;	/* no JIT registration (_U_dyn_register) is looked for */
}

/* Is the chunk at addr in a read-only file mapping (so valid until the mappings change)? */
static int chunk_keep(struct proc *p, uint64_t addr)
{
	const struct map *m = map_of(p, addr);

	return m && !m->writable && addr + CHUNK <= m->end;
}

static int peek(pid_t tid, unw_word_t addr, unw_word_t *val)
{
	long v;

	ft_unwind_stats.peeks++;
	errno = 0;
	v = ptrace(PTRACE_PEEKDATA, tid, (void *)addr, NULL);
	if (errno)
		return -UNW_EINVAL;
	*val = (unw_word_t)v;
	return 0;
}

/* /proc/TGID/mem, opened on first use. Return: the descriptor, or -1. */
static int mem_fd(struct proc *p)
{
	char path[64];

	if (p->memfd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/mem", p->tgid);
		p->memfd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return p->memfd;
}

/*
 * Read len bytes of the process at base into buf: process_vm_readv, or, in a kernel
 * without CONFIG_CROSS_MEMORY_ATTACH (the guest's), a pread of /proc/TGID/mem. Both stop
 * at the first unreadable page. Return: the bytes read, or -1.
 */
static ssize_t read_mem(pid_t tid, struct proc *p, uint64_t base, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)base, len };
	ssize_t got;

	if (!no_vm_readv) {
		got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (got >= 0 || errno != ENOSYS)
			return got;
		no_vm_readv = 1;
	}
	if (mem_fd(p) < 0)
		return -1;
	return pread(p->memfd, buf, len, (off_t)base);
}

/*
 * Read the chunk at base (CHUNK bytes). One in a read-only file mapping is the file's
 * bytes: read from the tracer's own mapping of the file, which stays readable when the
 * process is gone (a process that exits right after the resume of its last call, while
 * that call is unwound). Return: 0, or -1 if it is not readable whole.
 */
static int read_chunk(struct ctx *c, uint64_t base, unsigned char *b)
{
	struct map *m = map_of(c->p, base);
	struct ft_elf *e;

	ft_unwind_stats.page_reads++;
	if (m && !m->writable && base + CHUNK <= m->end && (e = elf_of(m)) &&
	    base - m->start + m->pgoff + CHUNK <= e->size) {
		memcpy(b, e->image + (base - m->start + m->pgoff), CHUNK);
		return 0;
	}
	/* memory the running thread may have changed: in no file mapping or a writable one */
	if (c->resumed && (!m || m->writable))
		ft_unwind_stats.late_reads++;
	return read_mem(c->tid, c->p, base, b, CHUNK) == (ssize_t)CHUNK ? 0 : -1;
}

static int acc_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	struct ctx *c = arg;
	uint64_t base = addr & ~(CHUNK - 1);
	struct chunk *k;

	if (write)
		return -UNW_EINVAL;	/* never: we do not resume through libunwind */
	if (addr >= TABLE_ADDR) {
		size_t off = addr - TABLE_ADDR, size = c->tab ? c->tab->nr_fde * sizeof(*c->tab->tab) : 0;

		if (off >= size)
			return -UNW_EINVAL;
		*val = 0;
		memcpy(val, (const char *)c->tab->tab + off,
		       size - off < sizeof(*val) ? size - off : sizeof(*val));
		return 0;
	}
	if (snap.seq == seq && snap.pid == c->p->tgid && addr >= snap.base &&
	    addr - snap.base + sizeof(*val) <= snap.len) {
		memcpy(val, snap.b + (addr - snap.base), sizeof(*val));
		goto depth;
	}
	if (addr - base > CHUNK - sizeof(*val))
		return peek(c->tid, addr, val);	/* unaligned across chunks: never in practice */
	k = &chunks[(addr / CHUNK) % NR_CHUNKS];
	if (k->pid != c->p->tgid || k->addr != base ||
	    (k->seq != seq && !(k->keep && k->seq >= c->p->keep_since))) {
		if (read_chunk(c, base, k->b)) {
			k->pid = 0;
			return peek(c->tid, addr, val);
		}
		k->pid = c->p->tgid;
		k->addr = base;
		k->seq = seq;
		k->keep = chunk_keep(c->p, base);
	}
	memcpy(val, k->b + (addr - base), sizeof(*val));
	if (k->keep)
		return 0;
depth:
	/* how deep the stack is read: what the next copies take */
	if (addr >= c->sp && addr - c->sp < SNAP_CHUNKS * CHUNK &&
	    addr + sizeof(*val) > c->stack_end)
		c->stack_end = addr + sizeof(*val);
	return 0;
}

static int acc_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	const struct user_regs_struct *r = ((struct ctx *)arg)->r;

	if (write)
		return -UNW_EREADONLYREG;
#if defined(__x86_64__)
	switch (reg) {
	case UNW_X86_64_RAX: *val = r->rax; break;
	case UNW_X86_64_RDX: *val = r->rdx; break;
	case UNW_X86_64_RCX: *val = r->rcx; break;
	case UNW_X86_64_RBX: *val = r->rbx; break;
	case UNW_X86_64_RSI: *val = r->rsi; break;
	case UNW_X86_64_RDI: *val = r->rdi; break;
	case UNW_X86_64_RBP: *val = r->rbp; break;
	case UNW_X86_64_RSP: *val = r->rsp; break;
	case UNW_X86_64_R8: *val = r->r8; break;
	case UNW_X86_64_R9: *val = r->r9; break;
	case UNW_X86_64_R10: *val = r->r10; break;
	case UNW_X86_64_R11: *val = r->r11; break;
	case UNW_X86_64_R12: *val = r->r12; break;
	case UNW_X86_64_R13: *val = r->r13; break;
	case UNW_X86_64_R14: *val = r->r14; break;
	case UNW_X86_64_R15: *val = r->r15; break;
	case UNW_X86_64_RIP: *val = r->rip; break;
	default: return -UNW_EBADREG;
	}
#else
	if (reg >= UNW_AARCH64_X0 && reg <= UNW_AARCH64_X30)
		*val = r->regs[reg - UNW_AARCH64_X0];
	else if (reg == UNW_AARCH64_SP)
		*val = r->sp;
	else if (reg == UNW_AARCH64_PC)
		*val = r->pc;
	else if (reg == UNW_AARCH64_PSTATE)
		*val = r->pstate;
	else
		return -UNW_EBADREG;
#endif
	return 0;
}

static int acc_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
		     void *arg)
{
	return -UNW_EBADREG;	/* no unwind rule of a mapping call's stack needs them */
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL;
}

/* Name of the function at ip (ip - 1 for a return address), as unw_get_proc_name. */
static const char *name_of(struct proc *p, uint64_t ip, uint64_t *off)
{
	struct map *m = map_at(p, ip);
	struct ft_elf *e = m ? elf_of(m) : NULL;
	uint64_t bias;

	if (!e || ft_elf_bias(e, m->start, m->pgoff, &bias))
		return NULL;
	return ft_elf_symbol(e, ip - bias, off);
}

static int acc_proc_name(unw_addr_space_t as, unw_word_t ip, char *buf, size_t len,
			 unw_word_t *off, void *arg)
{
	uint64_t o;
	const char *name = name_of(((struct ctx *)arg)->p, ip, &o);

	if (!name)
		return -UNW_ENOINFO;
	snprintf(buf, len, "%s", name);
	*off = o;
	return strlen(name) >= len ? -UNW_ENOMEM : 0;
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find_proc_info,
	.put_unwind_info = acc_put_unwind_info,
	.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
	.access_mem = acc_mem,
	.access_reg = acc_reg,
	.access_fpreg = acc_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_proc_name,
};

/* --- unwinding -------------------------------------------------------------------- */

/* Why unw_step or unw_init_remote stopped, as a stored reason (docs/sites.md). */
static const char *unw_reason(int err)
{
	switch (-err) {
	case UNW_ENOINFO: return "no_unwind_info";
	case UNW_EBADFRAME: return "bad_frame";
	case UNW_EINVALIDIP: return "invalid_ip";
	case UNW_EBADREG: return "bad_register";
	case UNW_ESTOPUNWIND: return "stopped";
	case UNW_EUNSPEC: return "unspecified";
	default: return "other";
	}
}

/* Does an FDE cover ip in p's modules? */
static int has_fde(struct proc *p, uint64_t ip)
{
	struct map *m = map_at(p, ip);
	struct ft_elf *e = m ? elf_of(m) : NULL;
	uint64_t bias;

	return e && !ft_elf_bias(e, m->start, m->pgoff, &bias) && ft_elf_has_fde(e, ip - bias);
}

void ft_unwind_init(void)
{
	int i;

	/* the address spaces of the first processes, made before the workload's time */
	for (i = 0; i < NR_WARM; i++)
		proc_as(&procs[i]);
}

void ft_unwind_prepare(pid_t tgid)
{
	struct proc *p = proc_get(tgid);

	if (p)
		mem_fd(p);
}

int ft_unwind_snapshot(pid_t tgid, pid_t tid, uint64_t sp)
{
	uint64_t base = sp & ~(CHUNK - 1);
	struct proc *p = proc_get(tgid);
	uint64_t end;
	ssize_t got;
	int n;

	/*
	 * its first call is unwound before it goes on (that learns the depth), and a call
	 * whose maps must be read again: maps read after the resume could be those of a
	 * process that has already exited
	 */
	if (!p || !p->stack_bytes || p->stale)
		return -1;
	p->last_use = ++seq;
	snapped = p;
	/*
	 * up to the outermost frames an unwind read, if they are above sp on the same stack:
	 * a call from deeper in the program walks the same frames at the top; else (another
	 * thread's stack) as deep as any unwind read, and a chunk more
	 */
	end = sp + p->stack_bytes + CHUNK;
	if (p->stack_top > end && p->stack_top - sp <= SNAP_CHUNKS * CHUNK)
		end = p->stack_top;
	n = (int)(((end + CHUNK - 1) & ~(CHUNK - 1)) - base) / (int)CHUNK;
	if (n > SNAP_CHUNKS)
		n = SNAP_CHUNKS;
	got = read_mem(tid, p, base, snap.b, (size_t)n * CHUNK);
	ft_unwind_stats.snapshots++;
	ft_unwind_stats.page_reads += got > 0 ? ((size_t)got + CHUNK - 1) / CHUNK : 0;
	snap.pid = p->tgid;
	snap.seq = seq;
	snap.base = base;
	snap.len = got > 0 ? (uint64_t)got : 0;
	return got > 0 ? 0 : -1;
}

const char *ft_unwind(pid_t tgid, pid_t tid, const struct user_regs_struct *r,
		      struct ft_frame *f, int max, int *nr)
{
	uint64_t t0 = now_ns();
	struct proc *p = proc_get(tgid);
	const char *status;
	int prev_signal = 0;
	unw_cursor_t cur;
	struct ctx c;
	int rc;

	*nr = 0;
	if (!p)
		return "no_memory";
	if (p->stale)
		load_maps(p);
#if defined(__x86_64__)
	c = (struct ctx){ .tid = tid, .p = p, .r = r, .resumed = snapped == p, .sp = r->rsp };
#else
	c = (struct ctx){ .tid = tid, .p = p, .r = r, .resumed = snapped == p, .sp = r->sp };
#endif
	c.stack_end = c.sp;
	if (snapped == p)
		snapped = NULL;		/* the unwind ft_unwind_snapshot() began */
	else
		p->last_use = ++seq;
	ft_unwind_stats.unwinds++;
	rc = unw_init_remote(&cur, p->as, &c);
	if (rc < 0) {
		status = unw_reason(rc);
		goto out;
	}
	for (;;) {
		struct ft_frame *fr = &f[*nr];
		struct map *m;
		unw_word_t ip;
		uint64_t at;

		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0) {
			status = "bad_register";
			break;
		}
		/* a return address names its call: look up ip - 1 (libunwind's use_prev_instr) */
		at = *nr && !prev_signal ? ip - 1 : ip;
		m = map_at(p, ip);
		fr->ip = ip;
		fr->module = m ? m->path : NULL;
		fr->module_off = m ? ip - m->start + m->pgoff : 0;
		fr->proc = name_of(p, at, &fr->proc_off);
		if (fr->proc)
			fr->proc_off += ip - at;
		(*nr)++;
		if (*nr >= max) {
			status = "too_deep";
			break;
		}
		prev_signal = unw_is_signal_frame(&cur) > 0;
		rc = unw_step(&cur);
		if (rc == 0) {
			/* the outermost frame, or one without unwind info (libunwind then ends
			 * the stack without an error) */
			status = has_fde(p, at) ? "ok" : "no_unwind_info";
			break;
		}
		if (rc < 0) {
			status = unw_reason(rc);
			break;
		}
	}
out:
	/* the deepest read so far sets how much of the stack the next copies take */
	if (c.stack_end - c.sp > p->stack_bytes)
		p->stack_bytes = c.stack_end - c.sp;
	if (c.stack_end > p->stack_top)
		p->stack_top = c.stack_end;
	ft_unwind_stats.frames += (unsigned long)*nr;
	ft_unwind_stats.unwind_ns += now_ns() - t0;
	return status;
}

/*
 * Can tgid's thread run on before it is unwound? The unwinder reads the stack from the
 * chunk of sp up, from ft_unwind_snapshot()'s copy, and the file mappings (text,
 * .eh_frame), live: those must stay as they are while the call runs and after (the
 * thread's next mapping call stops before it runs, and is handled after this unwind). A
 * call that only adds memory (mmap without MAP_FIXED, brk: a heap holds no live stack)
 * cannot change them; one that removes or replaces a range (munmap, madvise, MAP_FIXED)
 * only if the range lies below sp's chunk and in no known file mapping (maps fresh, no
 * file mapped since); mremap is not checked (its second range) and is always unwound
 * first. Read-only file chunks come from the module's file (read_chunk), so an exit of
 * the process right after the resume costs the unwind nothing but a read beyond the copy.
 */
int ft_unwind_during_call(pid_t tgid, long nr, const unsigned long a[6], uint64_t sp)
{
	struct proc *p;

	if (nr == __NR_brk || (nr == __NR_mmap && !(a[3] & MAP_FIXED)))
		return 1;
	if (nr != __NR_munmap && nr != __NR_madvise && nr != __NR_mmap)
		return 0;
	p = proc_find(tgid);
	if (!p || p->stale || p->added || p->peer || a[0] + a[1] < a[0])
		return 0;
	return a[0] + a[1] <= (sp & ~(CHUNK - 1)) && !overlaps_file(p, a[0], a[1]);
}

void ft_unwind_after_call(pid_t tgid, long nr, const unsigned long a[6])
{
	struct proc *p = proc_find(tgid);
	int changed;

	if (!p)
		return;
	/*
	 * Called before the result is known (the tracer no longer stops at the call's exit):
	 * what a successful call would change. A call that fails only costs a maps read.
	 */
	switch (nr) {
	case __NR_mmap:
		/* a file mapped into a hole (not over a known one) only adds */
		if (!(a[3] & MAP_ANONYMOUS))
			p->added = 1;
		changed = (a[3] & MAP_FIXED) && overlaps_file(p, a[0], a[1]);
		break;
	case __NR_munmap:
		changed = overlaps_file(p, a[0], a[1]);
		break;
	case __NR_mremap:
		/* without MREMAP_FIXED the range moves into a hole: over no known file mapping */
		changed = overlaps_file(p, a[0], a[1]) ||
			  ((a[3] & MREMAP_FIXED) && overlaps_file(p, a[4], a[2]));
		break;
	default:
		return;	/* brk and madvise change no file mapping */
	}
	/* a process that may share its address space: its maps may not be those read */
	if (changed || p->peer)
		mark_stale(p, 1);
}

void ft_unwind_fork(pid_t parent, pid_t child, int shares_mm)
{
	struct proc *c, *p;

	if (!shares_mm)
		return;
	c = proc_get(child);
	p = proc_get(parent);
	if (c && p) {
		c->peer = parent;
		p->peer = child;
	}
}

void ft_unwind_exec(pid_t tgid)
{
	struct proc *p = proc_find(tgid);

	if (p)
		proc_free(p);
}

void ft_unwind_exit(pid_t tgid)
{
	ft_unwind_exec(tgid);
}
