// SPDX-License-Identifier: GPL-2.0
/*
 * advise-naive.c - advise's probes (replay/advise-probe.c) against their definition on a
 * stored trace: for every site and order 1..8, the whole trace replayed with that site at
 * the order and every other at 0 (one persite policy per candidate, RP_MAX_POLICIES per
 * pass: how advise probed before it probed by classes of blocks), its faults, and its
 * bloat beyond the all-zero replay's, must equal what rp_advise() computed. For the CLI
 * tests (tests/cli/advise*.sh); not part of foliotrace.
 *
 *	advise-naive DB [TRACE_ID]	(default 1)
 *
 * Prints one line, "N sites x 9 orders: as the whole-trace probe (G gain faults, B bloat)"
 * or the first difference; exits 0 if all agree, 1 if not or on an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/advise.h"
#include "replay/policy.h"

#define NR_ORD (RP_MAX_FOLIO_ORDER + 1)

int main(int argc, char **argv)
{
	struct rp_advice a;
	struct rp_policy *pol;
	struct rp_run_result *res;
	struct rp_trace_info info;
	struct rp_run_opts o;
	sqlite3 *db;
	int64_t trace_id = argc > 2 ? atoll(argv[2]) : 1;
	size_t n, i, k, gains = 0, bloats = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: advise-naive DB [TRACE_ID]\n");
		return 2;
	}
	if (ftdb_open(argv[1], FTDB_READONLY, &db) || rp_advise(db, trace_id, 10, &a)) {
		error_print("advise-naive");
		return 1;
	}
	n = 1 + a.nr_sites * RP_MAX_FOLIO_ORDER;
	pol = calloc(n, sizeof(*pol));
	res = calloc(n, sizeof(*res));
	rp_persite_policy(&pol[0], "*=0", NULL, NULL, 0, 0);
	for (i = 0; i < a.nr_sites; i++)
		for (k = 1; k < NR_ORD; k++) {
			const char *name = a.sites[i].site;
			unsigned int ord = (unsigned int)k;

			rp_persite_policy(&pol[1 + i * RP_MAX_FOLIO_ORDER + k - 1], name, &name,
					  &ord, 1, 0);
		}
	for (i = 0; i < n; i += RP_MAX_POLICIES) {
		memset(&o, 0, sizeof(o));
		o.pol = pol + i;
		o.nr_pol = (unsigned int)(n - i < RP_MAX_POLICIES ? n - i : RP_MAX_POLICIES);
		o.pid = -1;
		if (rp_replay_db(db, trace_id, &o, res + i, &info)) {
			error_print("advise-naive");
			return 1;
		}
	}
	for (i = 0; i < a.nr_sites; i++)
		for (k = 0; k < NR_ORD; k++) {
			const struct rp_counters *c = k ? &res[1 + i * RP_MAX_FOLIO_ORDER + k - 1].total
							: &res[0].total;
			uint64_t b0 = res[0].total.v[RP_M_BLOAT];
			uint64_t f = c->v[RP_M_FAULTS], b = c->v[RP_M_BLOAT] > b0 ?
							    c->v[RP_M_BLOAT] - b0 : 0;

			gains += f < res[0].total.v[RP_M_FAULTS];
			bloats += b > 0;
			if (a.sites[i].faults[k] == f && a.sites[i].bloat[k] == b)
				continue;
			printf("site %s order %zu: probe %llu faults, %llu bloat; whole trace "
			       "%llu, %llu\n", a.sites[i].site, k,
			       (unsigned long long)a.sites[i].faults[k],
			       (unsigned long long)a.sites[i].bloat[k], (unsigned long long)f,
			       (unsigned long long)b);
			return 1;
		}
	printf("%zu sites x %d orders: as the whole-trace probe (%zu gain faults, %zu bloat)\n",
	       a.nr_sites, NR_ORD, gains, bloats);
	rp_advice_release(&a);
	free(pol);
	free(res);
	ftdb_close(db);
	return 0;
}
