// SPDX-License-Identifier: GPL-2.0
/*
 * clockres - the guest clock's effective resolution.
 *
 * Fault latencies (anon_fault latency_ns) and LTTng timestamps are only as fine as the
 * guest clocksource: under TCG a jiffies or badly emulated clock ticks in milliseconds,
 * and every short fault would read 0 ns. This reads CLOCK_MONOTONIC back to back and
 * reports the smallest non-zero step between consecutive readings and how many distinct
 * values it saw, next to the clocksource the kernel uses (tsc expected on x86_64,
 * arch_sys_counter on arm64), so the guest tests can refuse a trace whose latencies would
 * be meaningless.
 */
#include "wl-common.h"

#include <getopt.h>
#include <time.h>

static const char usage[] = "[--samples N (default 100000)]";

#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Return: the current clocksource's name in @buf, or "unknown" if it cannot be read. */
static const char *clocksource(char *buf, size_t len)
{
	FILE *f = fopen(CLOCKSOURCE, "r");

	if (!f || !fgets(buf, (int)len, f) || !buf[0] || buf[0] == '\n') {
		snprintf(buf, len, "unknown");
	}
	buf[strcspn(buf, " \n")] = '\0'; /* one word: keeps the result line parseable */
	if (f) {
		fclose(f);
	}
	return buf;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t samples = 100000, i, prev, cur, first, min_delta = 0, distinct = 1;
	uint64_t max_delta = 0;
	struct timespec res;
	char cs[64];
	int c;

	wl_prog = "clockres";
	while ((c = wl_getopt(argc, argv, opts, usage, 0)) != -1) {
		switch (c) {
		case 'n':
			samples = wl_opt_u64("--samples", optarg);
			break;
		}
	}
	if (samples < 2) {
		wl_error("--samples must be at least 2");
		exit(2);
	}
	if (clock_getres(CLOCK_MONOTONIC, &res)) {
		wl_die("clock_getres: %s", strerror(errno));
	}

	/* CLOCK_MONOTONIC never goes back, so each change between consecutive readings is a
	 * new distinct value. */
	first = prev = now_ns();
	for (i = 1; i < samples; i++, prev = cur) {
		uint64_t d;

		cur = now_ns();
		d = cur - prev;
		if (d == 0) {
			continue;
		}
		distinct++;
		if (min_delta == 0 || d < min_delta) {
			min_delta = d;
		}
		if (d > max_delta) {
			max_delta = d;
		}
	}

	/* min_delta_ns=0 means the clock never moved during the run. */
	if (wl_result("clocksource=%s min_delta_ns=%" PRIu64 " max_delta_ns=%" PRIu64
		      " distinct=%" PRIu64 " samples=%" PRIu64 " span_ns=%" PRIu64
		      " getres_ns=%ld status=0",
		      clocksource(cs, sizeof(cs)), min_delta, max_delta, distinct, samples,
		      prev - first, (long)res.tv_sec * 1000000000L + res.tv_nsec)) {
		exit(1);
	}
	return 0;
}
