// SPDX-License-Identifier: GPL-2.0
/* run-args.c - the options that choose stored runs, and the figures shown of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
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

void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.2fG", (double)b / (1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1fM", (double)b / (1ULL << 20));
	else if (b >= 1024)
		snprintf(buf, len, "%.0fK", (double)b / 1024);
	else
		snprintf(buf, len, "%llu", (unsigned long long)b);
}

void fmt_delta(char *buf, size_t len, uint64_t v, uint64_t base)
{
	if (!base)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", ((double)v - (double)base) * 100.0 / (double)base);
}
