// SPDX-License-Identifier: GPL-2.0
/* guest-progress.c - a guest run's progress read from its share; see guest-progress.h. */
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/guest-progress.h"
#include "lib/strbuf.h"

static uint64_t tree_bytes;	/* nftw() has no argument: the sum of one walk (not reentrant) */

static int add_file(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	if (flag == FTW_F && S_ISREG(st->st_mode))
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

static int has(const char *out, const char *rel)
{
	struct strbuf p = STRBUF_INIT;
	int r;

	strbuf_addf(&p, "%s/%s", out, rel);
	r = !access(p.buf, F_OK);
	strbuf_release(&p);
	return r;
}

void vm_guest_progress_read(const char *out, struct vm_guest_progress *p)
{
	struct strbuf trace = STRBUF_INIT;

	if (has(out, "header/buddyinfo.after"))
		p->state = "tracing stopped";
	else if (has(out, "header/started"))
		p->state = "running";
	else if (has(out, "console.log"))
		p->state = "booting";
	else
		p->state = "starting";
	tree_bytes = 0;
	strbuf_addf(&trace, "%s/trace", out);
	/* a file LTTng renames or removes under the walk is skipped, never an error */
	nftw(trace.buf, add_file, 16, FTW_PHYS);
	p->trace_bytes = tree_bytes;
	strbuf_release(&trace);
}
