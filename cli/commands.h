/* SPDX-License-Identifier: GPL-2.0 */
/*
 * commands.h - one entry point per subcommand, each in cli/cmd-<name>.c.
 *
 * Contract: cmd_<name>(argc, argv) gets argv[0] == "foliotrace <name>" (what getopt
 * prefixes its messages with); returns 0 on success, 1 on
 * failure after fail() recorded the cause (main prints it), 2 on a usage error after
 * printing the usage to stderr. Only cli/ may exit.
 */
#ifndef FT_CLI_COMMANDS_H
#define FT_CLI_COMMANDS_H

int cmd_guest(int argc, char **argv);
int cmd_guest_replay(int argc, char **argv);	/* foliotrace guest replay, in cmd-guest-replay.c */
int cmd_record(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_advise(int argc, char **argv);

#endif /* FT_CLI_COMMANDS_H */
