// SPDX-License-Identifier: GPL-2.0
/* cmd-guest-replay.c - foliotrace guest replay (placeholder until issue 7 lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_guest_replay(int argc, char **argv)
{
	return error("'guest replay' is not implemented yet");
}
