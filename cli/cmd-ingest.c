// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-ingest.c - foliotrace ingest: store a CTF trace in a trace database.
 *
 * Parses the command line, calls ft_ingest() (tracer/ingest.h: the checks, babeltrace2 in a
 * watched child process, the cleanup after a failure) and prints the outcome.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "cli/progress.h"
#include "lib/error.h"
#include "lib/outfile.h"
#include "tracer/ingest.h"

static const char usage_text[] =
	"usage: foliotrace ingest [--allow-partial] -o DB CTF_DIR\n"
	"\n"
	"Store the CTF trace found under CTF_DIR (and CTF_DIR/header/) in the trace database\n"
	"DB, created if missing. A trace already stored (same CTF UUID) is not stored again.\n"
	"A damaged trace is refused, and so is one missing per-CPU streams unless\n"
	"--allow-partial is given.\n"
	"\n"
	"    -o, --output DB     trace database to write\n"
	"    -P, --allow-partial store a trace missing streams, marked partial\n"
	"    -q, --quiet         print nothing on success (and no progress line on a\n"
	"                        terminal)\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "allow-partial", no_argument, NULL, 'P' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void on_progress(uint64_t events, void *arg)
{
	cli_progress_update(arg, events, 0);
}

int cmd_ingest(int argc, char **argv)
{
	struct ft_ingest_opts o = { .warn = cli_warn };
	struct ft_ingest_result res;
	struct cli_progress pr;
	int c, quiet = 0, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:Pqh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.db = optarg;
			break;
		case 'P':
			o.allow_partial = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (!o.db || optind != argc - 1)
		return cli_usage_error("ingest", usage_text,
				       !o.db ? "missing -o DB" : "expected one CTF_DIR");
	o.dir = argv[optind];
	outfile_input(o.dir);	/* ft_ingest()'s check of -o DB refuses a file of the trace */
	cli_progress_start(&pr, "ingest", "events read", quiet);
	o.progress = on_progress;
	o.progress_arg = &pr;
	rc = ft_ingest(&o, &res);
	if (!rc)
		cli_progress_update(&pr, res.events, 0);
	cli_progress_end(&pr);
	if (rc)
		return 1;
	if (res.missing && !res.duplicate)
		warning("%s is incomplete (streams missing: %u): stored marked partial", o.dir,
			res.missing);
	if (quiet)
		return 0;
	if (res.duplicate)
		printf("%s: already stored as trace %lld\n", o.dir, (long long)res.trace_id);
	else
		printf("%s: stored as trace %lld: %llu events, %llu anon records, %.2f s\n", o.dir,
		       (long long)res.trace_id, (unsigned long long)res.events,
		       (unsigned long long)res.anon_records, res.seconds);
	return 0;
}
