// SPDX-License-Identifier: GPL-2.0
/* cmd-compare.c - foliotrace compare (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_compare(int argc, char **argv)
{
	return error("'compare' is not implemented yet");
}
