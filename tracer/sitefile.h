/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sitefile.h - the one reader of the call-site tracer's side file (sites.txt, written by
 * tracer/guest/ft-sites.c; docs/sites.md). Parses only: pairing a version 2 file's calls
 * with the trace's exits (sites-pair.c), the address maps (sites-owner.c) and the tables
 * (db/sites.h) come after.
 *
 * The format: text, one record a line, each line ended by '\n', fields separated by one
 * tab. A last line without its '\n' is not a record (the guest died while writing it) and
 * is ignored, whatever it holds. The first line is the version; then, in time order:
 *
 *	| record | fields, tab-separated                                   | fields     |
 *	| V      | V, VERSION (1 or 2), the tracer's pid (not read)       | first line |
 *	| C      | C, TS, PID, TID, CALL, A0 .. A5, RESULT, NFRAMES, STATUS | exactly 14 |
 *	| F      | F, IP, MODULE, MODULE_OFFSET, PROC, PROC_OFFSET        | exactly 6  |
 *	| K      | K, TS, PID, CHILD_PID, fork or vfork (not read)        | exactly 5  |
 *	| X      | X, TS, PID, exec (not read)                            | exactly 4  |
 *	| E      | the root workload's end, the tracer's counters         | not read   |
 *
 * The first line starts "V<tab>1<tab>" or "V<tab>2<tab>". NFRAMES F lines follow their C
 * line (the frames of its stack, innermost first).
 *
 *	| field            | unit, syntax                                                 |
 *	| TS               | ns, decimal: the guest's CLOCK_MONOTONIC; the caller's offset |
 *	|                  | (trace_meta clock_offset_ns) is added: the trace clock        |
 *	|                  | version 1: the call's exit; version 2: its entry              |
 *	| PID, TID         | decimal: the thread group id, the thread id                  |
 *	| CALL             | text: mmap, munmap, mremap, brk change the address map;      |
 *	|                  | others (madvise) are stored, nothing more                    |
 *	| A0 .. A5         | the call's arguments, hex without 0x                         |
 *	| RESULT           | version 1: the return value, signed decimal (-4095..-1:      |
 *	|                  | -errno); version 2: "-" exactly (the result is the exit's)   |
 *	| NFRAMES          | decimal, frame lines that follow (never more than remain)    |
 *	| STATUS           | text to the end of the line: "ok" or why unwinding stopped   |
 *	| IP, *_OFFSET     | hex: the frame's address, its offset in MODULE, in PROC      |
 *	| MODULE, PROC     | text; "-": no file mapping, no symbol                        |
 *
 * Numbers are digits only, read in full: decimal, or hex for the hex fields (no blank, no
 * sign, no 0x), RESULT a decimal with an optional '-'; an empty field, any other
 * character or a value past 64 bits is malformed. PID, TID and CHILD_PID are at most
 * 2^31-1 (kept as int). A time with the offset added is at most 2^63-1 ns (the
 * database's int64). No line holds a NUL byte (a cut last line is ignored, as above). The
 * records' times (with the offset) never go backwards in file order (C, K and X lines; E
 * is not a timed record here). A stack is the text of its F lines and
 * its STATUS: two calls with the same text share one stack.
 *
 * Errors name the line, counted from 1: "not a call-site side file of version 1 or 2",
 * "malformed call line N", "malformed frame line N", "malformed fork line N", "malformed
 * exec line N", "malformed line N: unknown record 'c'", "line N: time goes backwards" (for
 * a call, N is the line of its last frame, or its own line without frames); with the
 * reason after a colon: "malformed line N: a NUL byte", "malformed call line N: PID
 * 99999999999 past 2147483647" (TID, a fork's PID or CHILD_PID, an exec's PID), "malformed
 * call line N: time 18446744073709551615 past 9223372036854775807 ns with the clock
 * offset" (fork, exec lines the same).
 */
#ifndef FT_TRACER_SITEFILE_H
#define FT_TRACER_SITEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/idmap.h"

struct sf_frame {
	char *line;		/* its copy of the F line, which module and proc point into */
	uint64_t ip;		/* address */
	uint64_t module_offset;	/* bytes into module */
	uint64_t proc_offset;	/* bytes into proc */
	const char *module;	/* NULL: no file mapping */
	const char *proc;	/* NULL: no name */
};

struct sf_stack {
	const char *key;	/* the frame lines and status as written: the identity */
	struct sf_frame *frames;
	int nr_frames;
	const char *status;
};

/*
 * A C record. The parser fills the first group; a version 2 file's pairing (sites-pair.c)
 * sets ts and result from the call's exit, or dropped; the address maps (sites-owner.c)
 * fill the last group.
 */
struct sf_call {
	uint64_t ts;		/* trace clock, ns: when it returned (version 2: entered) */
	uint64_t entry;		/* trace clock, ns: TS as written plus the offset */
	int pid, tid;
	const char *name;	/* CALL, pointing into the parsed buffer */
	uint64_t arg[6];
	int64_t result;		/* version 2: 0 until paired */
	int stack;		/* index in stacks */
	int dropped;		/* version 2: no exit paired, neither applied nor stored */
	uint64_t start, end;	/* bytes: the anonymous range mapped; start == end: none */
	uint64_t end_ts;	/* trace clock, ns: when the range went; 0: still mapped */
	uint64_t faults;	/* anon_fault events in its range */
	uint64_t touched;	/* distinct pages of its range those faults mapped */
};

/* A record of the timeline: a call (index), a fork or an exec. */
struct sf_rec {
	uint64_t ts;		/* trace clock, ns */
	char type;		/* 'C', 'K', 'X' */
	int pid, child;		/* child: K only */
	int call;		/* C only: index in calls */
	size_t line;		/* its position among the records: a stable sort's tie-break */
};

struct sitefile {
	int version;			/* 1: results inline, 2: from the trace's sys_exit */
	struct sf_call *calls;		/* in file order */
	size_t nr_calls, cap_calls;
	struct sf_stack *stacks;	/* in order of first use */
	size_t nr_stacks, cap_stacks;
	struct sf_rec *recs;		/* in file order (time order) */
	size_t nr_recs, cap_recs;
	int *pids;			/* every process named (a call's PID, a fork's CHILD_PID,
					   an exec's PID), in order of first appearance */
	size_t nr_pids, cap_pids;
	struct idmap stack_index;	/* hash of a stack's key -> index in stacks (multimap) */
	struct idmap pid_seen;		/* pids already in pids (values unused) */
};

/*
 * sitefile_parse - parse the side file in buf, len bytes followed by a NUL (modified and
 * kept: the names point into it), into f (zeroed by the caller), adding offset (ns) to
 * every time.
 * Return: 0, or -1 (error set: the first malformed line, as above). f needs
 * ft_sitefile_release() either way.
 */
int ft_sitefile_parse(struct sitefile *f, char *buf, size_t len, uint64_t offset);

void ft_sitefile_release(struct sitefile *f);

#endif /* FT_TRACER_SITEFILE_H */
