// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - turn decoded trace events into processes, VMA shapes, names and the encoded
 * anon event stream; see collect.h.
 *
 * Process identity: one process per mm *instance*. mm pointers are reused once an mm is
 * freed, so an mm that had an exit zap is dead, and the next non-exit event on the same
 * pointer (or any anon_mm_dup naming it as the child) starts a new process.
 *
 * Names: sched_process_exec/fork/exit and the LTTng statedump give names by pid (tgid).
 * A name applies to the pid's live processes and to any of its processes still unnamed;
 * a dead mm keeps the name it had (an exec's old mm is torn down before the exec event).
 * A program that re-executes itself (execve of /proc/self/exe, as malloc-churn does) runs
 * the same file: the kernel names it "exe", here it keeps the name it had (reexec_pids).
 *
 * Workload: a process is the workload's when its pid is in the workload's tree at its
 * creation, except an mm copied by fork, which is the workload's exactly when the mm it was
 * copied from is: the copy of the launcher's mm that the workload's root starts with
 * (before its exec) is the guest's setup, the copies its own forks make are the workload's.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "tracer/collect.h"

const struct collect_event_desc ft_collect_events[CK_NR] = {
	[CK_FAULT_PACKED] = { "anon_fault", { "mm", "pid_tid", "address", "vm_start", "vm_end",
					      "vm_flags", "latency_ns", "info", "pfn" } },
	/* its arrays: tracer/fault-batch.c turns them into records of CK_FAULT_PACKED's */
	[CK_FAULT_BATCH] = { "anon_fault_batch", { "ts", "address", "latency_ns", "info", "pfn",
						   "vma", "task", "vm_start", "vm_end",
						   "vm_flags", "mm", "pid_tid" } },
	[CK_FAULT] = { "anon_fault", { "mm", "pid", "tid", "address", "vm_start", "vm_end",
				       "vm_flags", "write", "order", "nr_ptes", "zero_page",
				       "fallback", "latency_ns", "?alloc_orders", "?pfn" } },
	[CK_ALLOC] = { "anon_alloc", { "mm", "pid", "address", "order", "success", "pfn" } },
	[CK_ZERO_WP] = { "anon_zero_wp", { "mm", "pid", "tid", "address", "latency_ns" } },
	[CK_COW] = { "anon_cow", { "mm", "pid", "tid", "address", "latency_ns" } },
	[CK_ZAP] = { "anon_zap", { "mm", "pid", "start", "end", "cause", "?new_addr" } },
	[CK_MM_DUP] = { "anon_mm_dup", { "mm", "parent_mm", "pid", "parent_pid" } },
	[CK_EXEC] = { "sched_process_exec", { "filename", "tid" } },
	[CK_FORK] = { "sched_process_fork", { "child_comm", "child_tid", "?child_pid",
					      "?parent_pid" } },
	[CK_EXIT] = { "sched_process_exit", { "comm", "tid" } },
	[CK_STATEDUMP] = { "lttng_statedump_process_state", { "name", "tid", "pid" } },
#define CK_SYS_DESC(u, l) [CK_SYS_##u] = { "syscall_exit_" #l, { "ret", "@tid" } },
	FT_SYSCALLS(CK_SYS_DESC)
#undef CK_SYS_DESC
};

/* Field positions, as in the table above. */
enum { F_MM, F_PID, F_TID, F_ADDR, F_VM_START, F_VM_END, F_VM_FLAGS, F_WRITE, F_ORDER,
       F_NR_PTES, F_ZERO, F_FALLBACK, F_LATENCY, F_ALLOC_ORDERS, F_PFN, F_NR };
enum { A_MM, A_PID, A_ADDR, A_ORDER, A_SUCCESS, A_PFN };
enum { W_MM, W_PID, W_TID, W_ADDR, W_LATENCY };
enum { Z_MM, Z_PID, Z_START, Z_END, Z_CAUSE, Z_NEW_ADDR };
enum { D_MM, D_PARENT_MM, D_PID, D_PARENT_PID };

void ft_collect_init(struct collect *c, struct ftdb_store *store)
{
	memset(c, 0, sizeof(*c));
	c->store = store;
	ftdb_enc_init(&c->enc);
	ft_idmap_init(&c->by_mm);
	ft_idmap_init(&c->by_pid);
	ft_idmap_init(&c->by_shape);
	ft_idmap_init(&c->comm_by_pid);
	ft_idmap_init(&c->reexec_pids);
	ft_idmap_init(&c->workload_pids);
	c->cache_proc = IDMAP_NONE;
}

void ft_collect_release(struct collect *c)
{
	ftdb_enc_release(&c->enc);
	ft_idmap_release(&c->by_mm);
	ft_idmap_release(&c->by_pid);
	ft_idmap_release(&c->by_shape);
	ft_idmap_release(&c->comm_by_pid);
	ft_idmap_release(&c->reexec_pids);
	ft_idmap_release(&c->workload_pids);
	free(c->procs);
	free(c->vmas);
	free(c->comms);
	memset(c, 0, sizeof(*c));
}

static uint32_t new_proc(struct collect *c, uint64_t mm, int32_t pid, uint64_t ts)
{
	uint32_t i = (uint32_t)c->nr_procs++, ci;
	struct cproc *p;

	XGROW(c->procs, c->cap_procs, c->nr_procs);
	p = &c->procs[i];
	memset(p, 0, sizeof(*p));
	p->mm = mm;
	p->pid = pid;
	p->parent = IDMAP_NONE;
	p->last_vma = IDMAP_NONE;
	p->first_ts = ts;
	p->workload = c->workload_pid <= 0 ? -1 :
		      ft_idmap_get(&c->workload_pids, (uint64_t)(uint32_t)pid) == 1;
	p->next_same_pid = ft_idmap_get(&c->by_pid, (uint64_t)(uint32_t)pid);
	ft_idmap_set(&c->by_pid, (uint64_t)(uint32_t)pid, i);
	ft_idmap_set(&c->by_mm, mm, i);
	ci = ft_idmap_get(&c->comm_by_pid, (uint64_t)(uint32_t)pid);
	if (ci != IDMAP_NONE)
		memcpy(p->comm, c->comms[ci], COMM_LEN);
	return i;
}

/*
 * The process of mm for an event at ts. fresh: the event creates the mm (anon_mm_dup
 * child); exit_zap: the event is part of the mm's teardown.
 */
static struct cproc *get_proc(struct collect *c, uint64_t mm, int32_t pid, uint64_t ts,
			      int fresh, int exit_zap)
{
	uint32_t i = c->cache_proc;

	if (i == IDMAP_NONE || c->procs[i].mm != mm || c->procs[i].dead || fresh) {
		i = ft_idmap_get(&c->by_mm, mm);
		if (i == IDMAP_NONE || fresh || (c->procs[i].dead && !exit_zap))
			i = new_proc(c, mm, pid, ts);
		c->cache_proc = i;
	}
	c->procs[i].last_ts = ts;
	return &c->procs[i];
}

static struct cvma *get_vma(struct collect *c, struct cproc *p, uint64_t start, uint64_t end,
			    uint64_t flags, uint64_t ts)
{
	uint32_t pi = (uint32_t)(p - c->procs), i = p->last_vma;
	uint64_t key;
	size_t pos;
	struct cvma *v;

	if (i != IDMAP_NONE) {
		v = &c->vmas[i];
		if (v->start == start && v->end == end && v->flags == flags)
			return v;
	}
	key = ft_idmap_hash(start ^ ft_idmap_hash(end ^ ft_idmap_hash(flags ^ ft_idmap_hash(pi))));
	pos = ft_idmap_hash(key);
	while ((i = ft_idmap_next(&c->by_shape, key, &pos)) != IDMAP_NONE) {
		v = &c->vmas[i];
		if (v->proc == pi && v->start == start && v->end == end && v->flags == flags)
			goto found;
	}
	i = (uint32_t)c->nr_vmas++;
	XGROW(c->vmas, c->cap_vmas, c->nr_vmas);
	v = &c->vmas[i];
	v->start = start;
	v->end = end;
	v->flags = flags;
	v->proc = pi;
	v->first_ts = ts;
	v->faults = 0;
	ft_idmap_add(&c->by_shape, key, i);
found:
	p->last_vma = i;
	return v;
}

static int flush_chunk(struct collect *c)
{
	int ret = 0;

	if (c->enc.nr)
		ret = ftdb_store_chunk(c->store, &c->enc, c->chunk_first_seq);
	c->chunk_first_seq = c->seq;
	ftdb_enc_reset(&c->enc);
	return ret;
}

static int emit(struct collect *c, const struct ftdb_event *ev)
{
	ftdb_enc_add(&c->enc, ev);
	c->seq++;
	if (ftdb_enc_full(&c->enc))
		return flush_chunk(c);
	return 0;
}

/* Kernel comm of an exec: basename of the file, at most 15 characters (__set_task_comm). */
static void set_comm(struct collect *c, int32_t pid, const char *name, int basename)
{
	char comm[COMM_LEN];
	uint32_t i;

	if (!name || pid <= 0)
		return;
	if (basename && strrchr(name, '/'))
		name = strrchr(name, '/') + 1;
	strncpy(comm, name, COMM_LEN - 1);
	comm[COMM_LEN - 1] = '\0';
	i = ft_idmap_get(&c->comm_by_pid, (uint64_t)(uint32_t)pid);
	if (i == IDMAP_NONE) {
		i = (uint32_t)c->nr_comms++;
		XGROW(c->comms, c->cap_comms, c->nr_comms);
		ft_idmap_set(&c->comm_by_pid, (uint64_t)(uint32_t)pid, i);
	}
	memcpy(c->comms[i], comm, COMM_LEN);
	for (i = ft_idmap_get(&c->by_pid, (uint64_t)(uint32_t)pid); i != IDMAP_NONE;
	     i = c->procs[i].next_same_pid)
		if (!c->procs[i].dead || !c->procs[i].comm[0])
			memcpy(c->procs[i].comm, comm, COMM_LEN);
}

/* The file an exec of /proc/self/exe, /proc/thread-self/exe or /proc/PID/exe runs. */
static int is_proc_exe(const char *f)
{
	if (!f || strncmp(f, "/proc/", 6))
		return 0;
	f += 6;
	if (!strncmp(f, "self/", 5))
		f += 5;
	else if (!strncmp(f, "thread-self/", 12))
		f += 12;
	else {
		if (*f < '0' || *f > '9')
			return 0;
		while (*f >= '0' && *f <= '9')
			f++;
		if (*f++ != '/')
			return 0;
	}
	return !strcmp(f, "exe");
}

static int reexec(const struct collect *c, int32_t pid)
{
	return pid > 0 && ft_idmap_get(&c->reexec_pids, (uint64_t)(uint32_t)pid) == 1;
}

/*
 * sched_process_exec of pid running file: a re-exec of the program pid already runs keeps
 * the pid's known name (the kernel's is "exe"); any other file names it as the kernel does.
 */
static void on_exec(struct collect *c, int32_t pid, const char *file)
{
	int same = is_proc_exe(file) &&
		   ft_idmap_get(&c->comm_by_pid, (uint64_t)(uint32_t)pid) != IDMAP_NONE;

	if (pid <= 0)
		return;
	ft_idmap_set(&c->reexec_pids, (uint64_t)(uint32_t)pid, (uint32_t)same);
	if (!same)
		set_comm(c, pid, file, 1);
}

/* A kernel name for pid (fork, exit, statedump): "exe" of a re-executed program is not. */
static void name_event(struct collect *c, int32_t pid, const char *name)
{
	if (name && !strcmp(name, "exe") && reexec(c, pid))
		return;
	set_comm(c, pid, name, 0);
}

/*
 * The ALLOC records of a fault whose anon_fault carries its allocation attempts, exactly as
 * its anon_alloc events would have been: one per set bit of alloc_orders from the highest
 * order down (the kernel tries in that order, each after the previous one failed), block
 * start = address aligned down to the block's size; all failed but the last (lowest bit),
 * which succeeded iff pfn != 0, with that pfn. They take the fault's timestamp (the real
 * events are a little older) and, like the real ones, precede the fault's record.
 */
static int fault_allocs(struct collect *c, const struct cproc *p, uint64_t ts,
			const struct collect_val *v)
{
	uint64_t orders = v[F_ALLOC_ORDERS].u, pfn = v[F_PFN].u;

	while (orders) {
		unsigned int o = 63 - (unsigned int)__builtin_clzll(orders);
		struct ftdb_event ev = {
			.kind = FTDB_EV_ALLOC,
			.ts = ts,
			.addr = v[F_ADDR].u & ~((c->page_size << o) - 1),
			.proc_id = c->store->proc_base + (uint32_t)(p - c->procs),
			.order = (uint8_t)o,
		};

		orders &= ~(1ULL << o);
		if (!orders && pfn) {
			ev.aux = pfn;
			ev.flags = FTDB_EVF_SUCCESS;
		}
		if (emit(c, &ev))
			return -1;
	}
	return 0;
}

/*
 * Trace damage every reader would trip on (a shift by the order, a loop over its 2^order
 * pages): an order above the PMD order is refused here, so none is ever stored.
 */
static int check_order(const char *event, uint64_t order)
{
	if (order > FT_COLLECT_PMD_ORDER)
		return fail("trace damaged: %s of order %llu, above the PMD order %d", event,
			    (unsigned long long)order, FT_COLLECT_PMD_ORDER);
	return 0;
}

static int on_fault(struct collect *c, uint64_t ts, const struct collect_val *v)
{
	struct cproc *p;
	struct cvma *vma;
	struct ftdb_event ev;
	int zero = v[F_ZERO].u != 0;

	if (check_order("anon_fault", v[F_ORDER].u))
		return -1;
	if (c->fault_allocs && v[F_ALLOC_ORDERS].u >> (FT_COLLECT_PMD_ORDER + 1))
		return fail("trace damaged: anon_fault with alloc_orders 0x%llx, an order above "
			    "the PMD order %d", (unsigned long long)v[F_ALLOC_ORDERS].u,
			    FT_COLLECT_PMD_ORDER);
	p = get_proc(c, v[F_MM].u, (int32_t)v[F_PID].u, ts, 0, 0);
	vma = get_vma(c, p, v[F_VM_START].u, v[F_VM_END].u, v[F_VM_FLAGS].u, ts);
	ev = (struct ftdb_event){
		.kind = FTDB_EV_FAULT,
		.ts = ts,
		.addr = v[F_ADDR].u,
		.aux = v[F_LATENCY].u,
		.proc_id = c->store->proc_base + (uint32_t)(p - c->procs),
		.vma_id = c->store->vma_base + (uint32_t)(vma - c->vmas),
		.nr_ptes = (uint16_t)v[F_NR_PTES].u,
		.flags = (v[F_WRITE].u ? FTDB_EVF_WRITE : 0) | (v[F_ZERO].u ? FTDB_EVF_ZERO_PAGE : 0),
		.order = (uint8_t)v[F_ORDER].u,
		.reason = (uint8_t)v[F_FALLBACK].u,
		.tid_lo = (uint16_t)(v[F_TID].u - v[F_PID].u),
	};
	p->counts[0]++;
	vma->faults++;
	c->orders[ev.order][zero][0]++;
	c->orders[ev.order][zero][1] += ev.nr_ptes;
	if (c->fault_allocs && fault_allocs(c, p, ts, v))
		return -1;
	return emit(c, &ev);
}

static int on_alloc(struct collect *c, uint64_t ts, const struct collect_val *v)
{
	struct cproc *p;
	struct ftdb_event ev = {
		.kind = FTDB_EV_ALLOC,
		.ts = ts,
		.addr = v[A_ADDR].u,
		.aux = v[A_PFN].u,
		.flags = v[A_SUCCESS].u ? FTDB_EVF_SUCCESS : 0,
		.order = (uint8_t)v[A_ORDER].u,
	};

	if (check_order("anon_alloc", v[A_ORDER].u))
		return -1;
	/* the faults' own fields say it all: recorded only to check them (docs/events.md) */
	if (c->fault_allocs)
		return 0;
	p = get_proc(c, v[A_MM].u, (int32_t)v[A_PID].u, ts, 0, 0);
	ev.proc_id = c->store->proc_base + (uint32_t)(p - c->procs);
	return emit(c, &ev);
}

static int on_wp(struct collect *c, enum ftdb_ev_kind kind, uint64_t ts,
		 const struct collect_val *v)
{
	struct cproc *p = get_proc(c, v[W_MM].u, (int32_t)v[W_PID].u, ts, 0, 0);
	struct ftdb_event ev = {
		.kind = kind,
		.ts = ts,
		.addr = v[W_ADDR].u,
		.aux = v[W_LATENCY].u,
		.proc_id = c->store->proc_base + (uint32_t)(p - c->procs),
		.tid_lo = (uint16_t)(v[W_TID].u - v[W_PID].u),
	};

	p->counts[kind == FTDB_EV_ZERO_WP ? 1 : 2]++;
	return emit(c, &ev);
}

static int on_zap(struct collect *c, uint64_t ts, const struct collect_val *v)
{
	int exit_zap = v[Z_CAUSE].u == FTDB_ZAP_EXIT;
	struct cproc *p = get_proc(c, v[Z_MM].u, (int32_t)v[Z_PID].u, ts, 0, exit_zap);
	struct ftdb_event ev = {
		.kind = FTDB_EV_ZAP,
		.ts = ts,
		.addr = v[Z_START].u,
		.end = v[Z_END].u,
		.aux = v[Z_CAUSE].u == FTDB_ZAP_MREMAP ? v[Z_NEW_ADDR].u : 0,
		.proc_id = c->store->proc_base + (uint32_t)(p - c->procs),
		.reason = (uint8_t)v[Z_CAUSE].u,
	};

	p->counts[3]++;
	if (exit_zap)
		p->dead = 1;
	if (ftdb_store_zap(c->store, c->seq, &ev))
		return -1;
	return emit(c, &ev);
}

static int on_mm_dup(struct collect *c, uint64_t ts, const struct collect_val *v)
{
	struct cproc *parent = get_proc(c, v[D_PARENT_MM].u, (int32_t)v[D_PARENT_PID].u, ts,
					0, 0);
	uint32_t pi = (uint32_t)(parent - c->procs);
	struct cproc *p = get_proc(c, v[D_MM].u, (int32_t)v[D_PID].u, ts, 1, 0);
	struct ftdb_event ev = {
		.kind = FTDB_EV_MM_DUP,
		.ts = ts,
		.aux = c->store->proc_base + pi,
		.proc_id = c->store->proc_base + (uint32_t)(p - c->procs),
	};

	p->parent = pi;
	p->workload = c->procs[pi].workload;
	/* the child runs under its parent's name until fork's own event names it */
	if (!p->comm[0])
		memcpy(p->comm, c->procs[pi].comm, COMM_LEN);
	return emit(c, &ev);
}

/* A new process child of parent: in the workload's tree if parent is (or it is the root). */
static void workload_fork(struct collect *c, int32_t parent, int32_t child)
{
	int in;

	if (c->workload_pid <= 0)
		return;
	if (child == c->workload_pid && !c->workload_root_forked) {
		c->workload_root_forked = 1;
		in = 1;
	} else {
		in = parent > 0 && ft_idmap_get(&c->workload_pids, (uint64_t)(uint32_t)parent) == 1;
	}
	ft_idmap_set(&c->workload_pids, (uint64_t)(uint32_t)child, (uint32_t)in);
}

/*
 * A new thread group child of parent named child_comm: the fork of a re-executed program
 * ("exe") is that program too, and takes its parent's name.
 */
static void on_fork(struct collect *c, int32_t parent, int32_t child, const char *child_comm)
{
	int same = child_comm && !strcmp(child_comm, "exe") && reexec(c, parent);

	if (child > 0)
		ft_idmap_set(&c->reexec_pids, (uint64_t)(uint32_t)child, (uint32_t)same);
	if (same)
		set_comm(c, child, c->comms[ft_idmap_get(&c->comm_by_pid,
						     (uint64_t)(uint32_t)parent)], 0);
	else
		set_comm(c, child, child_comm, 0);
	workload_fork(c, parent, child);
}

void ft_collect_set_workload(struct collect *c, int32_t pid)
{
	c->workload_pid = pid;
	if (pid > 0)
		ft_idmap_set(&c->workload_pids, (uint64_t)(uint32_t)pid, 1);
}

void ft_collect_set_fault_allocs(struct collect *c, uint64_t page_size)
{
	c->fault_allocs = 1;
	c->page_size = page_size ? page_size : 4096;
}

/*
 * A packed anon_fault (docs/events.md): its fields in the unpacked layout. pid_tid is
 * tgid << 32 | tid; info is write | order << 8 | zero_page << 16 | fallback << 24 |
 * nr_ptes << 32 | alloc_orders << 48. pid and tid are sign-extended as pid_t fields are.
 */
static void unpack_fault(const struct collect_val *p, struct collect_val *v)
{
	uint64_t info = p[CP_INFO].u;

	memset(v, 0, F_NR * sizeof(*v));
	v[F_MM].u = p[CP_MM].u;
	v[F_PID].u = (uint64_t)(int64_t)(int32_t)(uint32_t)(p[CP_PID_TID].u >> 32);
	v[F_TID].u = (uint64_t)(int64_t)(int32_t)(uint32_t)p[CP_PID_TID].u;
	v[F_ADDR].u = p[CP_ADDR].u;
	v[F_VM_START].u = p[CP_VM_START].u;
	v[F_VM_END].u = p[CP_VM_END].u;
	v[F_VM_FLAGS].u = p[CP_VM_FLAGS].u;
	v[F_WRITE].u = info & 0xff;
	v[F_ORDER].u = info >> 8 & 0xff;
	v[F_ZERO].u = info >> 16 & 0xff;
	v[F_FALLBACK].u = info >> 24 & 0xff;
	v[F_NR_PTES].u = info >> 32 & 0xffff;
	v[F_ALLOC_ORDERS].u = info >> 48;
	v[F_LATENCY].u = p[CP_LATENCY].u;
	v[F_PFN].u = p[CP_PFN].u;
}

int ft_collect_event(struct collect *c, enum collect_kind kind, uint64_t ts,
		  const struct collect_val *v)
{
	struct collect_val u[F_NR];

	switch (kind) {
	case CK_FAULT_PACKED:
	case CK_FAULT_BATCH:	/* one record of it: the packed fields, then its ts */
		unpack_fault(v, u);
		return on_fault(c, ts, u);
	case CK_FAULT:
		return on_fault(c, ts, v);
	case CK_ALLOC:
		return on_alloc(c, ts, v);
	case CK_ZERO_WP:
		return on_wp(c, FTDB_EV_ZERO_WP, ts, v);
	case CK_COW:
		return on_wp(c, FTDB_EV_COW, ts, v);
	case CK_ZAP:
		return on_zap(c, ts, v);
	case CK_MM_DUP:
		return on_mm_dup(c, ts, v);
	case CK_EXEC:
		/* after exec the task is the thread group leader: tid == tgid */
		on_exec(c, (int32_t)v[1].u, v[0].s);
		return 0;
	case CK_FORK:
		/* a new thread group only: a new thread keeps its process's name */
		if (!v[2].u || v[2].u == v[1].u)
			on_fork(c, (int32_t)v[3].u, (int32_t)v[1].u, v[0].s);
		return 0;
	case CK_EXIT:
		name_event(c, (int32_t)v[1].u, v[0].s);
		return 0;
	case CK_STATEDUMP:
		if (v[1].u == v[2].u)
			name_event(c, (int32_t)v[2].u, v[0].s);
		return 0;
	case CK_SYS_FIRST ... CK_SYS_LAST:
		/* every process's, not only the traced ones': tracer/sites-pair.c picks its calls */
		return ftdb_store_sys_exit(c->store, ts, (int32_t)v[1].u,
				      ft_syscall_names[kind - CK_SYS_FIRST], (int64_t)v[0].u);
	default:
		return 0;
	}
}

int ft_collect_finish(struct collect *c)
{
	struct ftdb_store *s = c->store;
	unsigned int o;
	size_t i;
	int z;

	if (flush_chunk(c))
		return -1;
	for (i = 0; i < c->nr_procs; i++) {
		const struct cproc *p = &c->procs[i];

		if (ftdb_store_proc(s, s->proc_base + (uint32_t)i, p->pid, p->mm, p->comm,
			       p->parent == IDMAP_NONE ? 0 : s->proc_base + p->parent,
			       p->first_ts, p->last_ts, p->counts, p->workload))
			return -1;
	}
	for (i = 0; i < c->nr_vmas; i++) {
		const struct cvma *v = &c->vmas[i];

		if (ftdb_store_vma(s, s->vma_base + (uint32_t)i, s->proc_base + v->proc, v->start,
			      v->end, v->flags, v->first_ts, v->faults))
			return -1;
	}
	for (o = 0; o < 256; o++)
		for (z = 0; z < 2; z++)
			if (c->orders[o][z][0] &&
			    ftdb_store_order(s, o, z, c->orders[o][z][0], c->orders[o][z][1]))
				return -1;
	return 0;
}
