/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare-latency.h - `foliotrace compare DB --latency`: the mcpage RFC's latency table
 * (replay/latency-table.h) printed as a table, CSV or JSON (docs/latency.md,
 * docs/cli-json.md).
 */
#ifndef FT_CLI_COMPARE_LATENCY_H
#define FT_CLI_COMPARE_LATENCY_H

#include "cli/args.h"

/* Return: 0, or -1 with fail() (no trace with latencies, SQL). */
int latency_table(const char *dbpath, enum out_format format);

#endif /* FT_CLI_COMPARE_LATENCY_H */
