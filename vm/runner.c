// SPDX-License-Identifier: GPL-2.0
/* runner.c - guest-kernel/run.sh for the CLI; see runner.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/runner.h"
#include "vm/tracedir.h"
#include "vm/spawn.h"
#include "guest-kernel/fragspec.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/mech.h"
#include "replay/replay.h"

int vm_runner_check(const char *arch, const char *policy, const char *kernel)
{
	struct rp_policy p;
	char knob[64];

	if (strcmp(arch, "x86_64") && strcmp(arch, "arm64"))
		return fail("unknown arch '%s' (x86_64 or arm64)", arch);
	if (rp_policy_parse(policy, &p))
		return -1;
	/* a spec with +mechanisms: rp_policy_kernel_knob() names the 6.12 guest */
	if ((!kernel || !strcmp(kernel, "6.1")) && !rp_mech_any(&p.mech) &&
	    !rp_policy_in_guest(&p))
		return fail("policy %s is simulation-only: the 6.1 guest knob cannot express it "
			     "(foliotrace replay simulates it)", policy);
	return rp_policy_kernel_knob(&p, kernel, knob, sizeof(knob));
}

int vm_runner_check_fragment(const char *spec)
{
	struct ft_fragspec f;
	const char *why;

	if (ft_fragspec_parse(spec, &f, &why))
		return fail("bad --fragment '%s': %s", spec, why);
	return 0;
}

/* run.sh's lines, and the guest's progress read from the share, to the caller's watch */
static void watched_line(void *arg, const char *line)
{
	const struct vm_guest_watch *w = ((const struct vm_runner_args *)arg)->watch;

	w->line(w->arg, line);
}

static void watched_tick(void *arg, double elapsed_s, int exited)
{
	const struct vm_runner_args *a = arg;
	struct vm_guest_progress p = { .elapsed_s = elapsed_s, .exited = exited };

	vm_guest_progress_read(a->out, &p);
	if (exited)
		p.state = "exited";
	a->watch->progress(a->watch->arg, &p);
}

/* argv, watched if a has a watch (and a share to read the guest's progress from) */
static int spawn(const struct vm_runner_args *a, char *const argv[])
{
	struct vm_watch w = { .line = watched_line, .tick = watched_tick, .arg = (void *)a,
			      .interval_s = 1.0 };	/* s: the line's "every few seconds" */

	return vm_spawn_watch(argv, a->watch && a->out ? &w : NULL);
}

int vm_runner_run(const struct vm_runner_args *a)
{
	/* options and values (at most 26), the --env pairs, --, the command, NULL */
	char **argv;
	int n = 0, i, rc;

	if (a->nr_cmd > VM_RUNNER_MAX_CMD)
		return fail("at most %d words of command line", VM_RUNNER_MAX_CMD);
	argv = xcalloc((size_t)(2 + 26 + 2 * a->nr_env + 1 + a->nr_cmd + 1), sizeof(*argv));
	argv[n++] = (char *)vm_path("guest-kernel/run.sh");
#define OPT(name, val) do { if (val) { argv[n++] = name; argv[n++] = (char *)(val); } } while (0)
	OPT("--arch", a->arch);
	OPT("--policy", a->policy);
	OPT("--mem", a->mem);
	OPT("--cpus", a->cpus);
	OPT("--timeout", a->timeout);
	OPT("--libvirt", a->libvirt);
	OPT("--file", a->file);
	OPT("--out", a->out);
	OPT("--exec", a->exec);
	OPT("--cwd", a->cwd);
	OPT("--rootfs", a->rootfs);
	OPT("--fragment", a->fragment);
	OPT("--clock", a->clock);
	OPT("--kernel", a->kernel);
	for (i = 0; i < a->nr_env; i++)
		OPT("--env", a->env[i]);
#undef OPT
	if (a->sites)
		argv[n++] = "--sites";
	argv[n++] = "--";
	for (i = 0; i < a->nr_cmd; i++)
		argv[n++] = a->cmd[i];
	argv[n] = NULL;
	rc = spawn(a, argv);
	free(argv);
	return rc;
}

