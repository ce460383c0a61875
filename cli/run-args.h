/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run-args.h - the options that choose which stored runs compare and report read (the rules
 * are replay/runs.h's), and the formatting of their figures shared by the replay, compare
 * and report commands.
 */
#ifndef FT_CLI_RUN_ARGS_H
#define FT_CLI_RUN_ARGS_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/replay.h"
#include "replay/runs.h"

/*
 * cli_runs_option - take option c (one of 'b', 'F', 'c', 'p', 't') with its value arg for
 * foliotrace cmd. Return: 0, or 2 (usage error) after printing the cause, and for a bad
 * number the usage text, on stderr.
 */
int cli_runs_option(struct rp_run_query *ro, int c, const char *arg, const char *cmd,
		const char *usage);
/* "12.3M", "512K", "17" for a byte count (binary units). */
void fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* "-70.1%" change of v against base; "-" if base is 0. */
void fmt_delta(char *buf, size_t len, uint64_t v, uint64_t base);

#endif /* FT_CLI_RUN_ARGS_H */
