// SPDX-License-Identifier: GPL-2.0
/* progress.c - the progress line of long steps; see progress.h. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/progress.h"
#include "lib/fmt.h"
#include "vm/guest-progress.h"

#define PROGRESS_MS	250	/* default interval between lines, ms */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_start(struct cli_progress *p, const char *cmd, const char *unit, int quiet)
{
	const char *env = getenv("FT_PROGRESS_MS");

	p->cmd = cmd;
	p->unit = unit;
	p->on = !quiet && isatty(2);
	p->shown = 0;
	p->t0 = p->last = now_s();
	p->every = (env && *env ? atof(env) : PROGRESS_MS) / 1000;
	p->done = p->total = 0;
}

static void show(struct cli_progress *p, double t, const char *tail)
{
	/* \033[K clears what a longer previous line left on the right */
	if (p->total)
		fprintf(stderr, "\rfoliotrace %s: %llu of %llu %s (%.0f%%), %.1f s%s\033[K",
			p->cmd, (unsigned long long)p->done, (unsigned long long)p->total,
			p->unit, 100.0 * (double)p->done / (double)p->total, t - p->t0, tail);
	else
		fprintf(stderr, "\rfoliotrace %s: %llu %s, %.1f s%s\033[K", p->cmd,
			(unsigned long long)p->done, p->unit, t - p->t0, tail);
	fflush(stderr);
	p->shown = 1;
	p->last = t;
}

void cli_progress_update(struct cli_progress *p, uint64_t done, uint64_t total)
{
	double t;

	p->done = done;
	p->total = total;
	if (!p->on)
		return;
	t = now_s();
	if (t - p->last >= p->every)
		show(p, t, "");
}

void cli_progress_end(struct cli_progress *p)
{
	if (!p->on || !p->shown)
		return;
	show(p, now_s(), ", done");
	fputc('\n', stderr);
	p->shown = 0;
}

/* erase the line on the terminal, if one is there */
static void erase(struct cli_progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	p->shown = 0;
}

static void guest_line(void *arg, const char *line)
{
	struct cli_progress *p = arg;

	erase(p);
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

static void guest_progress(void *arg, const struct vm_guest_progress *g)
{
	struct cli_progress *p = arg;
	char bytes[32];

	if (g->exited) {
		erase(p);
		fflush(stderr);
		return;
	}
	fmt_bytes(bytes, sizeof(bytes), g->trace_bytes);
	fprintf(stderr, "\rfoliotrace %s: guest %.0f s, %s, trace %s\033[K", p->cmd,
		g->elapsed_s, g->state, bytes);
	fflush(stderr);
	p->shown = 1;
}

const struct vm_guest_watch *cli_progress_guest(struct cli_progress *p,
						struct vm_guest_watch *w)
{
	if (!p->on)
		return NULL;
	w->progress = guest_progress;
	w->line = guest_line;
	w->arg = p;
	return w;
}
