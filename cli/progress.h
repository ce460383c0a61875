/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - a progress line for long steps (ingest, replay), on stderr, only when stderr
 * is a terminal and the command was not given --quiet: one line rewritten in place with
 * '\r' at most every FT_PROGRESS_MS milliseconds (environment, default 250; 0 for every
 * update: tests), ended with ", done" and a newline. Nothing at all is written otherwise,
 * and nothing for a step shorter than the interval. The libraries report progress through
 * callbacks (ft_ingest_opts.progress, rp_run_opts.progress); only cli/ prints.
 */
#ifndef FT_CLI_PROGRESS_H
#define FT_CLI_PROGRESS_H

#include <stdint.h>

struct cli_progress {
	const char *cmd;		/* subcommand: "foliotrace CMD: ..." */
	const char *unit;		/* what is counted: "events" */
	int on;				/* stderr is a terminal, no --quiet */
	int shown;			/* a line is on the terminal */
	double t0;			/* s (monotonic clock) at the start */
	double last;			/* s at the last line written */
	double every;			/* s between lines */
	uint64_t done, total;		/* last values seen; total 0 = unknown */
};

void cli_progress_start(struct cli_progress *p, const char *cmd, const char *unit, int quiet);
/* done of total units so far (total 0: unknown); prints when the interval has passed. */
void cli_progress_update(struct cli_progress *p, uint64_t done, uint64_t total);
/* The step ended: the last line with ", done" if a line was shown. */
void cli_progress_end(struct cli_progress *p);

/*
 * A guest run (record, guest replay): after cli_progress_start(), cli_progress_guest()
 * fills w so the line follows the guest (vm/guest-progress.h), "foliotrace CMD: guest
 * 41 s, running, trace 3.1M", rewritten every second, with run.sh's own lines printed
 * above it, and erased when run.sh exits. Return: w, or NULL when the line is off (no
 * terminal, --quiet): run.sh's stderr then stays the terminal's, as without a line.
 */
struct vm_guest_watch;
const struct vm_guest_watch *cli_progress_guest(struct cli_progress *p,
						struct vm_guest_watch *w);

#endif /* FT_CLI_PROGRESS_H */
