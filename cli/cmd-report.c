// SPDX-License-Identifier: GPL-2.0
/* cmd-report.c - foliotrace report (placeholder until its issue lands). */
#include "cli/commands.h"
#include "lib/error.h"

int cmd_report(int argc, char **argv)
{
	return error("'report' is not implemented yet");
}
