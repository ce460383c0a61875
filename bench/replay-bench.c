// SPDX-License-Identifier: GPL-2.0
/*
 * replay-bench.c - throughput of the replay engine against a plain read of the same stream,
 * side by side in one run. Built and run by bench/replay.sh.
 *
 *	replay-bench GENERATOR NR_FAULTS POLICY...
 *
 * The stream is a SYNTHETIC one from replay/synth.c (named on the first output line), held
 * in memory twice: decoded (struct ft_event, what the simulator reads) and encoded in
 * event_chunk blobs (db/stream.c, what the database holds). Measured, best of 3 each:
 *	scan		a sequential read of the decoded events (sum of every address)
 *	decode		decoding the blobs back into events (what ftdb_stream_foreach adds)
 *	POLICY		rp_sim_feed over the decoded events, 4096 at a time as replay does
 *	all		every policy fed batch by batch in one pass (foliotrace replay's loop)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/stream.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/replay.h"

#define BATCH 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static double time_scan(const struct rp_stream *s)
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
	struct ft_event ev;
	struct ft_dec d;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < nb; i++) {
		ft_dec_init(&d, b[i].data, b[i].len);
		while (ft_dec_next(&d, &ev) == 1)
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

static double best3(double a, double b, double c)
{
	double m = a < b ? a : b;

	return m < c ? m : c;
}

int main(int argc, char **argv)
{
	struct rp_stream s;
	struct rp_policy pol[32];
	struct blob *blobs = NULL;
	size_t nb = 0, capb = 0, i, nfault = 0, bytes = 0;
	struct ft_enc enc;
	double scan, dec, el, min_rate = 0, all;
	int np = 0, k;

	if (argc < 4) {
		fprintf(stderr, "usage: replay-bench GENERATOR NR_FAULTS POLICY...\n");
		return 2;
	}
	for (k = 3; k < argc && np < 32; k++) {
		if (rp_policy_parse(argv[k], &pol[np++])) {
			error_print("replay-bench");
			return 2;
		}
	}
	if (rp_synth(argv[1], 42, strtoull(argv[2], NULL, 0), &s)) {
		error_print("replay-bench");
		return 2;
	}
	for (i = 0; i < s.nr; i++)
		nfault += s.ev[i].kind == FT_EV_FAULT;
	ft_enc_init(&enc);
	for (i = 0; i <= s.nr; i++) {
		if (i == s.nr || ft_enc_full(&enc)) {
			XGROW(blobs, capb, nb + 1);
			blobs[nb].data = xmalloc(enc.len);
			memcpy(blobs[nb].data, enc.buf, enc.len);
			blobs[nb].len = enc.len;
			bytes += enc.len;
			nb++;
			ft_enc_reset(&enc);
			if (i == s.nr)
				break;
		}
		ft_enc_add(&enc, &s.ev[i]);
	}
	ft_enc_release(&enc);
	printf("stream: SYNTHETIC '%s' from replay/synth.c (not a recorded trace): %zu events, "
	       "%zu faults, %.1f bytes/event encoded\n", argv[1], s.nr, nfault,
	       (double)bytes / (double)s.nr);
	scan = best3(time_scan(&s), time_scan(&s), time_scan(&s));
	dec = best3(time_decode(blobs, nb), time_decode(blobs, nb), time_decode(blobs, nb));
	printf("%-24s %12.0f events/s %12.0f faults/s\n", "scan (plain read)",
	       (double)s.nr / scan, (double)nfault / scan);
	printf("%-24s %12.0f events/s %12.0f faults/s\n", "decode (event_chunk)",
	       (double)s.nr / dec, (double)nfault / dec);
	for (k = 0; k < np; k++) {
		uint64_t f;
		double rate;

		el = best3(time_policies(&s, &pol[k], 1, &f), time_policies(&s, &pol[k], 1, NULL),
			   time_policies(&s, &pol[k], 1, NULL));
		rate = (double)nfault / el;
		if (!k || rate < min_rate)
			min_rate = rate;
		printf("%-24s %12.0f events/s %12.0f faults/s  %.3f of scan  (%llu faults "
		       "replayed)\n", pol[k].spec, (double)s.nr / el, rate, scan / el,
		       (unsigned long long)f);
	}
	all = time_policies(&s, pol, np, NULL);
	printf("%-24s %12.0f events/s %12.0f faults/s per policy (%d policies, one pass)\n",
	       "all, one pass", (double)s.nr * np / all, (double)nfault * np / all, np);
	printf("replay_faults_per_s=%.0f scan_ratio=%.3f\n", min_rate,
	       min_rate / ((double)nfault / scan));
	for (i = 0; i < nb; i++)
		free(blobs[i].data);
	free(blobs);
	rp_stream_release(&s);
	return 0;
}
