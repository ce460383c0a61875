// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-record.c - foliotrace record: boot a guest, record a workload, ingest the trace.
 *
 *	foliotrace record [--arch A] [--policy P] [--mem SIZE] [--cpus N] [--timeout S]
 *			  [--libvirt URI] [--rootfs DIR] [--env NAME]... [--sites [--site-skip REGEX]]
 *			  -o DB -- CMD [ARG...]
 *
 * The CTF trace is kept beside the database, in DB.ctf/<time>-<arch>-<policy>-<cmd>/, so it
 * can be ingested again or read with babeltrace2. A guest that fails (panic, timeout,
 * killed) leaves its partial trace there, marked partial in its header; it is ingested as
 * such when babeltrace2 can read it, and the command fails either way.
 */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/resolve.h"
#include "cli/runner.h"
#include "cli/tracedir.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/ingest.h"

static const char usage_text[] =
	"usage: foliotrace record [--arch x86_64|arm64] [--policy P] [--mem SIZE] [--cpus N]\n"
	"                         [--timeout SECONDS] [--libvirt URI] [--rootfs DIR]\n"
	"                         [--env NAME[=VALUE]]... [--sites [--site-skip REGEX]]\n"
	"                         [--fragment SPEC] [--clock tcg|icount] -o DB -- CMD [ARG...]\n"
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
	"that repeat; x86_64 then runs 1 cpu (docs/guest.md, \"Clock\"). Default: tcg.\n";

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
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* With --sites: one more line, about the calls of that trace. */
static int print_sites(sqlite3 *h, const char *db)
{
	static const char sql[] =
		"SELECT count(*), count(DISTINCT stack_id), coalesce(sum(s.status <> 'ok'), 0)"
		" FROM site_call c LEFT JOIN site_stack s USING (stack_id) WHERE c.call <> 'none'"
		" AND c.trace_id = (SELECT max(trace_id) FROM trace WHERE parent_trace_id IS NULL)";
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		ret = fail("cannot read %s: %s", db, sqlite3_errmsg(h));
	else
		printf("  %lld memory calls traced, %lld distinct stacks, %lld did not unwind to "
		       "the end; try: foliotrace query %s sites\n", sqlite3_column_int64(st, 0),
		       sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), db);
	sqlite3_finalize(st);
	return ret;
}

/* One paragraph about the trace just stored (and its call sites if sites). */
static int print_summary(const char *db, int sites)
{
	static const char sql[] =
		"SELECT t.trace_id, t.arch, t.kernel, t.policy, t.workload, t.workload_status,"
		" (SELECT count(*) FROM process p WHERE p.trace_id = t.trace_id),"
		" (SELECT coalesce(sum(anon_faults), 0) FROM process p WHERE p.trace_id = t.trace_id),"
		" t.events, t.discarded_events, t.clocksource"
		" FROM trace t WHERE t.parent_trace_id IS NULL ORDER BY t.trace_id DESC LIMIT 1";
	sqlite3_stmt *st = NULL;
	sqlite3 *h;
	int ret = -1;

	if (ftdb_open(db, FTDB_READONLY, &h))
		return -1;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		fail("cannot read %s: %s", db, sqlite3_errmsg(h));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		fail("%s holds no recorded trace", db);
		goto out;
	}
	printf("trace %lld: %s %s, policy %s, clocksource %s\n"
	       "  workload: %s (exit %d)\n"
	       "  %lld anonymous faults in %lld processes, %lld events, %lld discarded\n"
	       "  stored in %s; try: foliotrace query %s procs\n",
	       sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1),
	       sqlite3_column_text(st, 2), sqlite3_column_text(st, 3),
	       sqlite3_column_text(st, 10), sqlite3_column_text(st, 4),
	       sqlite3_column_int(st, 5), sqlite3_column_int64(st, 7),
	       sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 8),
	       sqlite3_column_int64(st, 9), db, db);
	ret = sites ? print_sites(h, db) : 0;
out:
	sqlite3_finalize(st);
	ftdb_close(h);
	return ret;
}

/* Store what the guest wrote; Return: 0 or -1 (error set). */
static int store(const char *db, const char *dir, int partial, const char *site_skip)
{
	struct ft_ingest_opts io = { .db = db, .dir = dir, .allow_partial = partial,
				     .site_skip = site_skip };
	struct ft_ingest_result res;

	return ft_ingest(&io, &res);
}

