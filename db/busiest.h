/* SPDX-License-Identifier: GPL-2.0 */
/*
 * busiest.h - what the report's address heat maps read: a trace's processes with the most
 * recorded faults (process.anon_faults) and the VMA shapes their faults saw (vma).
 */
#ifndef FT_DB_BUSIEST_H
#define FT_DB_BUSIEST_H

#include <stdint.h>
#include <sqlite3.h>

struct ftdb_busy_proc {
	int64_t proc_id, pid;
	char comm[32];			/* "" if unknown */
	int64_t anon_faults;		/* anon_fault events of the process, as ingested */
};

/*
 * ftdb_busiest_procs - up to max processes of trace_id with at least one anon_fault, the
 * workload's (process.workload) first, then most faults first, ties by proc_id; restricted to pid (>= 0) or comm (non-NULL) if given.
 * Return: the number written to out, or -1 with fail().
 */
int ftdb_busiest_procs(sqlite3 *db, int64_t trace_id, int64_t pid, const char *comm,
		       struct ftdb_busy_proc *out, int max);

/* A VMA shape with faults, of one process. */
struct ftdb_busy_vma {
	uint64_t start, end, flags;	/* bytes, bytes (exclusive), vm_flags */
	int64_t faults;			/* anon_fault events in it */
};

/*
 * ftdb_proc_vmas - the VMA shapes of proc_id with faults, by start. Return: the number
 * (*out malloc()ed, free() it; NULL for none), or -1 with fail().
 */
int ftdb_proc_vmas(sqlite3 *db, int64_t proc_id, struct ftdb_busy_vma **out);

#endif /* FT_DB_BUSIEST_H */
