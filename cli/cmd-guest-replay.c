// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-guest-replay.c - foliotrace guest replay: re-run a recorded trace's anonymous memory
 * behaviour in real guests, one guest per policy, and store each guest's trace linked to
 * the original (docs/guest-replay.md).
 *
 *	foliotrace guest replay DB --policy P [--policy P...] [--arch A] [--trace ID]
 *				[--comm NAME] [--pid N] [--mem SIZE] [--cpus N] [--timeout S]
 *				[--export FILE]
 *
 * The selected processes are exported once (replay/export.c) into DB.ctf/, then for each
 * policy guest-kernel/run.sh boots a guest with the knob set, the replay file on the share
 * and ft-replayer as the workload, records it like `foliotrace record` does, and the trace
 * is ingested with trace.parent_trace_id = the original and a replay_run row (kind guest,
 * guest_trace_id). Where the replayer placed each address range is kept in the guest
 * trace's header as replay_map, for `compare --sim-vs-real`. Policies the 6.1 knob cannot
 * express are simulated instead, and say so; the others are simulated too (stored next to
 * their guest run, same selection, frag none), so that compare --sim-vs-real only reads.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "cli/progress.h"
#include "cli/run-args.h"
#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/strbuf.h"
#include "replay/export.h"
#include "replay/filter.h"
#include "replay/load.h"
#include "replay/policy.h"
#include "replay/run.h"
#include "vm/guest-replay.h"
#include "vm/runner.h"
#include "vm/tracedir.h"

static const char usage_text[] =
	"usage: foliotrace guest replay DB --policy P [--policy P...] [--arch A] [--trace ID]\n"
	"                               [--comm NAME] [--pid N] [--mem SIZE] [--cpus N]\n"
	"                               [--timeout S] [--fragment SPEC] [--clock tcg|icount]\n"
	"                               [--kernel 6.1|6.12] [--export FILE]\n"
	"\n"
	"Replay the recorded processes' anonymous memory behaviour (VMAs, first touches, zaps,\n"
	"forks) in a guest per policy and store each guest's trace in DB, linked to the\n"
	"original. Compare with: foliotrace compare DB --sim-vs-real.\n"
	"\n"
	"    -p, --policy P     policy of a guest (repeatable); faultaround and adaptive are\n"
	"                       simulation-only: simulated instead\n"
	"    -a, --arch A       guest arch (default: the recording's)\n"
	"    -t, --trace ID     trace to replay (default: the only or newest recorded one)\n"
	"    -c, --comm NAME    only processes with this command name\n"
	"    -P, --pid N        only processes with this tgid\n"
	"    -m, --mem SIZE     guest memory (run.sh default)\n"
	"    -n, --cpus N       guest cpus (run.sh default)\n"
	"    -T, --timeout S    guest timeout, seconds (run.sh default)\n"
	"    -F, --fragment SPEC  fragment each guest's free memory before the replay:\n"
	"                       order:N[,pct:P][,seed:S] (docs/guest.md, \"Fragmenter\")\n"
	"    -C, --clock CLOCK  guest time: tcg or icount, instructions at 1 ns (x86_64:\n"
	"                       1 cpu; docs/guest.md, \"Clock\"); default: the recording's\n"
	"    -K, --kernel K     guest kernel: 6.1 (default) or 6.12 (upstream mTHP)\n"
	"    -e, --export FILE  write the replay file to FILE too; without --policy, boot\n"
	"                       nothing\n"
	"    -q, --quiet        no progress line on a terminal while a guest runs\n"
	"    -h, --help         show this help\n";