int cmd_record(int argc, char **argv)
{
	struct ft_runner_args ra = { .arch = "x86_64", .policy = "order0", .mem = FT_RECORD_MEM };
	const char *db = NULL, *site_skip = NULL;
	const char **envs = xcalloc((size_t)argc, sizeof(*envs));	/* --env NAMEs */
	struct strbuf dir = STRBUF_INIT;
	struct ft_cmd cmd = { 0 };
	int c, i, rc, ret = 1, nr_envs = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", options, NULL)) != -1) {
		switch (c) {
		case 'a': ra.arch = optarg; break;
		case 'p': ra.policy = optarg; break;
		case 'm': ra.mem = optarg; break;
		case 'c': ra.cpus = optarg; break;
		case 't': ra.timeout = optarg; break;
		case 'o': db = optarg; break;
		case 'L': ra.libvirt = optarg; break;
		case 'R': ra.rootfs = optarg; break;
		case 'e': envs[nr_envs++] = optarg; break;
		case 's': ra.sites = 1; break;
		case 'S': site_skip = optarg; break;
		case 'F': ra.fragment = optarg; break;
		case 'C':
			if (strcmp(optarg, "tcg") && strcmp(optarg, "icount")) {
				free(envs);
				return cli_usage_error("record", usage_text,
						       "--clock is tcg or icount");
			}
			ra.clock = optarg;
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
	if (!db || optind >= argc || argc - optind > FT_RUNNER_MAX_CMD) {
		free(envs);
		fputs(usage_text, stderr);
		return 2;
	}
	/* refuse what can be refused before anything is created */
	if (site_skip) {
		regex_t re;

		if (!ra.sites) {
			free(envs);
			return cli_usage_error("record", usage_text, "--site-skip needs --sites");
		}
		if (regcomp(&re, site_skip, REG_EXTENDED | REG_NOSUB)) {
			free(envs);
			return cli_usage_error("record", usage_text,
					       "--site-skip is not a POSIX extended regex");
		}
		regfree(&re);
	}
	if (ft_runner_check(ra.arch, ra.policy) ||
	    (ra.fragment && ft_runner_check_fragment(ra.fragment))) {
		free(envs);
		ret = cli_usage_error("record", usage_text, error_text());
		error_clear();
		return ret;
	}
	/* a command that cannot run is an error before anything is created or booted */
	for (i = optind; i < argc; i++)
		if (strchr(argv[i], '\n')) {
			fail("argument %d of the command has a newline", i - optind);
			goto out;
		}
	if (ft_resolve_cmd(ra.arch, ra.rootfs, argv[optind], envs, nr_envs, &cmd))
		goto out;
	if (cmd.kind == FT_CMD_ROOT) {
		ra.exec = cmd.exec;
		ra.cwd = cmd.cwd;
		ra.env = cmd.env;
		ra.nr_env = cmd.nr_env;
		if (cmd.rootfs)
			ra.rootfs = cmd.rootfs;
	}
	ra.cmd = argv + optind;
	ra.nr_cmd = argc - optind;
	/* what CMD needs from its root (kbuild's configured tree), once the root is known */
	if (ft_prepare_cmd(ra.arch, ra.rootfs, &cmd, argv + optind, argc - optind))
		goto out;
	ra.env = cmd.env;	/* preparing may have added to it */
	ra.nr_env = cmd.nr_env;
	if (ft_new_trace_dir(&dir, db, ra.arch, ra.policy,
			     strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 :
							  argv[optind]))
		goto out;
	ra.out = dir.buf;

	rc = ft_runner_run(&ra);
	if (rc < 0)
		goto out;
	if (rc != FT_RUNNER_OK && rc != FT_RUNNER_WORKLOAD_FAILED &&
	    rc != FT_RUNNER_GUEST_FAILED) {
		ret = ft_runner_status(rc, dir.buf, 0);
		/* nothing ran: no directory per failed attempt */
		ft_discard_trace_dir(dir.buf, db);
		goto out;
	}

	/* Store what came out, complete or partial. */
	if (rc == FT_RUNNER_GUEST_FAILED) {
		struct strbuf trace = STRBUF_INIT;
		struct stat st;
		int stored = 0;

		strbuf_addf(&trace, "%s/trace", dir.buf);
		if (!stat(trace.buf, &st)) {
			stored = !store(db, dir.buf, 1, site_skip);
			error_clear();
		}
		strbuf_release(&trace);
		ft_runner_status(rc, dir.buf, 0);
		fail("%s %s", stored ? "the partial trace is stored, marked partial, and kept in" :
				       "nothing was stored; what the guest wrote is in", dir.buf);
		goto out;
	}
	if (store(db, dir.buf, 0, site_skip)) {
		fail("the trace in %s could not be stored", dir.buf);
		goto out;
	}
	if (print_summary(db, ra.sites))
		goto out;
	fprintf(stderr, "foliotrace: trace kept in %s; workload output in %s/workload.out\n",
		dir.buf, dir.buf);
	ret = ft_runner_status(rc, dir.buf, 0);
out:
	strbuf_release(&dir);
	ft_cmd_release(&cmd);
	free(envs);
	return ret;
}
