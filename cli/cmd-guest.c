// SPDX-License-Identifier: GPL-2.0
/* cmd-guest.c - foliotrace guest (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_guest(int argc, char **argv)
{
	return error("'guest' is not implemented yet");
}
