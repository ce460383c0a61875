// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-guest.c - foliotrace guest build|run: the guest kernel and runner.
 *
 *	foliotrace guest build [--arch x86_64|arm64]
 *	foliotrace guest run [--arch A] [--policy P] [--mem SIZE] [--cpus N] [--timeout S]
 *			     --out DIR -- CMD [ARG...]
 *	foliotrace guest replay DB --policy P [--arch A]	(cmd-guest-replay.c)
 *
 * build and run are thin: the work is in guest-kernel/build.sh and run.sh, which are
 * usable on their own; this file gives them the CLI's conventions (usage, exit status).
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/spawn.h"
#include "lib/error.h"
#include "replay/replay.h"

static const char guest_usage[] =
	"usage: foliotrace guest build [--arch x86_64|arm64]\n"
	"   or: foliotrace guest run [--arch A] [--policy P] [--mem SIZE] [--cpus N]\n"
	"                            [--timeout S] --out DIR -- CMD [ARG...]\n"
	"   or: foliotrace guest replay DB --policy P [--policy P...] [--arch A]\n"
	"   or: foliotrace guest knob P\n";

/*
 * guest knob P: what the guest runner writes to /sys/kernel/mm/anon_folio/orders for the
 * policy P ("none", "2", "1,2,3,4"; "thp" for the kernel's THP). Exit 2 for a spec that
 * does not parse, 1 for a simulation-only policy.
 */
static int guest_knob(int argc, char **argv)
{
	struct rp_policy p;
	char knob[64];

	if (argc != 2) {
		fputs(guest_usage, stderr);
		return 2;
	}
	if (rp_policy_parse(argv[1], &p)) {
		error_print("foliotrace");
		return 2;
	}
	if (rp_policy_guest_knob(&p, knob, sizeof(knob)))
		return 1;
	printf("%s\n", knob);
	return 0;
}

static int guest_build(int argc, char **argv)
{
	char *args[5] = { (char *)ft_path("guest-kernel/build.sh"), NULL };
	int i, n = 1, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
			args[n++] = "--arch";
			args[n++] = argv[++i];
		} else {
			fputs(guest_usage, stderr);
			return 2;
		}
	}
	ret = ft_spawn(args);
	if (ret < 0)
		return 1;
	if (ret == 2) {
		fputs(guest_usage, stderr);
		return 2;
	}
	if (ret) {
		error("guest build failed (exit %d)", ret);
		return 1;
	}
	return 0;
}

/* Exit status of run.sh passes through: 0 ok, 3 workload failed, 4 guest failed. */
static int guest_run(int argc, char **argv)
{
	char *args[argc + 2];
	int i, ret;

	args[0] = (char *)ft_path("guest-kernel/run.sh");
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	args[argc] = NULL;
	ret = ft_spawn(args);
	if (ret < 0)
		return 1;
	return ret;
}

int cmd_guest(int argc, char **argv)
{
	if (argc < 2) {
		fputs(guest_usage, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "build"))
		return guest_build(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return guest_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay")) {
		argv[1] = "foliotrace guest replay";	/* getopt's prefix, as main.c */
		return cmd_guest_replay(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "knob"))
		return guest_knob(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(guest_usage, stdout);
		return 0;
	}
	fprintf(stderr, "foliotrace guest: unknown subcommand '%s'\n", argv[1]);
	fputs(guest_usage, stderr);
	return 2;
}
