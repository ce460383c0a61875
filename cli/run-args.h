/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run-args.h - the options that choose which stored runs compare and report read (the rules
 * are replay/runs.h's).
 */
#ifndef FT_CLI_RUN_ARGS_H
#define FT_CLI_RUN_ARGS_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/fmt.h"
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

#endif /* FT_CLI_RUN_ARGS_H */
