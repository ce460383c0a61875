/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest-progress.h - how far a guest run has got, as the host sees it on the run's share
 * while guest-kernel/run.sh runs (record, guest replay): for a progress line on a
 * terminal (cli/progress.c). Only what the share shows is used, so the guest, its /init
 * and the kernel's cache key are untouched:
 *
 *   starting         no console.log yet: run.sh checks (or builds) the guest
 *   booting          QEMU started (console.log), no header/started: the kernel boots and
 *                    /init sets the knobs and LTTng up
 *   running          header/started: /init started tracing and the workload
 *   tracing stopped  header/buddyinfo.after: the workload exited and LTTng stopped
 *   exited           run.sh exited (the last report)
 */
#ifndef FT_VM_GUEST_PROGRESS_H
#define FT_VM_GUEST_PROGRESS_H

#include <stdint.h>

struct vm_guest_progress {
	double elapsed_s;		/* s since run.sh started */
	const char *state;		/* one of the states above (static string) */
	uint64_t trace_bytes;		/* bytes of the files under the share's trace/ */
	int exited;			/* run.sh exited: the last report */
};

/* The caller's callbacks: progress at least every second and after each line of run.sh's
 * stderr, which comes to line (no '\n') instead of the terminal. */
struct vm_guest_watch {
	void (*progress)(void *arg, const struct vm_guest_progress *p);
	void (*line)(void *arg, const char *line);
	void *arg;
};

/* vm_guest_progress_read - p's state and trace_bytes from the share directory out. */
void vm_guest_progress_read(const char *out, struct vm_guest_progress *p);

#endif /* FT_VM_GUEST_PROGRESS_H */
