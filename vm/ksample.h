/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksample.h - a command's kernel time on this machine, sampled rather than ticked
 * (docs/cost-model.md, "Measuring kernel time"). A kernel that splits a task's run time
 * into user and system by the timer tick (CONFIG_TICK_CPU_ACCOUNTING: at HZ=250 one
 * 4 ms sample) gives 550 ms of system time as ~138 samples, ~8% off per run. Here the
 * command runs in a cgroup v2 group of its own, child of the caller's, and a cpu-clock
 * perf event per cpu, bound to that group, samples it every VM_KSAMPLE_PERIOD_NS of its
 * run time; a sample in kernel mode counts the period as kernel time. A group event, not
 * a task one: the task's own events end in do_exit() before exit_mm(), so a per-task
 * sampler (`perf record -e cpu-clock:k CMD`) misses the teardown of the address space at
 * exit, which a group's event still sees. No cgroup v2, no perf events, or no permission:
 * the rusage's system time, marked (vm_ksample.sampled 0).
 */
#ifndef FT_VM_KSAMPLE_H
#define FT_VM_KSAMPLE_H

#include <stdint.h>
#include <sys/types.h>

/* 4 kHz: 16 times the tick's samples; at 10 kHz the sampler's own interrupts made the
 * kernel work they sample 12% slower on the VM it was written on (the interrupts exit to
 * the hypervisor), at 4 kHz 2% (docs/cost-model.md) */
#define VM_KSAMPLE_PERIOD_NS 250000

struct vm_ksample {
	uint64_t kernel_ns;	/* kernel-mode samples x period (sampled 0: stime_ns) */
	uint64_t user_ns;	/* user-mode samples x period (sampled 0: utime_ns) */
	uint64_t stime_ns;	/* the rusage of the process tree (every process waited for) */
	uint64_t utime_ns;
	uint64_t minflt;
	int sampled;		/* 1: kernel_ns and user_ns are samples; 0: the rusage's */
};

/* One sampler: vm_ksample_open() before the fork, vm_ksample_enter() in the child before
 * its exec, vm_ksample_wait() for the child, vm_ksample_close() always. */
struct vm_ksampler;

/*
 * vm_ksample_open - a group and its events, ready for a child; NULL (never an error: the
 * run is then measured by its rusage) when this machine cannot sample, the reason kept
 * for vm_ksample_why().
 */
struct vm_ksampler *vm_ksample_open(void);

/* Why the last vm_ksample_open() gave NULL ("" if it did not). */
const char *vm_ksample_why(void);

/* vm_ksample_enter - in the forked child, before exec: join the group (open, write,
 * close only: async-signal-safe). k may be NULL. Return: 0, or -1 (errno set). */
int vm_ksample_enter(const struct vm_ksampler *k);

/*
 * vm_ksample_wait - wait for pid (a child that called vm_ksample_enter(k)), draining the
 * samples meanwhile; *st its wait status, *out its measures. k may be NULL (rusage only).
 * Return: 0, or -1 with fail() (wait4 failed, or samples were lost).
 */
int vm_ksample_wait(struct vm_ksampler *k, pid_t pid, int *st, struct vm_ksample *out);

/* vm_ksample_dir - the group's directory (k NULL: NULL). */
const char *vm_ksample_dir(const struct vm_ksampler *k);

/* vm_ksample_close - the events closed, the group removed (NULL: nothing). */
void vm_ksample_close(struct vm_ksampler *k);

#endif /* FT_VM_KSAMPLE_H */
