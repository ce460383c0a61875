// SPDX-License-Identifier: GPL-2.0
/* cmd-record.c - foliotrace record (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_record(int argc, char **argv)
{
	return error("'record' is not implemented yet");
}
