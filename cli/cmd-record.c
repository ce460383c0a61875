// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-record.c - foliotrace record: boot a guest, record a workload, ingest the trace (the
 * pipeline is vm/record.h's; this parses, calls it and prints the trace it stored).
 *
 *	foliotrace record [--arch A] [--policy P] [--mem SIZE] [--cpus N] [--timeout S]
 *			  [--libvirt URI] [--rootfs DIR] [--env NAME]... [--sites [--site-skip REGEX]]
 *			  -o DB -- CMD [ARG...]
 */
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "cli/progress.h"
#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "vm/record.h"
#include "vm/runner.h"

static const char usage_text[] =
	"usage: foliotrace record [--arch x86_64|arm64] [--policy P] [--mem SIZE] [--cpus N]\n"
	"                         [--timeout SECONDS] [--libvirt URI] [--rootfs DIR]\n"
	"                         [--env NAME[=VALUE]]... [--sites [--site-skip REGEX]]\n"
	"                         [--fragment SPEC] [--clock tcg|icount] [--kernel 6.1|6.12]\n"
	"                         [--quiet] -o DB -- CMD [ARG...]\n"
	"\n"
	"Boot a guest running the patched kernel under policy P (default order0), record CMD\n"
	"with LTTng, and store the trace in DB. CMD is a bundled workload's name, a static\n"
	"executable, or any program of the root filesystem (the host's / unless --rootfs),\n"
	"found through PATH and run chrooted in a read-only share of it with a writable layer\n"
	"in guest memory, in the current directory, with PATH, HOME, LANG, LC_*, TERM and the\n"
	"--env variables. The CTF trace is kept in DB.ctf/. QEMU is started directly, or with\n"
	"--libvirt as a transient domain of the libvirt daemon at URI (e.g. qemu:///system).\n"
	"--sites runs CMD under the call-site tracer and stores each mmap, munmap, mremap,\n"
	"brk and madvise with its call stack (foliotrace query DB sites); a site is the first\n"
	"frame whose procedure and module names do not match the --site-skip REGEX (POSIX\n"
	"extended; default: glibc malloc, jemalloc, operator new, libc's wrappers).\n"
	"--fragment order:N[,pct:P][,seed:S] fragments the guest's free memory before CMD\n"
	"starts: no free block above order N (docs/guest.md, \"Fragmenter\").\n"
	"--clock icount counts guest time in instructions (1 ns each, idle skipped): times\n"
	"that repeat; x86_64 then runs 1 cpu (docs/guest.md, \"Clock\"). Default: tcg.\n"
	"--kernel 6.12 records in the Linux 6.12 guest under upstream's own mTHP (the policy\n"
	"sets hugepages-*kB/enabled; docs/guest.md). Default: 6.1. There P may carry\n"
	"+mechanisms: +limit:SIZE runs CMD in a memory cgroup with memory.max SIZE, +shrinker\n"
	"and max_ptes_none=, pages=, scan_ms= set the THP shrinker's and khugepaged's knobs\n"
	"(e.g. thp+shrinker:max_ptes_none=409+limit:64M; docs/guest.md).\n"
	"On a terminal a line follows the guest (elapsed time, booting, running, tracing\n"
	"stopped, trace bytes written), rewritten every second; --quiet leaves it out.\n";

/* guest memory unless --mem: what a compile needs (docs/guest.md, "Memory") */
#define FT_RECORD_MEM "2G"

