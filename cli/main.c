// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the foliotrace dispatcher: one table row per subcommand.
 *
 * Exit status: 0 success, 1 failure (one line on stderr), 2 usage error. After a command
 * returns, stdout is flushed and checked so a full disk or a closed pipe is not a silent
 * success.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "lib/error.h"
#include "vm/spawn.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "guest", cmd_guest, "build guest kernels, run or replay in a guest" },
	{ "record", cmd_record, "record a workload in a guest into a trace database" },
	{ "ingest", cmd_ingest, "store a CTF trace in a trace database" },
	{ "query", cmd_query, "query a trace database" },
	{ "replay", cmd_replay, "replay recorded faults against order policies (offline)" },
	{ "compare", cmd_compare, "compare replayed policies side by side" },
	{ "report", cmd_report, "write an HTML report with charts" },
	{ "calibrate", cmd_calibrate, "fit fault costs to recorded latencies (cost model)" },
	{ "advise", cmd_advise, "per-site folio orders within a bloat budget (persite policy)" },
	{ NULL, NULL, NULL }
};

/* The source tree (or install prefix) is the parent of the directory holding the binary. */
static void find_home(const char *argv0)
{
	const char *env = getenv("FOLIOTRACE_HOME");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		vm_set_home(env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return;		/* vm_home() stays "." */
	self[n] = '\0';
	vm_set_home(dirname(dirname(self)));
}

static void usage(FILE *out)
{
	const struct command *c;

	fprintf(out, "usage: foliotrace <command> [options]\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "   %-9s %s\n", c->name, c->summary);
	fprintf(out, "\nSee foliotrace(1) and foliotrace-<command>(1).\n");
}

int main(int argc, char **argv)
{
	const struct command *c;
	char prog[64];
	int ret;

	find_home(argv[0]);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("foliotrace %s\n", FT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--list-commands")) {
		for (c = commands; c->name; c++)
			printf("%s\n", c->name);
		return 0;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			break;
	if (!c->name) {
		fail("unknown command '%s'", argv[1]);	/* escaped: one line */
		error_print("foliotrace");
		usage(stderr);
		return 2;
	}
	/* getopt names the program by argv[0]: its messages read "foliotrace ingest: ..." */
	snprintf(prog, sizeof(prog), "foliotrace %s", c->name);
	argv[1] = prog;
	ret = c->fn(argc - 1, argv + 1);
	if (ret == 1)
		error_print("foliotrace");
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "foliotrace: cannot write output: %s\n", strerror(errno));
		return 1;
	}
	return ret;
}
