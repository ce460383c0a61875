/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - the collector's model of a trace, fed one decoded event at a time: processes
 * (one per mm instance), their VMA shapes, names, per-type counts, and the encoded anon
 * event stream. Knows nothing of babeltrace2: tracer/sink.c decodes the CTF events and calls
 * ft_collect_event(); store.c writes what this builds.
 *
 * Tuned for hundreds of millions of faults: per fault, two cached lookups (mm, VMA shape)
 * that usually hit the previous event's entries, one ftdb_enc_add(), no SQL.
 */
#ifndef FT_TRACER_COLLECT_H
#define FT_TRACER_COLLECT_H

#include <stdint.h>

#include "db/stream.h"
#include "tracer/idmap.h"
#include "db/store.h"
#include "tracer/syscalls.h"

/* What the collector does with an event type; tracer/evclass.c maps names to these. */
enum collect_kind {
	CK_OTHER,		/* counted only */
	/*
	 * anon_fault of the packed probe (pid_tid, info: docs/events.md), before CK_FAULT so
	 * that the name resolves to CK_FAULT and evclass.c picks this one by its info field
	 */
	CK_FAULT_PACKED,
	/*
	 * anon_fault_batch (kernel patch 0008): arrays of packed anon_fault records, each
	 * with its own time; the sinks call ft_collect_event() once per record, its fields
	 * in CK_FAULT_PACKED's order (tracer/fault-batch.h)
	 */
	CK_FAULT_BATCH,
	CK_FAULT, CK_ALLOC, CK_ZERO_WP, CK_COW, CK_ZAP, CK_MM_DUP,
	CK_EXEC, CK_FORK, CK_EXIT, CK_STATEDUMP,
	/* syscall_exit_X of the calls the site tracer stops (tracer/syscalls.h), in its order */
#define CK_SYS_ENUM(u, l) CK_SYS_##u,
	FT_SYSCALLS(CK_SYS_ENUM)
#undef CK_SYS_ENUM
	CK_NR
};
#define CK_SYS_FIRST	CK_SYS_MMAP	/* kind CK_SYS_FIRST + k: ft_syscall_names[k] */
#define CK_SYS_LAST	(CK_SYS_FIRST + FT_SYS_NR - 1)

/*
 * The event names and the payload fields each kind reads, in the order ft_collect_event()
 * gets them (names as babeltrace2 shows them, docs/events.md). A field name starting with
 * '?' is optional: absent, it reads as 0 / NULL. A name starting with '@' (after any '?')
 * is a member of the event's common context (LTTng's stream event context, the `tid` of
 * `lttng add-context -t tid`, "_tid" in CTF metadata), not of its payload.
 */
#define COLLECT_MAX_FIELDS 15
struct collect_event_desc {
	const char *name;				/* event name */
	const char *fields[COLLECT_MAX_FIELDS + 1];	/* NULL-terminated */
};
extern const struct collect_event_desc ft_collect_events[CK_NR];

/*
 * The positions of a packed anon_fault's fields (CK_FAULT_PACKED's row of
 * ft_collect_events[]), which tracer/fault-batch.c fills for each record of a batch.
 */
enum collect_packed_field { CP_MM, CP_PID_TID, CP_ADDR, CP_VM_START, CP_VM_END, CP_VM_FLAGS,
			    CP_LATENCY, CP_INFO, CP_PFN, CP_NR };

/* One value of a decoded event: integer fields in u (signed ones sign-extended), strings in s. */
struct collect_val {
	uint64_t u;
	const char *s;
};

#define COMM_LEN 16	/* TASK_COMM_LEN: 15 characters and a NUL */

struct cproc {
	uint64_t mm;		/* mm_struct identity */
	int32_t pid;		/* tgid from the first event of this mm */
	uint32_t parent;	/* index of the parent cproc (anon_mm_dup), IDMAP_NONE if none */
	uint32_t next_same_pid;	/* older cproc with the same pid, IDMAP_NONE at the end */
	uint32_t last_vma;	/* index of the VMA of the last fault, IDMAP_NONE if none */
	int dead;		/* an exit zap was seen: a new event on this mm is a new process */
	char comm[COMM_LEN];	/* "" while unknown */
	uint64_t first_ts;	/* ns */
	uint64_t last_ts;	/* ns */
	uint64_t counts[4];	/* anon_fault, anon_zero_wp, anon_cow, anon_zap events */
	int8_t workload;	/* 1 the workload's, 0 the guest's setup, -1 not known */
};

