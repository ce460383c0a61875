// SPDX-License-Identifier: GPL-2.0
/* cmd-query.c - foliotrace query (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_query(int argc, char **argv)
{
	return error("'query' is not implemented yet");
}
