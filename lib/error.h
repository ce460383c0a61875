/* SPDX-License-Identifier: GPL-2.0 */
/*
 * error.h - error reporting with causes, for library code that must not exit.
 *
 * Library code (lib/, db/, tracer/, replay/) reports a failure with
 *	return fail("cannot open %s: %s", path, sqlite3_errmsg(db));
 * which records the message as the newest cause and returns -1. A caller that adds context
 * calls fail() again; the CLI prints the chain once, newest first, joined by ": " on one
 * line, and exits 1. Only cli/ calls die() or exit().
 *
 * Messages are lowercase, without a final full stop, the problem first. Control characters
 * in a message (a newline in a path or a policy spec) are stored escaped ("\n", "\x1b"):
 * a message is always one line.
 */
#ifndef FT_LIB_ERROR_H
#define FT_LIB_ERROR_H

#include <stdarg.h>

/* Record a cause and return -1. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, returning NULL for pointer-returning functions. */
void *fail_null(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the chain to stderr as one line "foliotrace: newest: ...: oldest" and clear it. */
void error_print(const char *prog);
/* Forget the recorded causes (after a failure that was handled). */
void error_clear(void);
/* The chain as one line (static buffer, valid until the next error call). */
const char *error_text(void);
/* Cause i of the chain, oldest (the root) first; NULL past the newest. */
const char *error_cause(int i);
/* Print "prog: message" and exit(1). CLI only. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "warning: message" to stderr; never fails. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FT_LIB_ERROR_H */
