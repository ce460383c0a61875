// SPDX-License-Identifier: GPL-2.0
/* run-args.c - the options that choose stored runs; see run-args.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/run-args.h"
#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/filter.h"
#include "replay/load.h"

int cli_runs_option(struct rp_run_query *ro, int c, const char *arg, const char *cmd,
		const char *usage)
{
	enum rp_frag_kind fk;
	struct rp_policy base;

	switch (c) {
	case 'b':
		if (rp_policy_parse(arg, &base)) {
			error_print("foliotrace");
			return 2;
		}
		snprintf(ro->base, sizeof(ro->base), "%s", base.spec);
		break;
	case 'F':
		if (rp_frag_parse(arg, &fk)) {
			error_print("foliotrace");
			return 2;
		}
		ro->frag = rp_frag_name(fk);
		break;
	case 'c':
		ro->comm = arg;
		break;
	case 'p':
		if (cli_parse_num(cmd, "--pid", arg, &ro->pid))
			return cli_usage_error(cmd, usage, NULL);
		break;
	case 't':
		if (cli_parse_num(cmd, "--trace", arg, &ro->want))
			return cli_usage_error(cmd, usage, NULL);
		break;
	}
	return 0;
}
