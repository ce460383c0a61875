// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - the record pipeline; see record.h.
 *
 * The CTF trace is kept beside the database, in DB.ctf/<time>-<arch>-<policy>-<cmd>/, so it
 * can be ingested again or read with babeltrace2. A guest that fails (panic, timeout,
 * killed) leaves its partial trace there, marked partial in its header; it is ingested as
 * such when babeltrace2 can read it, and the record fails either way.
 */
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"
#include "lib/outfile.h"
#include "tracer/ingest.h"
#include "vm/record.h"
#include "vm/resolve.h"
#include "vm/tracedir.h"

/* Store what the guest wrote in dir; Return: 0 with *trace_id, or -1 (error set). */
static int store(const struct vm_record_opts *o, const char *dir, int partial,
		 int64_t *trace_id)
{
	struct ft_ingest_opts io = { .db = o->db, .dir = dir, .allow_partial = partial,
				     .site_skip = o->site_skip, .warn = o->warn,
				     .warn_arg = o->warn_arg };
	struct ft_ingest_result res;

	if (ft_ingest(&io, &res))
		return -1;
	*trace_id = res.trace_id;
	return 0;
}

/* A guest that failed: store what it wrote if babeltrace2 can read it, say so. */
static int guest_failed(const struct vm_record_opts *o, const char *dir, int rc)
{
	struct strbuf trace = STRBUF_INIT;
	struct stat st;
	int64_t id;
	int stored = 0;

	strbuf_addf(&trace, "%s/trace", dir);
	if (!stat(trace.buf, &st)) {
		stored = !store(o, dir, 1, &id);
		error_clear();
	}
	strbuf_release(&trace);
	vm_runner_status(rc, dir, 0);
	return fail("%s %s", stored ? "the partial trace is stored, marked partial, and kept in" :
				      "nothing was stored; what the guest wrote is in", dir);
}

int vm_record(const struct vm_record_opts *o, struct vm_record_result *r)
{
	struct vm_runner_args ra = o->guest;
	struct vm_cmd cmd = { 0 };
	const char *name = o->cmd[0];
	int i, rc, ret = -1;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->dir);
	if (o->nr_cmd < 1 || o->nr_cmd > VM_RUNNER_MAX_CMD)
		return fail("a command of 1 to %d words is needed", VM_RUNNER_MAX_CMD);
	/*
	 * a command that cannot run, and an output or a root that cannot be shared or
	 * written, are errors before anything is created or booted: -o /dev/null, a
	 * directory or a FIFO once made /dev/null.ctf/ and booted a guest for nothing
	 */
	for (i = 0; i < o->nr_cmd; i++)
		if (strchr(o->cmd[i], '\n'))
			return fail("argument %d of the command has a newline", i);
	if (vm_share_check(o->db, ra.rootfs) || outfile_check(o->db, "database") < 0)
		return -1;
	if (vm_resolve_cmd(ra.arch, ra.rootfs, name, o->envs, o->nr_envs, &cmd))
		goto out;
	if (cmd.kind == VM_CMD_ROOT) {
		ra.exec = cmd.exec;
		ra.cwd = cmd.cwd;
		if (cmd.rootfs)
			ra.rootfs = cmd.rootfs;
	}
	/* the root found or built for CMD is shared as well */
	if (ra.rootfs && vm_share_check(o->db, ra.rootfs))
		goto out;
	ra.cmd = o->cmd;
	ra.nr_cmd = o->nr_cmd;
	/* what CMD needs from its root (kbuild's configured tree), once the root is known */
	if (vm_prepare_cmd(ra.arch, ra.rootfs, &cmd, o->cmd, o->nr_cmd))
		goto out;
	ra.env = cmd.env;	/* preparing may have added to it */
	ra.nr_env = cmd.nr_env;
	if (vm_new_trace_dir(&r->dir, o->db, ra.arch, ra.policy,
			     strrchr(name, '/') ? strrchr(name, '/') + 1 : name))
		goto out;
	ra.out = r->dir.buf;

	rc = vm_runner_boot(&ra, o->db);
	if (rc < 0)
		goto out;
	if (rc == VM_RUNNER_GUEST_FAILED) {
		guest_failed(o, r->dir.buf, rc);
		goto out;
	}
	if (store(o, r->dir.buf, 0, &r->trace_id)) {
		fail("the trace in %s could not be stored", r->dir.buf);
		goto out;
	}
	r->status = rc;
	ret = 0;
out:
	vm_cmd_release(&cmd);
	if (ret)
		strbuf_release(&r->dir);
	return ret;
}
