// SPDX-License-Identifier: GPL-2.0
/*
 * filter.c - the replay_run.filter codec; see filter.h. The pid, when present, is always
 * the last field, so a command name holding spaces (or " pid=") still reads back whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/filter.h"

void rp_filter_set(struct rp_filter *f, const char *comm, int64_t pid)
{
	memset(f, 0, sizeof(*f));
	if (comm) {
		snprintf(f->comm, sizeof(f->comm), "%s", comm);
		f->has_comm = 1;
	}
	f->pid = pid >= 0 ? pid : -1;
}

void rp_filter_format(const struct rp_filter *f, char *buf, size_t len)
{
	if (f->has_comm && f->pid >= 0)
		snprintf(buf, len, "comm=%s pid=%lld", f->comm, (long long)f->pid);
	else if (f->has_comm)
		snprintf(buf, len, "comm=%s", f->comm);
	else if (f->pid >= 0)
		snprintf(buf, len, "pid=%lld", (long long)f->pid);
	else if (len)
		buf[0] = '\0';
}

/* A whole non-negative decimal number; Return: 0, or -1. */
static int parse_pid(const char *s, int64_t *pid)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*pid = v;
	return 0;
}

int rp_filter_parse(const char *text, struct rp_filter *f)
{
	const char *whole = text, *p;
	size_t n;

	rp_filter_set(f, NULL, -1);
	if (!text || !*text)
		return 0;
	if (!strncmp(text, "pid=", 4)) {
		if (parse_pid(text + 4, &f->pid))
			goto bad;
		return 0;
	}
	if (strncmp(text, "comm=", 5))
		goto bad;
	text += 5;
	n = strlen(text);
	/* the last " pid=" followed by a number and nothing else ends the name */
	for (p = text + n; p > text; p--) {
		if (!strncmp(p - 1, " pid=", 5) && !parse_pid(p + 4, &f->pid)) {
			n = (size_t)(p - 1 - text);
			break;
		}
	}
	if (n >= sizeof(f->comm))
		goto bad;
	memcpy(f->comm, text, n);
	f->comm[n] = '\0';
	f->has_comm = 1;
	return 0;
bad:
	rp_filter_set(f, NULL, -1);
	return fail("bad replay filter '%.80s'", whole);
}

int rp_filter_equal(const struct rp_filter *a, const struct rp_filter *b)
{
	return a->has_comm == b->has_comm && a->pid == b->pid &&
	       (!a->has_comm || !strcmp(a->comm, b->comm));
}

int rp_filter_selects(const struct rp_filter *f, const char *comm, int64_t pid,
		      int workload, int marked)
{
	if (f->has_comm && strcmp(comm, f->comm))
		return 0;
	if (f->pid >= 0 && pid != f->pid)
		return 0;
	/* no selection: the workload's processes when the trace marks them, else all */
	return f->has_comm || f->pid >= 0 || workload == 1 || !marked;
}
