// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-guest.c - foliotrace guest build|run: the guest kernel and runner.
 *
 *	foliotrace guest build [--arch x86_64|arm64]
 *	foliotrace guest rootfs [--arch arm64] [--packages LIST]...
 *	foliotrace guest run [--arch A] [--policy P] [--mem SIZE] [--cpus N] [--timeout S]
 *			     [--fragment SPEC] --out DIR -- CMD [ARG...]
 *	foliotrace guest replay DB --policy P [--arch A]	(cmd-guest-replay.c)
 *
 * build, rootfs and run are thin: the work is in guest-kernel/build.sh, rootfs.sh (through
 * vm/rootfs.c) and run.sh, which are
 * usable on their own; this file gives them the CLI's conventions (usage, --help exit 0,
 * exit status 0/1/2: run.sh's own statuses are mapped by vm/runner.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "vm/rootfs.h"
#include "vm/runner.h"
#include "vm/spawn.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/mech.h"
#include "replay/replay.h"

static const char guest_usage[] =
	"usage: foliotrace guest build [--arch x86_64|arm64] [--kernel 6.1|6.12]\n"
	"   or: foliotrace guest rootfs [--arch arm64] [--packages LIST]\n"
	"   or: foliotrace guest run [--arch A] [--policy P] [--mem SIZE] [--cpus N]\n"
	"                            [--timeout S] [--fragment SPEC] --out DIR -- CMD [ARG...]\n"
	"   or: foliotrace guest replay DB --policy P [--policy P...] [--arch A]\n"
	"   or: foliotrace guest knob [--kernel 6.1|6.12] P\n";

/* 1 if argv[1..] asks for help: --help/-h before any "--" */
static int wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	return 0;
}

/*
 * guest knob [--kernel K] P: what the guest runner sets for the policy P: on 6.1 the
 * orders written to /sys/kernel/mm/anon_folio/orders ("none", "2", "1,2,3,4"; "thp" for
 * the kernel's THP), on 6.12 the same orders, whose mTHP sizes are set `always`, and for a
 * spec with +mechanisms (6.12 only) one more line per knob of theirs ("NAME VALUE":
 * rp_mech_guest_knobs()). Exit 2 for a spec that does not parse, 1 for a policy the
 * kernel cannot run.
 */
static int guest_knob(int argc, char **argv)
{
	const char *kernel = NULL;
	struct rp_policy p;
	char knob[64], mech[256];

	if (argc == 4 && !strcmp(argv[1], "--kernel")) {
		kernel = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || (kernel && strcmp(kernel, "6.1") && strcmp(kernel, "6.12"))) {
		fputs(guest_usage, stderr);
		return 2;
	}
	if (rp_policy_parse(argv[1], &p)) {
		error_print("foliotrace");
		return 2;
	}
	if (rp_policy_kernel_knob(&p, kernel, knob, sizeof(knob)) ||
	    (rp_mech_any(&p.mech) && rp_mech_guest_knobs(&p.mech, mech, sizeof(mech))))
		return 1;
	printf("%s\n%s", knob, rp_mech_any(&p.mech) ? mech : "");
	return 0;
}

static int guest_build(int argc, char **argv)
{
	char *args[7] = { (char *)vm_path("guest-kernel/build.sh"), NULL };
	int i, n = 1, ret;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--arch") || !strcmp(argv[i], "--kernel")) && i + 1 < argc &&
		    n + 2 < 7) {
			args[n++] = argv[i];
			args[n++] = argv[++i];
		} else {
			fputs(guest_usage, stderr);
			return 2;
		}
	}
	ret = vm_spawn(args);
	if (ret < 0)
		return 1;
	if (ret == 2) {
		fputs(guest_usage, stderr);
		return 2;
	}
	if (ret) {
		fail("guest build failed (exit %d)", ret);
		return 1;
	}
	return 0;
}

/*
 * guest rootfs: build (or find) the Debian root `record --arch A` runs programs of a
 * foreign arch in, with the default packages and each --packages LIST (names separated
 * by commas or spaces); prints the root's directory.
 */
static int guest_rootfs(int argc, char **argv)
{
	struct strbuf pkgs = STRBUF_INIT, dir = STRBUF_INIT;
	const char *arch = "arm64";
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
			arch = argv[++i];
		} else if (!strcmp(argv[i], "--packages") && i + 1 < argc) {
			strbuf_addf(&pkgs, "%s%s", pkgs.len ? "," : "", argv[++i]);
		} else {
			strbuf_release(&pkgs);
			fputs(guest_usage, stderr);
			return 2;
		}
	}
	ret = vm_rootfs(arch, pkgs.len ? pkgs.buf : NULL, &dir);
	strbuf_release(&pkgs);
	if (ret == 2) {
		error_print("foliotrace guest rootfs");
		fputs(guest_usage, stderr);
	} else if (!ret) {
		printf("%s\n", dir.buf);
	}
	strbuf_release(&dir);
	return ret;
}

/* run.sh with the user's arguments; its exit status mapped by vm_runner_status(). */
static int guest_run(int argc, char **argv)
{
	const char *out = NULL;
	int i, rc;

	for (i = 1; i + 1 < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--out"))
			out = argv[i + 1];
	rc = vm_runner_run_argv(argc, argv);
	if (rc < 0)
		return 1;
	rc = vm_runner_status(rc, out, 1);
	if (rc == 2) {
		error_clear();
		fputs(guest_usage, stderr);
	}
	return rc;
}

int cmd_guest(int argc, char **argv)
{
	if (argc < 2) {
		fputs(guest_usage, stderr);
		return 2;
	}
	/* guest replay has its own --help */
	if (strcmp(argv[1], "replay") && wants_help(argc, argv)) {
		fputs(guest_usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "build"))
		return guest_build(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rootfs"))
		return guest_rootfs(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return guest_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay")) {
		argv[1] = "foliotrace guest replay";	/* getopt's prefix, as main.c */
		return cmd_guest_replay(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "knob"))
		return guest_knob(argc - 1, argv + 1);
	fail("unknown subcommand '%s'", argv[1]);	/* escaped: one line */
	error_print("foliotrace guest");
	fputs(guest_usage, stderr);
	return 2;
}