static const struct option options[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "arch", required_argument, NULL, 'a' },
	{ "trace", required_argument, NULL, 't' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'P' },
	{ "mem", required_argument, NULL, 'm' },
	{ "cpus", required_argument, NULL, 'n' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "fragment", required_argument, NULL, 'F' },
	{ "clock", required_argument, NULL, 'C' },
	{ "kernel", required_argument, NULL, 'K' },
	{ "export", required_argument, NULL, 'e' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct opts {
	struct rp_policy pol[RP_MAX_POLICIES];
	unsigned int nr_pol;
	const char *db, *arch, *comm, *mem, *cpus, *timeout, *export, *fragment, *clock, *kernel;
	int64_t trace, pid;
	int quiet;
};

static int usage_error(const char *msg)
{
	return cli_usage_error("guest replay", usage_text, msg);
}

/* 1 if the 6.1 knob cannot express the policy (its ops have no knob hook). */
static int sim_only(const struct rp_policy *p)
{
	return !rp_policy_in_guest(p);
}

/* One guest: boot, replay, ingest, link (vm/guest-replay.h); say what was stored. */
static int replay_one(const struct opts *o, const char *arch, int64_t trace_id,
		      const struct rp_policy *pol, const char *file, const char *filter)
{
	struct vm_guest_replay g = {
		.db = o->db, .trace_id = trace_id, .arch = arch, .policy = pol->spec,
		.mem = o->mem, .cpus = o->cpus, .timeout = o->timeout, .fragment = o->fragment,
		.clock = o->clock, .kernel = o->kernel,
		.file = file, .filter = filter, .warn = cli_warn,
	};
	struct vm_guest_replay_result r;
	struct vm_guest_watch w;
	struct cli_progress pr;

	cli_progress_start(&pr, "guest replay", NULL, o->quiet);
	g.watch = cli_progress_guest(&pr, &w);
	if (vm_guest_replay(&g, &r))
		return -1;
	printf("%s: guest trace %lld (replay run %lld), %.1f s; kept in %s\n", pol->spec,
	       (long long)r.guest_trace_id, (long long)r.run_id, (double)r.elapsed_ns / 1e9,
	       r.dir.buf);
	strbuf_release(&r.dir);
	return 0;
}

/*
 * Every policy simulated and stored with the same selection (frag none): instead of a
 * guest for the simulation-only ones, next to the guest run for the others, so that
 * compare --sim-vs-real finds both.
 */
static int simulate(const struct opts *o, int64_t trace_id, const struct rp_policy *pol,
		    unsigned int nr)
{
	struct rp_run_result res[RP_MAX_POLICIES];
	struct rp_run_opts ro = { 0 };
	struct rp_trace_info info;
	sqlite3 *db;
	unsigned int i;
	int ret;

	ro.pol = pol;
	ro.nr_pol = nr;
	ro.frag = RP_FRAG_NONE;
	ro.comm = o->comm;
	ro.pid = o->pid;
	ro.store = 1;
	if (ftdb_open(o->db, FTDB_WRITE, &db))
		return -1;
	ret = rp_replay_db(db, trace_id, &ro, res, &info);
	ftdb_close(db);
	if (ret)
		return -1;
	for (i = 0; i < nr; i++)
		printf("%s: %s as replay run %lld, %llu faults\n", pol[i].spec,
		       sim_only(&pol[i]) ? "simulation-only (the 6.1 guest knob cannot "
		       "express it): simulated" : "simulated", (long long)res[i].run_id,
		       (unsigned long long)res[i].total.v[RP_M_FAULTS]);
	return 0;
}

int cmd_guest_replay(int argc, char **argv)
{
	struct opts o = { .trace = 0, .pid = -1 };
	struct rp_policy guest[RP_MAX_POLICIES], sim[RP_MAX_POLICIES];
	unsigned int nr_guest = 0, nr_sim = 0, i;
	struct strbuf file = STRBUF_INIT, path = STRBUF_INIT;
	struct rp_export_stats st;
	char filter[160];
	struct rp_trace_head head;
	struct ftdb_trace t;
	struct rp_filter sel;
	int64_t trace_id;
	sqlite3 *db;
	int c, ret = 1, failed = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:a:t:c:P:m:n:T:e:F:C:K:qh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o.nr_pol == RP_MAX_POLICIES)
				return usage_error("too many policies");
			if (rp_policy_parse(optarg, &o.pol[o.nr_pol])) {
				error_print("foliotrace");
				return 2;
			}
			o.nr_pol++;
			break;
		case 'a': o.arch = optarg; break;
		case 't':
			if (cli_parse_num("guest replay", "--trace", optarg, &o.trace))
				return usage_error(NULL);
			break;
		case 'c': o.comm = optarg; break;
		case 'P':
			if (cli_parse_num("guest replay", "--pid", optarg, &o.pid))
				return usage_error(NULL);
			break;
		case 'm': o.mem = optarg; break;
		case 'n': o.cpus = optarg; break;
		case 'T': o.timeout = optarg; break;
		case 'e': o.export = optarg; break;
		case 'F':
			if (vm_runner_check_fragment(optarg)) {
				ret = usage_error(error_text());
				error_clear();
				return ret;
			}
			o.fragment = optarg;
			break;
		case 'K':
			o.kernel = optarg;
			break;
		case 'C':
			if (strcmp(optarg, "tcg") && strcmp(optarg, "icount"))
				return usage_error("--clock is tcg or icount");
			o.clock = optarg;
			break;
		case 'q': o.quiet = 1; break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	if (argc - optind != 1)
		return usage_error(argc - optind ? "too many arguments" : "expected DB");
	if (!o.nr_pol && !o.export)
		return usage_error("expected at least one --policy");
	o.db = argv[optind];
	/*
	 * DB is an input of the export only: the guests' traces are then stored into it,
	 * through ft_ingest()'s check of its database, once the inputs are forgotten
	 */
	if (o.export) {
		outfile_input(o.db);
		if (outfile_check(o.export, "replay file") < 0)
			return 1;	/* before any work */
	}
	for (i = 0; i < o.nr_pol; i++) {
		char knob[64];

		if (sim_only(&o.pol[i])) {
			sim[nr_sim++] = o.pol[i];
			continue;
		}
		/* one the kernel cannot run (6.12: no 8K folio) is refused before any work */
		if (rp_policy_kernel_knob(&o.pol[i], o.kernel, knob, sizeof(knob))) {
			ret = usage_error(error_text());
			error_clear();
			return ret;
		}
		guest[nr_guest++] = o.pol[i];
	}
	/* a database whose DB.ctf/ the guest cannot share: refused before the export */
	if (nr_guest && vm_share_check(o.db, NULL))
		return 1;
	rp_filter_set(&sel, o.comm, o.pid);
	rp_filter_format(&sel, filter, sizeof(filter));

	if (ftdb_open(o.db, FTDB_READONLY, &db))
		return 1;
	if (ftdb_pick_trace(db, o.trace, &trace_id)) {
		ftdb_close(db);
		return 1;
	}
	if (rp_load_head(db, trace_id, &head) || ftdb_trace_get(db, trace_id, &t)) {
		ftdb_close(db);
		return 1;
	}
	/* without --clock, the recording's clock: a replay's times compare with its own */
	if (!o.clock && !strcmp(t.clock, "icount"))
		o.clock = "icount";
	ftdb_trace_release(&t);
	if (!rp_policy_records_all(head.policy))
		fprintf(stderr, "foliotrace: warning: trace %lld was recorded under %s, not "
			"order0: it misses first touches, so will the replay\n",
			(long long)trace_id, *head.policy ? head.policy : "an unknown policy");
	if (nr_guest || o.export) {
		if (rp_export_db(db, trace_id, o.comm, o.pid, &file, &st)) {
			ftdb_close(db);
			goto out;
		}
		fprintf(stderr, "foliotrace: trace %lld: %llu processes (%llu replayed on their "
			"own), %llu touches, %llu maps, %llu zaps, %llu forks, %llu exec stacks "
			"in place, %llu address ranges, %llu bytes\n", (long long)trace_id,
			(unsigned long long)st.procs, (unsigned long long)st.families,
			(unsigned long long)st.touches, (unsigned long long)st.maps,
			(unsigned long long)st.zaps, (unsigned long long)st.forks,
			(unsigned long long)st.exec_stacks, (unsigned long long)st.clusters,
			(unsigned long long)st.bytes);
		if (st.shape_mismatch || st.mremap_partial)
			warning("%llu touches land in a replayed mapping larger than the recorded "
				"VMA, %llu mremaps are replayed as munmap (docs/guest-replay.md)",
				(unsigned long long)st.shape_mismatch,
				(unsigned long long)st.mremap_partial);
	}
	ftdb_close(db);
	if (!o.arch)
		o.arch = *head.arch ? head.arch : "x86_64";

	if (o.export) {
		if (write_file_atomic(o.export, file.buf, file.len, "replay file"))
			goto out;
		outfile_inputs_clear();
		if (!o.nr_pol) {
			ret = 0;
			goto out;
		}
	}
	if (nr_guest && vm_replay_file(o.db, trace_id, file.buf, file.len, &path))
		goto out;
	for (i = 0; i < nr_guest; i++) {
		if (replay_one(&o, o.arch, trace_id, &guest[i], path.buf, filter)) {
			error_print("foliotrace");
			failed++;
		} else {
			sim[nr_sim++] = guest[i];
		}
	}
	if (nr_sim && simulate(&o, trace_id, sim, nr_sim))
		goto out;
	if (failed) {
		fail("%d of %u guest replays failed", failed, nr_guest);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&file);
	strbuf_release(&path);
	return ret;
}
