// SPDX-License-Identifier: GPL-2.0
/* cmd-replay.c - foliotrace replay (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_replay(int argc, char **argv)
{
	return error("'replay' is not implemented yet");
}
