// SPDX-License-Identifier: GPL-2.0
/*
 * replay-bench.c - throughput of the replay engine against a plain read of the same stream,
 * side by side in one run. Built and run by bench/replay.sh.
 *
 *	replay-bench GENERATOR|DB NR_FAULTS POLICY...
 *
 * The stream is a SYNTHETIC one from replay/synth.c, or the newest trace of a trace database
 * DB (the events `foliotrace replay` feeds its simulators: the workload's processes, no
 * ALLOC records; NR_FAULTS is ignored), named on the first output line, held in memory
 * twice: decoded (struct ftdb_event, what the simulator reads) and encoded in event_chunk blobs
 * (db/stream.c, what the database holds). Measured, best of 5 each
 * (FT_BENCH_REPS=1: once each, for bench/replay-cg.sh); a policy's ratio is against the
 * best of the scans run alternately with it, so both see the same load on a shared machine:
 *	scan		a sequential read of the decoded events (sum of every address)
 *	decode		decoding the blobs back into events (what ftdb_stream_foreach adds)
 *	POLICY		rp_sim_feed over the decoded events, 4096 at a time as replay does
 *	all		every policy fed batch by batch in one pass (foliotrace replay's loop);
 *			its rate is per policy: faults * policies / time
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "db/stream.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/load.h"
#include "replay/replay.h"

#define BATCH 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static __attribute__((noinline)) double time_scan(const struct rp_stream *s)
{
	double t0 = now();
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->nr; i++)
		sum += s->ev[i].addr ^ s->ev[i].kind;
	sink = sum;
	return now() - t0;
}

struct blob {
	uint8_t *data;
	size_t len;
};

static double time_decode(const struct blob *b, size_t nb)
{
	double t0 = now();
	struct ftdb_event ev;
	struct ftdb_dec d;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < nb; i++) {
		ftdb_dec_init(&d, b[i].data, b[i].len);
		while (ftdb_dec_next(&d, &ev) == 1)
			sum += ev.addr;
	}
	sink = sum;
	return now() - t0;
}

static double time_policies(const struct rp_stream *s, const struct rp_policy *p, int np,
			    uint64_t *faults)
{
	struct rp_trace t;
	struct rp_sim *sim[32];
	double t0, el;
	size_t i;
	int k;

	rp_stream_trace(s, &t);
	for (k = 0; k < np; k++)
		sim[k] = rp_sim_new(&p[k], RP_FRAG_NONE, &t);
	t0 = now();
	for (i = 0; i < s->nr; i += BATCH)
		for (k = 0; k < np; k++)
			rp_sim_feed(sim[k], s->ev + i, s->nr - i < BATCH ? s->nr - i : BATCH);
	for (k = 0; k < np; k++)
		rp_sim_finish(sim[k]);
	el = now() - t0;
	if (faults)
		*faults = rp_sim_total(sim[0])->v[RP_M_FAULTS];
	for (k = 0; k < np; k++)
		rp_sim_free(sim[k]);
	return el;
}

struct loading {
	struct rp_stream *s;
	const struct rp_loaded *l;
};

static int keep_event(const struct ftdb_event *ev, void *arg)
{
	struct loading *ld = arg;

	if (ev->kind == FTDB_EV_ALLOC || ev->proc_id >= ld->l->nr_procs ||
	    !ld->l->procs[ev->proc_id].selected)
		return 0;
	XGROW(ld->s->ev, ld->s->cap, ld->s->nr + 1);
	ld->s->ev[ld->s->nr++] = *ev;
	return 0;
}

/* The newest trace of a database, as replay selects it by default. Return: 0 or fail(). */
static int load_db(const char *path, struct rp_stream *s)
{
	struct rp_filter sel;
	struct rp_loaded l;
	struct loading ld = { s, &l };
	int64_t id;
	sqlite3 *db;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (ftdb_open(path, FTDB_READONLY, &db))
		return -1;
	rp_filter_set(&sel, NULL, -1);
	if (ftdb_pick_trace(db, 0, &id) || rp_load(db, id, &sel, &l))
		goto out;
	if (!ftdb_stream_foreach(db, id, keep_event, &ld)) {
		s->vmas = xcalloc(l.nr_vmas ? l.nr_vmas : 1, sizeof(*s->vmas));
		memcpy(s->vmas, l.vmas, l.nr_vmas * sizeof(*s->vmas));
		s->nr_vmas = l.nr_vmas;
		s->nr_procs = l.nr_procs;
		ret = 0;
	}
	rp_load_release(&l);
out:
	ftdb_close(db);
	return ret;
}

