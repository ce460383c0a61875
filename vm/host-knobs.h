/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host-knobs.h - this machine's transparent hugepage knobs (Linux 6.8+ per-size mTHP:
 * TOP/enabled and TOP/hugepages-<N>kB/enabled, TOP = /sys/kernel/mm/transparent_hugepage),
 * saved, set and restored for `foliotrace calibrate --host` (docs/cost-model.md, "On this
 * machine"). bench/host-lib.sh is the shell side of the same rules for the benches.
 *
 * Settings: 4 (KiB) = TOP/enabled and every per-size knob `never`; a size S = the same
 * with hugepages-SkB/enabled `always` (a per-size `always` acts whatever TOP/enabled
 * says; `never` there keeps the PMD size and khugepaged out).
 *
 * Every knob is saved (vm_knobs_save()) before the first write and restored by
 * vm_knobs_restore(), and on SIGINT, SIGTERM and SIGHUP by a handler that first kills the
 * child named by vm_knobs_child() (nothing runs under a knob being restored), restores,
 * then dies of the signal.
 *
 * One writer at a time: the knobs are system-wide, and two programs that each save, set and
 * restore them would each restore the other's setting as if it were the machine's. Every
 * writer (this file, bench/host-lib.sh) holds an exclusive flock(2) on VM_KNOBS_LOCK (or
 * $FT_HOST_KNOBS_LOCK) from before the save until after the restore.
 *
 * For tests only: $FT_HOST_THP_SYSFS names a directory standing for TOP (a fake tree of
 * plain files), $FT_HOST_UID an effective uid to assume instead of geteuid().
 */
#ifndef FT_VM_HOST_KNOBS_H
#define FT_VM_HOST_KNOBS_H

#include <stddef.h>
#include <sys/types.h>

#define VM_KNOBS_MAX 32		/* knob files kept: TOP/enabled and the sizes */
#define VM_KNOBS_LOCK "/run/lock/foliotrace-thp-knobs"

/* TOP: $FT_HOST_THP_SYSFS or /sys/kernel/mm/transparent_hugepage. */
const char *vm_knobs_top(void);

/*
 * vm_knobs_check - refuse what cannot be calibrated: not root (writing the knobs needs
 * it), or a kernel without per-size mTHP knobs. On success the per-size knobs' sizes, KiB,
 * ascending, into kb (at most max). Return: the number of sizes (>= 1), or -1 with fail().
 */
int vm_knobs_check(unsigned int *kb, size_t max);

/* Take the knobs' lock without waiting. Return: 0, or -1 with fail() (another writer
 * holds it, or it cannot be opened). Released by vm_knobs_restore() or vm_knobs_unlock(). */
int vm_knobs_lock(void);

/* Release the lock when nothing was saved (a step between lock and save failed). */
void vm_knobs_unlock(void);

/* Save every knob (the current value of each, in memory), taking the lock first if it is
 * not held, and install the signal handlers. Return: 0, or -1 with fail() (another writer
 * holds the lock, or a knob cannot be read) and nothing written. */
int vm_knobs_save(void);

/* Apply setting kb (4 or a size of vm_knobs_check()). Return: 0, or -1 with fail(). */
int vm_knobs_set(unsigned int kb);

/* The process the signal handler kills before restoring (0: none). */
void vm_knobs_child(pid_t pid);

/* vm_knobs_child_group - a directory (a cgroup of the child's, vm/ksample.h) the signal
 * handler removes after it has reaped the child; NULL: none. Copied. */
void vm_knobs_child_group(const char *dir);

/* Restore every saved knob, remove the handlers, release the lock. Return: 0, or -1 with fail() naming the
 * first knob that could not be restored (the others are restored all the same). */
int vm_knobs_restore(void);

#endif /* FT_VM_HOST_KNOBS_H */
