// SPDX-License-Identifier: GPL-2.0
/*
 * sitefile.c - the side file parser (tracer/sitefile.c, format in tracer/sitefile.h): a
 * table of files it must refuse, each with the error it must give (every field count one
 * below and one above, every truncation: a cut last line, frames cut off, numbers cut or
 * past 64 bits, a version it does not know), a table of files it must take with what they
 * hold, then one file read field by field: times with the offset, arguments, frames,
 * stacks shared by text, the records and the processes named, in order. Since issue 23:
 * NUL bytes, signs and blanks before numbers, ids past an int and times past the int64
 * trace clock with the offset are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"
#include "tracer/sitefile.h"

#define V2	"V\t2\t77\n"
#define V1	"V\t1\t77\n"
/* a call of version 2 with one frame, at ns 100 */
#define ARGS	"0\t1000\t3\t22\tffffffffffffffff\t0"
#define CALL2	"C\t100\t10\t11\tmmap\t" ARGS "\t-\t1\tok\n"
#define FRAME	"F\t401000\t/usr/bin/w\t1000\tmain\t10\n"

static const struct bad {
	const char *what, *text, *msg;
} bad[] = {
	{ "an empty file", "", "not a call-site side file of version 1 or 2" },
	{ "the version line cut (no newline)", "V\t2\t77", "not a call-site side file" },
	{ "version 3", "V\t3\t77\n", "not a call-site side file" },
	{ "version 0", "V\t0\t77\n", "not a call-site side file" },
	{ "a version without its tab", "V\t2\n", "not a call-site side file" },
	{ "no version line first", CALL2 FRAME V2, "not a call-site side file" },
	{ "a call line of 13 fields", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t0\n",
	  "malformed call line 2" },
	{ "a call line of 15 fields", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t0\tok\tx\n",
	  "malformed call line 2" },
	{ "NFRAMES beyond the file", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t2\tok\n" FRAME,
	  "malformed call line 2" },
	{ "the call's last frame cut (no newline)", V2 CALL2 "F\t401000\t/usr/bin/w\t1000",
	  "malformed call line 2" },
	{ "NFRAMES not a number", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t-\tone\tok\n",
	  "malformed call line 2" },
	{ "TS empty", V2 "C\t\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", "malformed call line 2" },
	{ "TS with a trailing character", V2 "C\t100x\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n",
	  "malformed call line 2" },
	{ "TS past 64 bits", V2 "C\t18446744073709551616\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n",
	  "malformed call line 2" },
	{ "PID not decimal", V2 "C\t100\t0x10\t11\tmmap\t" ARGS "\t-\t0\tok\n",
	  "malformed call line 2" },
	{ "TID empty", V2 "C\t100\t10\t\tmmap\t" ARGS "\t-\t0\tok\n", "malformed call line 2" },
	{ "an argument not hex", V2 "C\t100\t10\t11\tmmap\t0\t1000\tzz\t22\t0\t0\t-\t0\tok\n",
	  "malformed call line 2" },
	{ "an argument past 64 bits",
	  V2 "C\t100\t10\t11\tmmap\t0\t1000\t3\t22\t10000000000000000\t0\t-\t0\tok\n",
	  "malformed call line 2" },
	{ "version 2 with a result", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t0\t0\tok\n",
	  "malformed call line 2" },
	{ "version 1 without a result", V1 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n",
	  "malformed call line 2" },
	{ "version 1, a result past 64 bits",
	  V1 "C\t100\t10\t11\tmmap\t" ARGS "\t-9223372036854775809\t0\tok\n",
	  "malformed call line 2" },
	{ "a frame line of 5 fields", V2 CALL2 "F\t401000\t/usr/bin/w\t1000\tmain\n",
	  "malformed frame line 3" },
	{ "a frame line of 7 fields", V2 CALL2 "F\t401000\t/usr/bin/w\t1000\tmain\t10\tx\n",
	  "malformed frame line 3" },
	{ "a frame line that is not F", V2 CALL2 "G\t401000\t/usr/bin/w\t1000\tmain\t10\n",
	  "malformed frame line 3" },
	{ "a frame IP not hex", V2 CALL2 "F\tzz\t/usr/bin/w\t1000\tmain\t10\n",
	  "malformed frame line 3" },
	{ "a frame PROC_OFFSET empty", V2 CALL2 "F\t401000\t/usr/bin/w\t1000\tmain\t\n",
	  "malformed frame line 3" },
	{ "a fork line of 4 fields", V2 "K\t100\t10\t12\n", "malformed fork line 2" },
	{ "a fork line of 6 fields", V2 "K\t100\t10\t12\tfork\tx\n", "malformed fork line 2" },
	{ "a fork's child not a number", V2 "K\t100\t10\tc\tfork\n", "malformed fork line 2" },
	{ "an exec line of 3 fields", V2 "X\t100\t10\n", "malformed exec line 2" },
	{ "an exec line of 5 fields", V2 "X\t100\t10\texec\tx\n", "malformed exec line 2" },
	{ "an exec's TS past 64 bits", V2 "X\t99999999999999999999\t10\texec\n",
	  "malformed exec line 2" },
	{ "an unknown record", V2 "Q\t100\n", "malformed line 2: unknown record 'Q'" },
	{ "an empty line", V2 "\n", "malformed line 2: unknown record" },
	{ "time going backwards (call, then fork)", V2 CALL2 FRAME "K\t99\t10\t12\tfork\n",
	  "line 4: time goes backwards" },
	{ "time going backwards (exec, then call: the call's last frame line is named)",
	  V2 "X\t101\t10\texec\n" CALL2 FRAME, "line 4: time goes backwards" },
};

