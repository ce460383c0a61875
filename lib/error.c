// SPDX-License-Identifier: GPL-2.0
/*
 * error.c - the cause chain behind fail()/error_print(); see error.h.
 *
 * A fixed-size chain: deep failures rarely have more than a handful of causes, and an error
 * path that itself needs to allocate is an error path that can fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/strbuf.h"

#define MAX_CAUSES 8
#define CAUSE_LEN 512

static char causes[MAX_CAUSES][CAUSE_LEN];	/* oldest first */
static int nr_causes;				/* entries used */
static char joined[MAX_CAUSES * (CAUSE_LEN + 2)];

/*
 * Copy msg into a cause with control characters escaped ("\n", "\t", "\r", "\xHH"), so a
 * spec or a path holding a newline still makes a one-line message.
 */
static void set_escaped(char *dst, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_escaped(&sb, msg);
	snprintf(dst, CAUSE_LEN, "%s", sb.buf);
	strbuf_release(&sb);
}

static void push(const char *fmt, va_list ap)
{
	char msg[CAUSE_LEN];

	if (nr_causes == MAX_CAUSES) {
		/* keep the newest context: drop the second oldest, the oldest is the root */
		memmove(causes[1], causes[2], (MAX_CAUSES - 2) * CAUSE_LEN);
		nr_causes--;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	set_escaped(causes[nr_causes++], msg);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push(fmt, ap);
	va_end(ap);
	return -1;
}

void *fail_null(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push(fmt, ap);
	va_end(ap);
	return NULL;
}

const char *error_text(void)
{
	size_t off = 0;
	int i;

	joined[0] = '\0';
	for (i = nr_causes - 1; i >= 0; i--) {
		off += snprintf(joined + off, sizeof(joined) - off, "%s%s", causes[i],
				i ? ": " : "");
		if (off >= sizeof(joined))
			break;
	}
	return joined;
}

const char *error_cause(int i)
{
	return i >= 0 && i < nr_causes ? causes[i] : NULL;
}

void error_print(const char *prog)
{
	fprintf(stderr, "%s: %s\n", prog, nr_causes ? error_text() : "unknown error");
	error_clear();
}

void error_clear(void)
{
	nr_causes = 0;
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push(fmt, ap);
	va_end(ap);
	error_print("foliotrace");
	exit(1);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	char msg[CAUSE_LEN], line[CAUSE_LEN];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_escaped(line, msg);
	fprintf(stderr, "foliotrace: warning: %s\n", line);
}
