/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - `foliotrace record` as a pipeline: decide what CMD runs (vm/resolve.h),
 * prepare what it needs from its root, boot a guest that records it (vm/runner.h) into a
 * new trace directory beside the database (vm/tracedir.h), and store what came out
 * (ft_ingest()). The caller prints; this prints nothing but what the scripts it runs print
 * on stderr (progress lines of run.sh, rootfs.sh, kbuild-tree.sh).
 */
#ifndef FT_VM_RECORD_H
#define FT_VM_RECORD_H

#include <stdint.h>

#include "lib/strbuf.h"
#include "vm/runner.h"

struct vm_record_opts {
	/*
	 * The guest: arch, policy, mem, cpus, timeout, libvirt, rootfs (--rootfs or NULL),
	 * sites, fragment; checked by the caller with vm_runner_check() first. exec, cwd,
	 * env, out and cmd are vm_record()'s to fill.
	 */
	struct vm_runner_args guest;
	const char *db;			/* trace database, created if missing */
	const char *site_skip;		/* --site-skip REGEX (sites only), NULL: default */
	const char *const *envs;	/* --env NAMEs (NAME or NAME=VALUE) */
	int nr_envs;
	char *const *cmd;		/* the workload and its arguments */
	int nr_cmd;			/* 1..VM_RUNNER_MAX_CMD */
};

struct vm_record_result {
	struct strbuf dir;		/* the trace directory, kept (release it) */
	int64_t trace_id;		/* the trace stored */
	int status;			/* the runner's: VM_RUNNER_OK, or _WORKLOAD_FAILED with the
					 * trace stored (vm_runner_status() says why) */
};

/*
 * vm_record - record o->cmd in a guest and store its trace in o->db.
 * Return: 0 with *r filled: the trace is stored (the workload may have failed: r->status);
 * or -1 with fail() saying why, nothing stored (a failed start leaves no directory), or
 * for a guest that failed, what of its partial trace could be stored, marked partial,
 * and where the rest is kept.
 */
int vm_record(const struct vm_record_opts *o, struct vm_record_result *r);

#endif /* FT_VM_RECORD_H */
