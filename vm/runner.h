/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner.h - the guest runner, guest-kernel/run.sh, as the CLI uses it (record, guest run,
 * guest replay): its arguments, its exit statuses, and the one mapping of those onto the
 * CLI's 0 ok / 1 failure / 2 usage convention with the message that goes with each.
 */
#ifndef FT_VM_RUNNER_H
#define FT_VM_RUNNER_H

#include "vm/guest-progress.h"

/* Exit statuses of run.sh (its header comment says the same). */
enum vm_runner_exit {
	VM_RUNNER_OK = 0,		/* the workload ran and exited 0 */
	VM_RUNNER_NOT_STARTED = 1,	/* the run could not start: why in OUT/run_error */
	VM_RUNNER_USAGE = 2,		/* bad arguments, or a policy the guest knob refuses */
	VM_RUNNER_WORKLOAD_FAILED = 3,	/* the workload exited non-zero: its status in
					 * OUT/header/workload_status; the trace is complete */
	VM_RUNNER_GUEST_FAILED = 4,	/* panic, timeout, killed: what came out is kept,
					 * header/partial is 1, why in header/guest_error */
};

struct vm_runner_args {
	const char *arch;		/* x86_64 | arm64 */
	const char *policy;		/* a policy spec the guest knob expresses */
	const char *mem, *cpus, *timeout;	/* NULL: run.sh's defaults */
	const char *libvirt;		/* libvirt URI, or NULL for QEMU directly */
	const char *file;		/* --file copied to the share's in/, or NULL */
	const char *out;		/* the share directory, created empty by the caller */
	/* a program of a root filesystem (vm/resolve.h): exec NULL for the others */
	const char *exec, *cwd;		/* resolved path, directory to run in */
	const char *rootfs;		/* the root, NULL for the host's / */
	char *const *env;		/* NAME=VALUE, the workload's whole environment */
	int nr_env;
	int sites;			/* run the workload under the call-site tracer */
	const char *fragment;		/* --fragment SPEC (guest-kernel/fragspec.h), or NULL */
	const char *clock;		/* --clock tcg|icount (docs/guest.md, Clock), or NULL */
	const char *kernel;		/* --kernel 6.1|6.12 (docs/guest.md), or NULL: 6.1 */
	char *const *cmd;		/* the workload and its arguments */
	int nr_cmd;			/* at most VM_RUNNER_MAX_CMD */
	/* NULL: run.sh's stderr is the caller's; else it goes to watch->line, and
	 * watch->progress follows the guest (vm/guest-progress.h) */
	const struct vm_guest_watch *watch;
};
#define VM_RUNNER_MAX_CMD 256

/*
 * vm_runner_check - what the CLI can refuse before creating anything: an unknown arch, a
 * policy that does not parse or that only the simulator implements, an unknown kernel
 * (NULL: 6.1), and on 6.12 a policy upstream's mTHP cannot put (rp_policy_kernel_knob()).
 * Return: 0, or -1 with fail() naming the problem (a usage error: exit 2).
 */
int vm_runner_check(const char *arch, const char *policy, const char *kernel);

/* A --fragment SPEC that does not parse. Return: 0, or -1 with fail() (a usage error). */
int vm_runner_check_fragment(const char *spec);

/* Run run.sh with a; Return: its exit status (enum vm_runner_exit, or other), or -1. */
int vm_runner_run(const struct vm_runner_args *a);
/*
 * vm_runner_boot - vm_runner_run() of a (whose out is a new trace directory of the
 * database db, vm/tracedir.h) for a pipeline that stores what comes out: a run that did not
 * start (any status but OK, WORKLOAD_FAILED, GUEST_FAILED) is an error saying why, and its
 * directory is discarded, so a failed attempt leaves none.
 * Return: VM_RUNNER_OK, VM_RUNNER_WORKLOAD_FAILED or VM_RUNNER_GUEST_FAILED (the
 * directory kept, the caller decides what a failed guest means), or -1 with fail().
 */
int vm_runner_boot(const struct vm_runner_args *a, const char *db);
/* Run run.sh with the user's own arguments (argv[0] ignored, NULL-terminated). */
int vm_runner_run_argv(int argc, char **argv);

/*
 * vm_runner_status - map run.sh's exit status rc onto the CLI's: 0 for VM_RUNNER_OK; 2 for
 * VM_RUNNER_USAGE when the user wrote run.sh's arguments (user_args: `guest run`); 1 for
 * anything else, with fail() saying why (from out's run_error, header/guest_error or
 * header/workload_status when out is given). Arguments the CLI built itself were checked
 * first (vm_runner_check()), so run.sh refusing them, or dash exiting 2 on a failed
 * redirection, is a failure, not a usage error.
 */
int vm_runner_status(int rc, const char *out, int user_args);

/* The one-line value of out/name (e.g. "header/workload_status"), or NULL. malloc'ed. */
char *vm_runner_value(const char *out, const char *name);

#endif /* FT_VM_RUNNER_H */