static int reps = 5;	/* FT_BENCH_REPS: runs of each measurement, the best one counts */

/* The shortest of reps evaluations of a time measurement (s). */
#define BEST(expr) ({							\
	double best_ = (expr);						\
	for (int r_ = 1; r_ < reps; r_++) {				\
		double t_ = (expr);					\
		best_ = t_ < best_ ? t_ : best_;			\
	}								\
	best_;								\
})

int main(int argc, char **argv)
{
	struct rp_stream s;
	struct rp_policy pol[32];
	struct blob *blobs = NULL;
	size_t nb = 0, capb = 0, i, nfault = 0, bytes = 0;
	struct ftdb_enc enc;
	double scan, dec, el, min_rate = 0, min_ratio = 0, all;
	int np = 0, k, r, from_db;

	if (getenv("FT_BENCH_REPS") && atoi(getenv("FT_BENCH_REPS")) == 1)
		reps = 1;
	if (argc < 4) {
		fprintf(stderr, "usage: replay-bench GENERATOR|DB NR_FAULTS POLICY...\n");
		return 2;
	}
	for (k = 3; k < argc && np < 32; k++) {
		if (rp_policy_parse(argv[k], &pol[np++])) {
			error_print("replay-bench");
			return 2;
		}
	}
	from_db = !access(argv[1], F_OK);
	if (from_db ? load_db(argv[1], &s) : rp_synth(argv[1], 42, strtoull(argv[2], NULL, 0), &s)) {
		error_print("replay-bench");
		return 2;
	}
	for (i = 0; i < s.nr; i++)
		nfault += s.ev[i].kind == FTDB_EV_FAULT;
	ftdb_enc_init(&enc);
	for (i = 0; i <= s.nr; i++) {
		if (i == s.nr || ftdb_enc_full(&enc)) {
			XGROW(blobs, capb, nb + 1);
			blobs[nb].data = xmalloc(enc.len);
			memcpy(blobs[nb].data, enc.buf, enc.len);
			blobs[nb].len = enc.len;
			bytes += enc.len;
			nb++;
			ftdb_enc_reset(&enc);
			if (i == s.nr)
				break;
		}
		ftdb_enc_add(&enc, &s.ev[i]);
	}
	ftdb_enc_release(&enc);
	if (from_db)
		printf("stream: RECORDED trace %s (the workload's processes): %zu events, %zu "
		       "faults, %.1f bytes/event encoded\n", argv[1], s.nr, nfault,
		       (double)bytes / (double)s.nr);
	else
		printf("stream: SYNTHETIC '%s' from replay/synth.c (not a recorded trace): %zu "
		       "events, %zu faults, %.1f bytes/event encoded\n", argv[1], s.nr, nfault,
		       (double)bytes / (double)s.nr);
	scan = BEST(time_scan(&s));
	dec = BEST(time_decode(blobs, nb));
	printf("%-24s %12.0f events/s %12.0f faults/s\n", "scan (plain read)",
	       (double)s.nr / scan, (double)nfault / scan);
	printf("%-24s %12.0f events/s %12.0f faults/s\n", "decode (event_chunk)",
	       (double)s.nr / dec, (double)nfault / dec);
	for (k = 0; k < np; k++) {
		uint64_t f;
		double rate, sc;

		/* the scan again right before each run: both see the same load */
		el = sc = 1e30;
		for (r = 0; r < reps; r++) {
			sc = fmin(sc, time_scan(&s));
			el = fmin(el, time_policies(&s, &pol[k], 1, &f));
		}
		rate = (double)nfault / el;
		if (!k || sc / el < min_ratio) {
			min_ratio = sc / el;
			min_rate = rate;
		}
		printf("%-24s %12.0f events/s %12.0f faults/s  %.3f of scan  (%llu faults "
		       "replayed)\n", pol[k].spec, (double)s.nr / el, rate, sc / el,
		       (unsigned long long)f);
	}
	all = scan = 1e30;
	for (r = 0; r < reps; r++) {
		scan = fmin(scan, time_scan(&s));
		all = fmin(all, time_policies(&s, pol, np, NULL));
	}
	printf("%-24s %12.0f events/s %12.0f faults/s  %.3f of scan  per policy (%d policies, "
	       "one pass)\n", "all, one pass", (double)s.nr * np / all,
	       (double)nfault * np / all, scan * np / all, np);
	printf("replay_faults_per_s=%.0f scan_ratio=%.3f\n", min_rate, min_ratio);
	for (i = 0; i < nb; i++)
		free(blobs[i].data);
	free(blobs);
	rp_stream_release(&s);
	return 0;
}
