// SPDX-License-Identifier: GPL-2.0
/* guest-replay.c - one guest replay: boot, replay, ingest, link; see guest-replay.h. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/ftdb.h"
#include "db/runs.h"
#include "lib/error.h"
#include "lib/outfile.h"
#include "tracer/ingest.h"
#include "vm/guest-replay.h"
#include "vm/runner.h"
#include "vm/tracedir.h"

int vm_replay_file(const char *db, int64_t trace_id, const void *data, size_t len,
		   struct strbuf *path)
{
	time_t now = time(NULL);
	char stamp[32];

	if (vm_share_check(db, NULL) || vm_ctf_dir(path, db))
		return -1;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&now));
	strbuf_addf(path, "/replay-t%lld-%s.ftr", (long long)trace_id, stamp);
	return write_file_atomic(path->buf, data, len, "replay file");
}

/*
 * The replayer's FTREPLAY lines into DIR/header/replay_map (stored in trace_meta by the
 * ingest); its RESULT line must say status=0.
 */
static int keep_map(const char *dir)
{
	struct strbuf out = STRBUF_INIT, map = STRBUF_INIT, path = STRBUF_INIT;
	char *line, *next, *first_error = NULL;
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
		if (!strncmp(line, "FTREPLAY_ERROR ", 15)) {
			if (!first_error)
				first_error = line + 15;
		} else if (!strncmp(line, "FTREPLAY", 8)) {
			strbuf_addstr(&map, line);
			strbuf_addch(&map, '\n');
		} else if (!strncmp(line, "RESULT ft-replayer ", 19) && strstr(line, " status=0")) {
			ok = 1;
		}
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/header/replay_map", dir);
	ret = write_file_atomic(path.buf, map.buf, map.len, "replay map");
	if (!ret && !ok)
		ret = first_error ?
		      fail("the replayer failed (%.200s); see %s/workload.out", first_error, dir) :
		      fail("the replayer did not finish cleanly; see %s/workload.out", dir);
	strbuf_release(&out);
	strbuf_release(&map);
	strbuf_release(&path);
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Link the stored guest trace to the trace it replays, with its run. */
static int link_run(const struct vm_guest_replay *g, uint64_t elapsed_ns,
		    struct vm_guest_replay_result *r)
{
	struct ftdb_run run = {
		.trace_id = g->trace_id, .policy = g->policy, .frag = "none", .kind = "guest",
		.filter = g->filter, .guest_trace_id = r->guest_trace_id,
		.elapsed_ns = (int64_t)elapsed_ns,
	};
	sqlite3 *db;
	int ret;

	if (ftdb_open(g->db, FTDB_WRITE, &db))
		return -1;
	ret = ftdb_run_link_guest(db, &run, &r->run_id);
	ftdb_close(db);
	return ret;
}

int vm_guest_replay(const struct vm_guest_replay *g, struct vm_guest_replay_result *r)
{
	struct strbuf guest_file = STRBUF_INIT;
	const char *base = strrchr(g->file, '/') ? strrchr(g->file, '/') + 1 : g->file;
	struct vm_runner_args ra = {
		.arch = g->arch, .policy = g->policy, .mem = g->mem, .cpus = g->cpus,
		.timeout = g->timeout, .file = g->file, .fragment = g->fragment,
		.clock = g->clock, .kernel = g->kernel, .watch = g->watch,
	};
	struct ft_ingest_opts io = { .db = g->db, .warn = g->warn, .warn_arg = g->warn_arg };
	struct ft_ingest_result ir;
	char tag[32], *cmd[2];
	int rc, ret = -1;
	uint64_t t0;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->dir);
	snprintf(tag, sizeof(tag), "replay-t%lld", (long long)g->trace_id);
	if (vm_share_check(g->db, NULL))
		goto out;
	if (vm_new_trace_dir(&r->dir, g->db, g->arch, g->policy, tag))
		goto out;
	strbuf_addf(&guest_file, "/mnt/out/in/%s", base);
	cmd[0] = "ft-replayer";
	cmd[1] = guest_file.buf;
	ra.cmd = cmd;
	ra.nr_cmd = 2;
	ra.out = r->dir.buf;

	t0 = now_ns();
	/* a workload that failed: the replayer's own status is checked by keep_map() */
	rc = vm_runner_boot(&ra, g->db);
	if (rc < 0)
		goto out;
	if (rc == VM_RUNNER_GUEST_FAILED) {
		vm_runner_status(rc, r->dir.buf, 0);
		fail("the %s guest failed; see %s/console.log", g->policy, r->dir.buf);
		goto out;
	}
	if (keep_map(r->dir.buf))
		goto out;
	io.dir = r->dir.buf;
	if (ft_ingest(&io, &ir)) {
		fail("the guest trace in %s could not be stored", r->dir.buf);
		goto out;
	}
	r->guest_trace_id = ir.trace_id;
	if (link_run(g, now_ns() - t0, r))
		goto out;
	r->elapsed_ns = now_ns() - t0;
	ret = 0;
out:
	strbuf_release(&guest_file);
	if (ret)
		strbuf_release(&r->dir);
	return ret;
}