int vm_runner_boot(const struct vm_runner_args *a, const char *db)
{
	int rc = vm_runner_run(a);

	if (rc < 0 || rc == VM_RUNNER_OK || rc == VM_RUNNER_WORKLOAD_FAILED ||
	    rc == VM_RUNNER_GUEST_FAILED)
		return rc;
	vm_runner_status(rc, a->out, 0);
	vm_discard_trace_dir(a->out, db);	/* nothing ran: no directory per attempt */
	return -1;
}

int vm_runner_run_argv(int argc, char **argv)
{
	char *args[argc + 1];
	int i;

	args[0] = (char *)vm_path("guest-kernel/run.sh");
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	args[argc] = NULL;
	return vm_spawn(args);
}

char *vm_runner_value(const char *out, const char *name)
{
	struct strbuf path = STRBUF_INIT, val = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s", out, name);
	if (strbuf_read_file(&val, path.buf)) {
		error_clear();
		strbuf_release(&path);
		strbuf_release(&val);
		return NULL;
	}
	strbuf_release(&path);
	while (val.len && (val.buf[val.len - 1] == '\n'))
		val.buf[--val.len] = '\0';
	return strbuf_detach(&val);
}

/*
 * When the OOM killer ran during the workload, say so: in the workload's cgroup
 * (header/memcg.events' oom_kill: a +limit the shrinker could not keep), else in the
 * guest (header/oom_kills), naming --mem.
 */
static void oom_error(const char *out)
{
	struct strbuf f = STRBUF_INIT;
	char *ev = NULL, *k, *n, *mem;

	/* vm_runner_value() of a missing file would clear the error this one adds to */
	if (out) {
		strbuf_addf(&f, "%s/header/memcg.events", out);
		if (!access(f.buf, R_OK))
			ev = vm_runner_value(out, "header/memcg.events");
		strbuf_release(&f);
	}
	k = ev ? strstr(ev, "oom_kill ") : NULL;

	if (k && atoll(k + 9) > 0) {
		mem = vm_runner_value(out, "header/memcg.max");
		fail("the workload's cgroup reached its memory.max (%lld MiB, the policy's "
		     "+limit): the OOM killer ended %lld processes", mem ? atoll(mem) >> 20 : 0LL,
		     atoll(k + 9));
		free(mem);
		free(ev);
		return;
	}
	free(ev);
	n = out ? vm_runner_value(out, "header/oom_kills") : NULL;
	mem = n && strcmp(n, "0") ? vm_runner_value(out, "header/mem_bytes") : NULL;
	if (n && strcmp(n, "0"))
		fail("the guest ran out of memory (the OOM killer ended %s processes; guest "
		      "memory %lld MiB): give it more with --mem", n,
		      mem ? atoll(mem) >> 20 : 0LL);
	free(n);
	free(mem);
}

int vm_runner_status(int rc, const char *out, int user_args)
{
	char *why = NULL;

	switch (rc) {
	case VM_RUNNER_OK:
		return 0;
	case VM_RUNNER_USAGE:
		fail("the guest runner refused its arguments (exit 2)");
		return user_args ? 2 : 1;
	case VM_RUNNER_NOT_STARTED:
		why = out ? vm_runner_value(out, "run_error") : NULL;
		if (why && *why)
			fail("the guest could not be started: %s", why);
		else
			fail("the guest could not be started");
		break;
	case VM_RUNNER_WORKLOAD_FAILED:
		why = out ? vm_runner_value(out, "header/workload_status") : NULL;
		fail("the workload exited with status %s", why && *why ? why : "?");
		oom_error(out);
		break;
	case VM_RUNNER_GUEST_FAILED:
		why = out ? vm_runner_value(out, "header/guest_error") : NULL;
		fail("%s", why && *why ? why : "the guest failed");
		break;
	default:
		if (rc > 128)
			fail("the guest runner was killed by signal %d", rc - 128);
		else if (rc >= 0)
			fail("the guest runner failed (exit %d)", rc);
	}
	free(why);
	return 1;
}
