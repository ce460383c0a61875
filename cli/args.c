// SPDX-License-Identifier: GPL-2.0
/* args.c - the command-line helpers the subcommands share; see args.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "lib/error.h"

int cli_usage_error(const char *cmd, const char *usage, const char *msg)
{
	if (msg)
		fprintf(stderr, "foliotrace %s: %s\n", cmd, msg);
	fputs(usage, stderr);
	return 2;
}

int cli_parse_num(const char *cmd, const char *opt, const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || !*s || *end || *v < 0) {
		char prog[64];

		/* through fail(): a value with a newline is printed escaped, on one line */
		snprintf(prog, sizeof(prog), "foliotrace %s", cmd);
		fail("%s wants a non-negative number, not '%s'", opt, s);
		error_print(prog);
		return -1;
	}
	return 0;
}

void cli_warn_lines(const char *text)
{
	const char *nl;

	for (; text && *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl) {
			warning("%s", text);
			return;
		}
		warning("%.*s", (int)(nl - text), text);
	}
}
