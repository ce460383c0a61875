/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare-real.h - foliotrace compare DB --sim-vs-real: the simulator's answer for each
 * policy against what a guest replay under that policy measured (docs/guest-replay.md).
 */
#ifndef FT_CLI_COMPARE_REAL_H
#define FT_CLI_COMPARE_REAL_H

#include <stdint.h>

#include "cli/args.h"

/*
 * sim_vs_real - for every policy with a guest replay of the trace (latest run each), the
 * simulated metrics (latest sim run of that policy, frag none, same selection) next to the
 * real ones measured in the guest trace (replay/measure.h), with the error in percent, and
 * real fault latency percentiles per order; simulation-only policies with a stored sim run
 * as rows without a real value. comm/pid narrow the comparison to the replayed processes
 * recorded with that name/tgid (NULL/-1: the guest replay's own selection). Opens the
 * database read-only: a missing simulation is an error naming the `foliotrace replay`
 * command that stores it.
 * Return: 0 after printing, or -1 with fail().
 */
int sim_vs_real(const char *dbpath, int64_t want_trace, const char *comm, int64_t pid,
		enum out_format format);

#endif /* FT_CLI_COMPARE_REAL_H */
