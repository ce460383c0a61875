// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-record.c - foliotrace record: boot a guest, record a workload, ingest the trace.
 *
 *	foliotrace record [--arch A] [--policy P] [--mem SIZE] [--cpus N] [--timeout S]
 *			  [--libvirt URI] -o DB -- CMD [ARG...]
 *
 * The CTF trace is kept beside the database, in DB.ctf/<time>-<arch>-<policy>-<cmd>/, so it
 * can be ingested again or read with babeltrace2. A guest that fails (panic, timeout,
 * killed) leaves its partial trace there, marked partial in its header; it is ingested as
 * such when babeltrace2 can read it, and the command fails either way.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/spawn.h"
#include "cli/tracedir.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"

static const char usage_text[] =
	"usage: foliotrace record [--arch x86_64|arm64] [--policy P] [--mem SIZE] [--cpus N]\n"
	"                         [--timeout SECONDS] [--libvirt URI] -o DB -- CMD [ARG...]\n"
	"\n"
	"Boot a guest running the patched kernel under policy P (default order0), record CMD\n"
	"(a bundled workload's name or a static executable on the host) with LTTng, and store\n"
	"the trace in DB. The CTF trace is kept in DB.ctf/. QEMU is started directly, or with\n"
	"--libvirt as a transient domain of the libvirt daemon at URI (e.g. qemu:///system).\n";

static const struct option options[] = {
	{ "arch", required_argument, NULL, 'a' },
	{ "policy", required_argument, NULL, 'p' },
	{ "mem", required_argument, NULL, 'm' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "timeout", required_argument, NULL, 't' },
	{ "libvirt", required_argument, NULL, 'L' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The one-line value of file name (e.g. "header/guest_error") of trace directory dir. */
static char *trace_value(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT, val = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s", dir, name);
	if (strbuf_read_file(&val, path.buf)) {
		error_clear();
		strbuf_release(&path);
		return NULL;
	}
	strbuf_release(&path);
	while (val.len && (val.buf[val.len - 1] == '\n'))
		val.buf[--val.len] = '\0';
	return strbuf_detach(&val);
}

/* One paragraph about the trace just stored: the most recent non-replay trace of db. */
static int print_summary(const char *db)
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
		error("cannot read %s: %s", db, sqlite3_errmsg(h));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		error("%s holds no recorded trace", db);
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
	ret = 0;
out:
	sqlite3_finalize(st);
	ftdb_close(h);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	const char *arch = "x86_64", *policy = "order0", *mem = NULL, *cpus = NULL;
	const char *timeout = NULL, *db = NULL, *libvirt = NULL;
	struct strbuf dir = STRBUF_INIT;
	char *run[40];		/* 19 options and values, at most 16 of CMD, NULL */
	int c, n = 0, i, rc, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", options, NULL)) != -1) {
		switch (c) {
		case 'a': arch = optarg; break;
		case 'p': policy = optarg; break;
		case 'm': mem = optarg; break;
		case 'c': cpus = optarg; break;
		case 't': timeout = optarg; break;
		case 'o': db = optarg; break;
		case 'L': libvirt = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (!db || optind >= argc || argc - optind > 16) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (ft_new_trace_dir(&dir, db, arch, policy,
			     strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 :
							  argv[optind]))
		return 1;

	run[n++] = (char *)ft_path("guest-kernel/run.sh");
	run[n++] = "--arch";
	run[n++] = (char *)arch;
	run[n++] = "--policy";
	run[n++] = (char *)policy;
	if (mem) {
		run[n++] = "--mem";
		run[n++] = (char *)mem;
	}
	if (cpus) {
		run[n++] = "--cpus";
		run[n++] = (char *)cpus;
	}
	if (timeout) {
		run[n++] = "--timeout";
		run[n++] = (char *)timeout;
	}
	if (libvirt) {
		run[n++] = "--libvirt";
		run[n++] = (char *)libvirt;
	}
	run[n++] = "--out";
	run[n++] = dir.buf;
	run[n++] = "--";
	for (i = optind; i < argc; i++)
		run[n++] = argv[i];
	run[n] = NULL;

	rc = ft_spawn(run);
	if (rc < 0)
		goto out;
	if (rc == 2) {
		error("bad arguments for the guest runner");
		goto out;
	}
	if (rc != 0 && rc != 3 && rc != 4) {
		/* the runner's reason, when it got as far as the trace directory */
		char *why = trace_value(dir.buf, "run_error");

		if (why && *why)
			error("the guest could not be started: %s", why);
		else
			error("the guest could not be started (runner exit %d); see %s", rc,
			      dir.buf);
		free(why);
		goto out;
	}

	/* Store what came out, complete or partial. */
	if (rc == 4) {
		char *why = trace_value(dir.buf, "header/guest_error");
		struct strbuf trace = STRBUF_INIT;
		struct stat st;
		int stored = 0;

		strbuf_addf(&trace, "%s/trace", dir.buf);
		if (!stat(trace.buf, &st)) {
			char *ingest[] = { "ingest", "-q", "-o", (char *)db, dir.buf, NULL };

			stored = !cmd_ingest(5, ingest);
			error_clear();
		}
		strbuf_release(&trace);
		error("%s; %s %s", why ? why : "the guest failed",
		      stored ? "the partial trace is stored, marked partial, and kept in" :
			       "nothing was stored; what the guest wrote is in",
		      dir.buf);
		free(why);
		goto out;
	}
	{
		char *ingest[] = { "ingest", "-q", "-o", (char *)db, dir.buf, NULL };

		if (cmd_ingest(5, ingest)) {
			error("the trace in %s could not be stored", dir.buf);
			goto out;
		}
	}
	if (print_summary(db))
		goto out;
	{
		char *out_path = NULL, *st = trace_value(dir.buf, "header/workload_status");
		struct strbuf wo = STRBUF_INIT;

		strbuf_addf(&wo, "%s/workload.out", dir.buf);
		out_path = wo.buf;
		fprintf(stderr, "foliotrace: trace kept in %s; workload output in %s\n", dir.buf,
			out_path);
		if (rc == 3) {
			error("the workload exited with status %s", st ? st : "?");
			free(st);
			strbuf_release(&wo);
			goto out;
		}
		free(st);
		strbuf_release(&wo);
	}
	ret = 0;
out:
	strbuf_release(&dir);
	return ret;
}