struct cvma {
	uint64_t start;		/* bytes */
	uint64_t end;		/* bytes, exclusive */
	uint64_t flags;		/* vm_flags */
	uint32_t proc;		/* index of the cproc */
	uint64_t first_ts;	/* ns */
	uint64_t faults;	/* anon_fault events */
};

struct collect {
	struct ftdb_store *store;
	struct ftdb_enc enc;		/* chunk being filled */
	uint64_t seq;			/* stream position of the next anon record */
	uint64_t chunk_first_seq;	/* stream position of the enc's first record */

	struct cproc *procs;		/* index i has proc_id store->proc_base + i */
	size_t nr_procs, cap_procs;
	struct idmap by_mm;		/* mm -> newest cproc of that mm */
	struct idmap by_pid;		/* pid -> newest cproc of that pid */
	uint32_t cache_proc;		/* cproc of the previous anon event, or IDMAP_NONE */

	struct cvma *vmas;		/* index i has vma_id store->vma_base + i */
	size_t nr_vmas, cap_vmas;
	struct idmap by_shape;		/* hash of (proc, start, end, flags) -> cvma */

	struct idmap comm_by_pid;	/* pid -> index in comms */
	char (*comms)[COMM_LEN];	/* latest known comm per pid */
	size_t nr_comms, cap_comms;
	/*
	 * pid -> 1 while the pid runs a program that re-executed itself through
	 * /proc/{self,PID,thread-self}/exe: the kernel calls it "exe", its name here stays
	 * the one it had before (comm_by_pid). A fork of it whose child_comm is "exe" inherits
	 * the mark; an exec of any other file clears it.
	 */
	struct idmap reexec_pids;

	/*
	 * The trace's anon_fault carries its allocation attempts (alloc_orders, pfn: kernel
	 * patch 0006): the ALLOC records are made from those, and anon_alloc events, if the
	 * recording enabled them too, are only counted. 0 for traces of the older format.
	 */
	int fault_allocs;
	uint64_t page_size;		/* bytes, for the blocks' starts (header/page_size) */
	uint64_t orders[256][2][2];	/* [order][zero_page]: faults, ptes */
	uint64_t events;		/* events seen, all types */
	uint64_t discarded;		/* events reported lost by discarded-events messages */
	uint64_t first_ts, last_ts;	/* ns, first and last event */
	/*
	 * The workload's process tree (header/workload_pid, set before the first event; 0 if
	 * the trace does not say): pids -> 1 while they belong to it. A pid joins when a
	 * process of the tree forks it (sched_process_fork: also vfork/posix_spawn, which
	 * copy no mm) and leaves when a process outside the tree forks it (pid reuse).
	 */
	int32_t workload_pid;
	int workload_root_forked;	/* the fork of workload_pid was seen */
	struct idmap workload_pids;
};

/*
 * The largest order an event may carry: the PMD order of 4K pages (2M), the page size
 * every reader models (replay's RP_PMD_ORDER). A larger one is trace damage.
 */
#define FT_COLLECT_PMD_ORDER	9

void ft_collect_init(struct collect *c, struct ftdb_store *store);
void ft_collect_release(struct collect *c);

/*
 * collect_event - one anon_* or naming event (kind != CK_OTHER), fields in the order of
 * evclass.c's table for the kind. Return: 0, or -1 (error set: SQLite failure, or trace
 * damage: an anon_fault or anon_alloc order, or an alloc_orders bit, above the PMD order).
 */
int ft_collect_event(struct collect *c, enum collect_kind kind, uint64_t ts,
		  const struct collect_val *v);

/* The root pid of the workload's process tree (header/workload_pid), before any event. */
void ft_collect_set_workload(struct collect *c, int32_t pid);

/*
 * Before any event: the trace's anon_fault has the fields alloc_orders and pfn, so the
 * ALLOC records come from them (docs/events.md); page_size in bytes (0: 4096).
 */
void ft_collect_set_fault_allocs(struct collect *c, uint64_t page_size);

/* Flush the last chunk and write processes, VMAs and fault_order. Return: 0 or -1. */
int ft_collect_finish(struct collect *c);

#endif /* FT_TRACER_COLLECT_H */
