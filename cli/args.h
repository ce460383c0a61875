/* SPDX-License-Identifier: GPL-2.0 */
/*
 * args.h - the command-line helpers the subcommands share, and the output they print
 * their rows with (lib/table.h).
 */
#ifndef FT_CLI_ARGS_H
#define FT_CLI_ARGS_H

#include <stdint.h>

#include "lib/table.h"

/*
 * cmd is the subcommand's name, as in "foliotrace compare".
 *
 * cli_usage_error - print "foliotrace CMD: MSG" (unless msg is NULL), then the usage text,
 * on stderr. Return: 2, the usage error exit status.
 */
int cli_usage_error(const char *cmd, const char *usage, const char *msg);
/*
 * cli_parse_num - parse the value s of option opt (--pid, --trace, --limit) as a
 * non-negative decimal number. Return: 0 and *v set, or -1 after saying why on stderr.
 */
int cli_parse_num(const char *cmd, const char *opt, const char *s, int64_t *v);

/* A library's warn callback (tracer/ingest.h, vm/): msg as a "foliotrace: warning:" line. */
void cli_warn(const char *msg, void *arg);
/* Each line of text (notes a library returned) as a "foliotrace: warning:" line. */
void cli_warn_lines(const char *text);

#endif /* FT_CLI_ARGS_H */
