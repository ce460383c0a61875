// SPDX-License-Identifier: GPL-2.0
/* cmd-ingest.c - foliotrace ingest (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_ingest(int argc, char **argv)
{
	return error("'ingest' is not implemented yet");
}