/*
 * Damage that was taken before issue 23 (item 9): NUL bytes, signs and blanks before
 * numbers, ids past an int, times past the trace clock's int64 once the offset is added.
 */
#define NULS(t)	t, sizeof(t) - 1	/* a text that holds NUL bytes, and its length */

static const struct damaged {
	const char *what, *text;
	size_t len;		/* bytes of text (it may hold NULs); 0: strlen(text) */
	uint64_t offset;	/* ns added to the times */
	const char *msg;
} damaged[] = {
	{ "a NUL byte after the V line", NULS(V2 "\0" CALL2 FRAME), 0,
	  "malformed line 2: a NUL byte" },
	{ "a NUL byte inside a frame line", NULS(V2 CALL2 "F\t401000\t/usr/\0bin\t1\tm\t0\n"), 0,
	  "malformed line 3: a NUL byte" },
	{ "a NUL byte in the version line", NULS("V\t2\0\t77\n" CALL2 FRAME), 0,
	  "malformed line 1: a NUL byte" },
	{ "TS 2^64-1", V2 "C\t18446744073709551615\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2: time 18446744073709551615 past 9223372036854775807 ns" },
	{ "TS 2^63-1 with an offset of 1 ns",
	  V2 "C\t9223372036854775807\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 1,
	  "malformed call line 2: time 9223372036854775807 past" },
	{ "TS that wraps with the offset (2^64-1000 + 1000)",
	  V2 "C\t18446744073709550616\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 1000,
	  "malformed call line 2: time 18446744073709550616 past" },
	{ "a fork's TS that wraps with the offset",
	  V2 "K\t18446744073709551615\t10\t12\tfork\n", 0, 1,
	  "malformed fork line 2: time 18446744073709551615 past" },
	{ "an exec's TS that wraps with the offset", V2 "X\t9223372036854775800\t10\texec\n", 0, 8,
	  "malformed exec line 2: time 9223372036854775800 past" },
	{ "TS -5", V2 "C\t-5\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "TS with a leading blank", V2 "C\t 5\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "TS +5", V2 "C\t+5\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "PID -5", V2 "C\t100\t-5\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "NFRAMES -1", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t-1\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "an argument -5", V2 "C\t100\t10\t11\tmmap\t-5\t1000\t3\t22\t0\t0\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "an argument with 0x",
	  V2 "C\t100\t10\t11\tmmap\t0x5\t1000\t3\t22\t0\t0\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "version 1, a result +5", V1 "C\t100\t10\t11\tmmap\t" ARGS "\t+5\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "version 1, a result -", V1 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2" },
	{ "a frame IP -5", V2 CALL2 "F\t-5\t/usr/bin/w\t1000\tmain\t10\n", 0, 0,
	  "malformed frame line 3" },
	{ "a fork's child -5", V2 "K\t100\t10\t-5\tfork\n", 0, 0,
	  "malformed fork line 2" },
	{ "an exec's TS -5", V2 "X\t-5\t10\texec\n", 0, 0,
	  "malformed exec line 2" },
	{ "PID 99999999999", V2 "C\t100\t99999999999\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2: PID 99999999999 past 2147483647" },
	{ "PID 2^31", V2 "C\t100\t2147483648\t11\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2: PID 2147483648 past 2147483647" },
	{ "TID 99999999999", V2 "C\t100\t10\t99999999999\tmmap\t" ARGS "\t-\t0\tok\n", 0, 0,
	  "malformed call line 2: TID 99999999999 past 2147483647" },
	{ "a fork's PID 99999999999", V2 "K\t100\t99999999999\t12\tfork\n", 0, 0,
	  "malformed fork line 2: PID 99999999999 past 2147483647" },
	{ "a fork's CHILD_PID 99999999999", V2 "K\t100\t10\t99999999999\tfork\n", 0, 0,
	  "malformed fork line 2: CHILD_PID 99999999999 past 2147483647" },
	{ "an exec's PID 99999999999", V2 "X\t100\t99999999999\texec\n", 0, 0,
	  "malformed exec line 2: PID 99999999999 past 2147483647" },
};

static const struct good {
	const char *what, *text;
	size_t calls, stacks, recs, pids;
} good[] = {
	{ "the version line alone", V2, 0, 0, 0, 0 },
	{ "version 1, a negative result", V1 "C\t100\t10\t11\tmmap\t" ARGS "\t-12\t0\tok\n",
	  1, 1, 1, 1 },
	{ "a call with no frame", V2 "C\t100\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n", 1, 1, 1, 1 },
	{ "a cut last line is no record", V2 CALL2 FRAME "C\t200\t10\t11\tmunmap\t0", 1, 1, 1, 1 },
	{ "a cut last line that would be malformed", V2 CALL2 FRAME "Q", 1, 1, 1, 1 },
	{ "an E line, whatever it holds and its time", V2 CALL2 FRAME "E\t0\tx\n", 1, 1, 1, 1 },
	{ "equal times", V2 CALL2 FRAME "K\t100\t10\t12\tfork\n" "X\t100\t12\texec\n", 1, 1, 3, 2 },
	{ "TS 2^63-1, the largest", V2 "C\t9223372036854775807\t10\t11\tmmap\t" ARGS
	  "\t-\t0\tok\n", 1, 1, 1, 1 },
	{ "PID and TID 2147483647, the largest", V2 "C\t100\t2147483647\t2147483647\tmmap\t"
	  ARGS "\t-\t0\tok\n", 1, 1, 1, 1 },
	{ "hex in capitals", V2 "C\t100\t10\t11\tmmap\t0\tABCDEF\t3\t22\t0\t0\t-\t0\tok\n",
	  1, 1, 1, 1 },
};

/*
 * One file, checked field by field: offset 1,000,000 ns; calls at 100 (pid 10, two
 * frames), 200 (pid 10, the same stack), 300 (pid 10, the same frames, another status),
 * a fork of pid 15 (never named otherwise) into 20 at 400, an exec of 30 at 500, a call of
 * 20 at 600 with a frame in no module and no symbol.
 */
static const char detail[] =
	V2
	"C\t100\t10\t11\tmmap\t0\t200000\t3\t22\tffffffffffffffff\t0\t-\t2\tok\n"
	"F\t7f0000001234\t/lib/libc.so.6\t1234\t__mmap\t13\n"
	"F\t401000\t/usr/bin/w\t1000\tmain\t10\n"
	"C\t200\t10\t12\tmunmap\tabc000\t1000\t0\t0\t0\t0\t-\t2\tok\n"
	"F\t7f0000001234\t/lib/libc.so.6\t1234\t__mmap\t13\n"
	"F\t401000\t/usr/bin/w\t1000\tmain\t10\n"
	"C\t300\t10\t11\tbrk\t0\t0\t0\t0\t0\t0\t-\t2\ttoo_deep\n"
	"F\t7f0000001234\t/lib/libc.so.6\t1234\t__mmap\t13\n"
	"F\t401000\t/usr/bin/w\t1000\tmain\t10\n"
	"K\t400\t15\t20\tfork\n"
	"X\t500\t30\texec\n"
	"C\t600\t20\t20\tmadvise\t1\t2\t3\t4\t5\t6\t-\t1\tbad_frame\n"
	"F\tdead\t-\t0\t-\t0\n"
	"E\t700\t10\t10\t0\tstops=4\n";

int main(void)
{
	const struct sitefile *g;
	struct sitefile f;
	const struct sf_stack *st;
	char *buf;
	size_t i;
	int good_fields;

	plan((int)(sizeof(bad) / sizeof(*bad) + sizeof(damaged) / sizeof(*damaged) +
		   sizeof(good) / sizeof(*good)) + 10);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int rc;

		memset(&f, 0, sizeof(f));
		buf = xstrdup(bad[i].text);
		rc = ft_sitefile_parse(&f, buf, strlen(buf), 0);
		if (!ok(rc < 0 && strstr(error_text(), bad[i].msg), "refused: %s", bad[i].what))
			diag("  rc %d, error '%s', want '%s'", rc, error_text(), bad[i].msg);
		error_clear();
		ft_sitefile_release(&f);
		free(buf);
	}
	for (i = 0; i < sizeof(damaged) / sizeof(*damaged); i++) {
		const struct damaged *d = &damaged[i];
		size_t len = d->len ? d->len : strlen(d->text);
		int rc;

		memset(&f, 0, sizeof(f));
		buf = xmalloc(len + 1);
		memcpy(buf, d->text, len + 1);
		rc = ft_sitefile_parse(&f, buf, len, d->offset);
		if (!ok(rc < 0 && strstr(error_text(), d->msg), "refused: %s", d->what))
			diag("  rc %d, error '%s', want '%s'", rc, error_text(), d->msg);
		error_clear();
		ft_sitefile_release(&f);
		free(buf);
	}
	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		int rc;

		memset(&f, 0, sizeof(f));
		buf = xstrdup(good[i].text);
		rc = ft_sitefile_parse(&f, buf, strlen(buf), 0);
		if (!ok(!rc && f.nr_calls == good[i].calls && f.nr_stacks == good[i].stacks &&
			f.nr_recs == good[i].recs && f.nr_pids == good[i].pids, "taken: %s",
			good[i].what))
			diag("  rc %d (%s), %zu calls, %zu stacks, %zu records, %zu pids", rc,
			     error_text(), f.nr_calls, f.nr_stacks, f.nr_recs, f.nr_pids);
		error_clear();
		ft_sitefile_release(&f);
		free(buf);
	}

	/* a NUL in the cut last line is no more read than the rest of it */
	{
		static const char cut[] = V2 CALL2 FRAME "C\t200\0\0\0";
		int rc;

		memset(&f, 0, sizeof(f));
		buf = xmalloc(sizeof(cut));
		memcpy(buf, cut, sizeof(cut));
		rc = ft_sitefile_parse(&f, buf, sizeof(cut) - 1, 0);
		ok(!rc && f.nr_calls == 1, "taken: a NUL byte in a cut last line (rc %d)", rc);
		error_clear();
		ft_sitefile_release(&f);
		free(buf);
	}
	/* the offset brings a time to exactly 2^63-1 */
	{
		char *t = xstrdup(V2 "C\t9223372036854775000\t10\t11\tmmap\t" ARGS "\t-\t0\tok\n");

		memset(&f, 0, sizeof(f));
		ok(!ft_sitefile_parse(&f, t, strlen(t), 807) && f.nr_calls == 1 &&
		   f.calls[0].ts == INT64_MAX, "taken: a time of 2^63-1 with the offset");
		error_clear();
		ft_sitefile_release(&f);
		free(t);
	}

	memset(&f, 0, sizeof(f));
	buf = xstrdup(detail);
	ok(!ft_sitefile_parse(&f, buf, strlen(buf), 1000000) && f.version == 2 && f.nr_calls == 4 &&
	   f.nr_recs == 6, "the detailed file: version 2, 4 calls, 6 records");
	g = &f;
	ok(g->calls[0].ts == 1000100 && g->calls[0].entry == 1000100 &&
	   g->calls[3].ts == 1000600 && g->recs[3].ts == 1000400 && g->recs[4].ts == 1000500,
	   "the offset is added to every time (calls' ts and entry, forks, execs)");
	ok(g->calls[0].pid == 10 && g->calls[0].tid == 11 && !strcmp(g->calls[0].name, "mmap") &&
	   g->calls[0].arg[1] == 0x200000 && g->calls[0].arg[3] == 0x22 &&
	   g->calls[0].arg[4] == UINT64_MAX && g->calls[1].arg[0] == 0xabc000 &&
	   g->calls[1].tid == 12 && g->calls[3].arg[5] == 6 && g->calls[0].result == 0,
	   "a call's fields: pid, tid, name, the six arguments in hex");
	ok(f.nr_stacks == 3 && g->calls[0].stack == 0 && g->calls[1].stack == 0 &&
	   g->calls[2].stack == 1 && g->calls[3].stack == 2,
	   "stacks are shared by their text: same frames and status one stack, another "
	   "status another");
	st = &f.stacks[0];
	good_fields = st->nr_frames == 2 && !strcmp(st->status, "ok") &&
		      st->frames[0].ip == 0x7f0000001234 &&
		      !strcmp(st->frames[0].module, "/lib/libc.so.6") &&
		      st->frames[0].module_offset == 0x1234 &&
		      !strcmp(st->frames[0].proc, "__mmap") && st->frames[0].proc_offset == 0x13 &&
		      !strcmp(st->frames[1].proc, "main");
	ok(good_fields, "a stack's frames, innermost first, addresses and offsets in hex");
	st = &f.stacks[2];
	ok(st->nr_frames == 1 && !st->frames[0].module && !st->frames[0].proc &&
	   st->frames[0].ip == 0xdead && !strcmp(st->status, "bad_frame"),
	   "\"-\" for MODULE and PROC: no file mapping, no symbol");
	ok(g->recs[0].type == 'C' && g->recs[0].call == 0 && g->recs[2].call == 2 &&
	   g->recs[3].type == 'K' && g->recs[3].pid == 15 && g->recs[3].child == 20 &&
	   g->recs[4].type == 'X' && g->recs[4].pid == 30 && g->recs[5].call == 3 &&
	   g->recs[5].line == 5, "the records in file order: calls, the fork, the exec");
	ok(f.nr_pids == 3 && f.pids[0] == 10 && f.pids[1] == 20 && f.pids[2] == 30,
	   "the processes named, in order of first appearance (a fork's parent is not named)");
	ft_sitefile_release(&f);
	free(buf);
	return done_testing();
}
