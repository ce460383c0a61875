/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - minimal TAP producer for the C unit tests (header only).
 *
 *	plan(3); ok(x == 1, "x is one"); ... return done_testing();
 *
 * The plan is a contract: done_testing() fails (returns 1, with a diagnostic) when no plan
 * was declared or when the number of ok() calls differs from it, so a test that stops
 * early or skips a loop cannot pass. tests/run.sh checks the same on the TAP stream.
 */
#ifndef FT_TAP_H
#define FT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;
static int tap_plan = -1;	/* declared number of tests; -1: plan() not called yet */

static inline void plan(int n)
{
	tap_plan = n;
	printf("1..%d\n", n);
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

__attribute__((format(printf, 2, 3)))
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	return cond;
}

#define is_int(got, want, ...)                                                          \
	({                                                                              \
		long long _g = (long long)(got), _w = (long long)(want);                \
		int _r = ok(_g == _w, __VA_ARGS__);                                     \
		if (!_r)                                                                \
			diag("  got %lld, want %lld", _g, _w);                          \
		_r;                                                                     \
	})

static inline int done_testing(void)
{
	if (tap_plan < 0) {
		diag("no plan declared (%d tests ran)", tap_n);
		return 1;
	}
	if (tap_n != tap_plan) {
		diag("planned %d tests but ran %d", tap_plan, tap_n);
		return 1;
	}
	return tap_failed ? 1 : 0;
}

#endif /* FT_TAP_H */
