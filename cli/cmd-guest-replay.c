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
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/runs.h"
#include "cli/runner.h"
#include "cli/tracedir.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/export.h"
#include "replay/filter.h"
#include "replay/load.h"
#include "replay/policy.h"
#include "replay/run.h"
#include "tracer/ingest.h"

static const char usage_text[] =
	"usage: foliotrace guest replay DB --policy P [--policy P...] [--arch A] [--trace ID]\n"
	"                               [--comm NAME] [--pid N] [--mem SIZE] [--cpus N]\n"
	"                               [--timeout S] [--fragment SPEC] [--clock tcg|icount]\n"
	"                               [--export FILE]\n"
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
	"    -C, --clock CLOCK  guest time: tcg (default) or icount, instructions at 1 ns\n"
	"                       (x86_64: 1 cpu; docs/guest.md, \"Clock\")\n"
	"    -e, --export FILE  write the replay file to FILE and boot nothing\n"
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
	{ "export", required_argument, NULL, 'e' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct opts {
	struct rp_policy pol[RP_MAX_POLICIES];
	unsigned int nr_pol;
	const char *db, *arch, *comm, *mem, *cpus, *timeout, *export, *fragment, *clock;
	int64_t trace, pid;
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

/* DB.ctf/<time>-<arch>-<policy>-replay-t<ID>[.N], created empty. */
static int run_dir(struct strbuf *dir, const char *db, const char *arch, const char *policy,
		   int64_t trace_id)
{
	char tag[32];

	snprintf(tag, sizeof(tag), "replay-t%lld", (long long)trace_id);
	return ft_new_trace_dir(dir, db, arch, policy, tag);
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return fail("cannot create %s: %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len || fclose(f))
		return fail("cannot write %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The replayer's FTREPLAY lines into DIR/header/replay_map (stored in trace_meta by the
 * ingest); its RESULT line must say status=0.
 */
static int keep_map(const char *dir)
{
	struct strbuf out = STRBUF_INIT, map = STRBUF_INIT, path = STRBUF_INIT;
	char *line, *next;
	int ok = 0, ret;

	strbuf_addf(&path, "%s/workload.out", dir);
	if (strbuf_read_file(&out, path.buf)) {
		strbuf_release(&path);
		return -1;
	}
	for (line = out.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "FTREPLAY", 8)) {
			strbuf_addstr(&map, line);
			strbuf_addch(&map, '\n');
		} else if (!strncmp(line, "RESULT ft-replayer ", 19) && strstr(line, " status=0")) {
			ok = 1;
		}
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/header/replay_map", dir);
	ret = write_file(path.buf, map.buf, map.len);
	if (!ret && !ok)
		ret = fail("the replayer did not finish cleanly; see %s/workload.out", dir);
	strbuf_release(&out);
	strbuf_release(&map);
	strbuf_release(&path);
	return ret;
}

/* Link the ingested guest trace of dir to the original; Return: the replay_run id or -1. */
static int64_t link_run(const char *dbpath, const char *dir, int64_t trace_id,
			const struct rp_policy *pol, const char *filter, uint64_t elapsed_ns,
			int64_t *guest_id)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int64_t run = -1;

	if (ftdb_open(dbpath, FTDB_WRITE, &db))
		return -1;
	*guest_id = 0;
	if (sqlite3_prepare_v2(db, "SELECT max(trace_id) FROM trace WHERE path = ?", -1, &st,
			       NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_text(st, 1, dir, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*guest_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (!*guest_id) {
		fail("the guest trace of %s is not in %s", dir, dbpath);
		goto out;
	}
	if (ftdb_exec(db, "BEGIN IMMEDIATE"))
		goto out;
	if (sqlite3_prepare_v2(db, "UPDATE trace SET parent_trace_id = ?1 WHERE trace_id = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		goto sql_rollback;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_int64(st, 2, *guest_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto sql_rollback;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "INSERT INTO replay_run(trace_id, policy, frag, kind, "
			       "guest_trace_id, filter, tool_version, created_at, elapsed_ns) "
			       "VALUES (?1, ?2, 'none', 'guest', ?3, ?4, ?5, "
			       "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?6)", -1, &st,
			       NULL) != SQLITE_OK)
		goto sql_rollback;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, pol->spec, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, *guest_id);
	if (*filter)
		sqlite3_bind_text(st, 4, filter, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, FT_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (int64_t)elapsed_ns);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto sql_rollback;
	sqlite3_finalize(st);
	st = NULL;
	run = sqlite3_last_insert_rowid(db);
	if (ftdb_exec(db, "COMMIT"))
		run = -1;
	goto out;
sql_rollback:
	fail("cannot link the guest trace: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	st = NULL;
	ftdb_rollback(db);
	goto out;
sql_error:
	fail("cannot find the guest trace: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
out:
	ftdb_close(db);
	return run;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One guest: boot, replay, ingest, link. */
static int replay_one(const struct opts *o, const char *arch, int64_t trace_id,
		      const struct rp_policy *pol, const char *file, const char *filter)
{
	struct strbuf dir = STRBUF_INIT, guest_file = STRBUF_INIT;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct ft_runner_args ra = {
		.arch = arch, .policy = pol->spec, .mem = o->mem, .cpus = o->cpus,
		.timeout = o->timeout, .file = file, .fragment = o->fragment, .clock = o->clock,
	};
	struct ft_ingest_opts io = { .db = o->db };
	struct ft_ingest_result ir;
	char *cmd[2];
	int rc, ret = -1;
	int64_t guest_id, run_id;
	uint64_t t0;

	if (run_dir(&dir, o->db, arch, pol->spec, trace_id))
		goto out;
	strbuf_addf(&guest_file, "/mnt/out/in/%s", base);
	cmd[0] = "ft-replayer";
	cmd[1] = guest_file.buf;
	ra.cmd = cmd;
	ra.nr_cmd = 2;
	ra.out = dir.buf;

	t0 = now_ns();
	rc = ft_runner_run(&ra);
	if (rc < 0)
		goto out;
	if (rc == FT_RUNNER_GUEST_FAILED) {
		ft_runner_status(rc, dir.buf, 0);
		fail("the %s guest failed; see %s/console.log", pol->spec, dir.buf);
		goto out;
	}
	/* the replayer's own status is checked by keep_map() */
	if (rc != FT_RUNNER_OK && rc != FT_RUNNER_WORKLOAD_FAILED) {
		ft_runner_status(rc, dir.buf, 0);
		ft_discard_trace_dir(dir.buf, o->db);
		goto out;
	}
	if (keep_map(dir.buf))
		goto out;
	io.dir = dir.buf;
	if (ft_ingest(&io, &ir)) {
		fail("the guest trace in %s could not be stored", dir.buf);
		goto out;
	}
	run_id = link_run(o->db, dir.buf, trace_id, pol, filter, now_ns() - t0, &guest_id);
	if (run_id < 0)
		goto out;
	printf("%s: guest trace %lld (replay run %lld), %.1f s; kept in %s\n", pol->spec,
	       (long long)guest_id, (long long)run_id, (double)(now_ns() - t0) / 1e9, dir.buf);
	ret = 0;
out:
	strbuf_release(&dir);
	strbuf_release(&guest_file);
	return ret;
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
	struct rp_filter sel;
	int64_t trace_id;
	sqlite3 *db;
	int c, ret = 1, failed = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:a:t:c:P:m:n:T:e:F:C:h", options, NULL)) != -1) {
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
			if (ft_runner_check_fragment(optarg)) {
				ret = usage_error(error_text());
				error_clear();
				return ret;
			}
			o.fragment = optarg;
			break;
		case 'C':
			if (strcmp(optarg, "tcg") && strcmp(optarg, "icount"))
				return usage_error("--clock is tcg or icount");
			o.clock = optarg;
			break;
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
	for (i = 0; i < o.nr_pol; i++) {
		if (sim_only(&o.pol[i]))
			sim[nr_sim++] = o.pol[i];
		else
			guest[nr_guest++] = o.pol[i];
	}
	rp_filter_set(&sel, o.comm, o.pid);
	rp_filter_format(&sel, filter, sizeof(filter));

	if (ftdb_open(o.db, FTDB_READONLY, &db))
		return 1;
	if (ftdb_pick_trace(db, o.trace, &trace_id)) {
		ftdb_close(db);
		return 1;
	}
	if (rp_load_head(db, trace_id, &head)) {
		ftdb_close(db);
		return 1;
	}
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
		if (write_file(o.export, file.buf, file.len))
			goto out;
		if (!o.nr_pol) {
			ret = 0;
			goto out;
		}
	}
	if (nr_guest) {
		time_t now = time(NULL);
		char stamp[32];

		if (ft_ctf_dir(&path, o.db))
			goto out;
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&now));
		strbuf_addf(&path, "/replay-t%lld-%s.ftr", (long long)trace_id, stamp);
		if (write_file(path.buf, file.buf, file.len))
			goto out;
	}
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