static const struct option options[] = {
	{ "arch", required_argument, NULL, 'a' },
	{ "policy", required_argument, NULL, 'p' },
	{ "mem", required_argument, NULL, 'm' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "timeout", required_argument, NULL, 't' },
	{ "libvirt", required_argument, NULL, 'L' },
	{ "rootfs", required_argument, NULL, 'R' },
	{ "env", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "sites", no_argument, NULL, 's' },
	{ "site-skip", required_argument, NULL, 'S' },
	{ "fragment", required_argument, NULL, 'F' },
	{ "clock", required_argument, NULL, 'C' },
	{ "kernel", required_argument, NULL, 'K' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* One paragraph about the trace just stored (and its call sites if sites). */
static int print_summary(const char *db, int64_t trace_id, int sites)
{
	int64_t calls, stacks, failed;
	struct ftdb_trace t;
	sqlite3 *h;
	int ret = -1;

	if (ftdb_open(db, FTDB_READONLY, &h))
		return -1;
	if (ftdb_trace_get(h, trace_id, &t))
		goto out;
	printf("trace %lld: %s %s, policy %s, clocksource %s\n"
	       "  workload: %s (exit %d)\n"
	       "  %lld anonymous faults in %lld processes, %lld events, %lld discarded\n"
	       "  stored in %s; try: foliotrace query %s procs\n",
	       (long long)t.trace_id, t.arch, t.kernel, t.policy, t.clocksource, t.workload,
	       t.workload_status < 0 ? 0 : t.workload_status, (long long)t.anon_faults,
	       (long long)t.processes, (long long)t.events, (long long)t.discarded_events, db,
	       db);
	ftdb_trace_release(&t);
	if (sites) {
		if (ftdb_trace_sites(h, trace_id, &calls, &stacks, &failed))
			goto out;
		printf("  %lld memory calls traced, %lld distinct stacks, %lld did not unwind to "
		       "the end; try: foliotrace query %s sites\n", (long long)calls,
		       (long long)stacks, (long long)failed, db);
	}
	ret = 0;
out:
	ftdb_close(h);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct vm_record_opts o = {
		.guest = { .arch = "x86_64", .policy = "order0", .mem = FT_RECORD_MEM },
		.warn = cli_warn,
	};
	const char **envs = xcalloc((size_t)argc, sizeof(*envs));	/* --env NAMEs */
	struct vm_runner_args *ra = &o.guest;
	struct vm_record_result r;
	struct vm_guest_watch w;
	struct cli_progress pr;
	int c, ret = 1, nr_envs = 0, quiet = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:qh", options, NULL)) != -1) {
		switch (c) {
		case 'a': ra->arch = optarg; break;
		case 'p': ra->policy = optarg; break;
		case 'm': ra->mem = optarg; break;
		case 'c': ra->cpus = optarg; break;
		case 't': ra->timeout = optarg; break;
		case 'o': o.db = optarg; break;
		case 'L': ra->libvirt = optarg; break;
		case 'R': ra->rootfs = optarg; break;
		case 'e': envs[nr_envs++] = optarg; break;
		case 's': ra->sites = 1; break;
		case 'S': o.site_skip = optarg; break;
		case 'F': ra->fragment = optarg; break;
		case 'K': ra->kernel = optarg; break;
		case 'q': quiet = 1; break;
		case 'C':
			if (strcmp(optarg, "tcg") && strcmp(optarg, "icount")) {
				free(envs);
				return cli_usage_error("record", usage_text,
						       "--clock is tcg or icount");
			}
			ra->clock = optarg;
			break;
		case 'h':
			free(envs);
			fputs(usage_text, stdout);
			return 0;
		default:
			free(envs);
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (!o.db || optind >= argc || argc - optind > VM_RUNNER_MAX_CMD) {
		free(envs);
		fputs(usage_text, stderr);
		return 2;
	}
	/* refuse what can be refused before anything is created */
	if (o.site_skip) {
		regex_t re;

		if (!ra->sites) {
			free(envs);
			return cli_usage_error("record", usage_text, "--site-skip needs --sites");
		}
		if (regcomp(&re, o.site_skip, REG_EXTENDED | REG_NOSUB)) {
			free(envs);
			return cli_usage_error("record", usage_text,
					       "--site-skip is not a POSIX extended regex");
		}
		regfree(&re);
	}
	if (vm_runner_check(ra->arch, ra->policy, ra->kernel) ||
	    (ra->fragment && vm_runner_check_fragment(ra->fragment))) {
		free(envs);
		ret = cli_usage_error("record", usage_text, error_text());
		error_clear();
		return ret;
	}
	o.envs = envs;
	o.nr_envs = nr_envs;
	o.cmd = argv + optind;
	o.nr_cmd = argc - optind;
	cli_progress_start(&pr, "record", NULL, quiet);
	ra->watch = cli_progress_guest(&pr, &w);
	if (vm_record(&o, &r))
		goto out;
	if (!print_summary(o.db, r.trace_id, ra->sites)) {
		fprintf(stderr, "foliotrace: trace kept in %s; workload output in "
			"%s/workload.out\n", r.dir.buf, r.dir.buf);
		ret = vm_runner_status(r.status, r.dir.buf, 0);
	}
	strbuf_release(&r.dir);
out:
	free(envs);
	return ret;
}
