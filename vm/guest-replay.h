/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest-replay.h - one guest replay as a pipeline: boot a guest under a policy with the
 * replay file (replay/export.h) on its share and ft-replayer as the workload, record it
 * into a new trace directory beside the database, keep where the replayer placed each
 * address range (header/replay_map), store the guest's trace, and link it to the trace
 * it replays with a replay_run of kind guest (db/runs.h). docs/guest-replay.md.
 * Prints nothing; the caller says what was stored.
 */
#ifndef FT_VM_GUEST_REPLAY_H
#define FT_VM_GUEST_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"
#include "vm/guest-progress.h"

struct vm_guest_replay {
	const char *db;			/* the database holding the trace replayed */
	int64_t trace_id;		/* the trace replayed */
	const char *arch;		/* guest arch */
	const char *policy;		/* canonical spec of a policy the guest knob expresses */
	const char *mem, *cpus, *timeout;	/* NULL: run.sh's defaults */
	const char *fragment;		/* --fragment SPEC, or NULL */
	const char *clock;		/* --clock tcg|icount, or NULL: run.sh's default */
	const char *kernel;		/* --kernel 6.1|6.12, or NULL: 6.1 */
	const char *file;		/* the replay file on the host (vm_replay_file()) */
	const char *filter;		/* the selection's stored form, "" for none */
	void (*warn)(const char *msg, void *arg);	/* ft_ingest_opts.warn, or NULL */
	void *warn_arg;
	const struct vm_guest_watch *watch;	/* vm_runner_args.watch, or NULL */
};

struct vm_guest_replay_result {
	int64_t guest_trace_id;		/* the guest's trace, stored */
	int64_t run_id;			/* its replay_run */
	uint64_t elapsed_ns;		/* boot to link, ns */
	struct strbuf dir;		/* the guest's trace directory (release it) */
};

/*
 * vm_replay_file - write the replay file data[0..len) for trace_id into the database's
 * trace directory (DB.ctf/replay-t<ID>-<UTC time>.ftr) and its path into path.
 * Return: 0, or -1 with fail().
 */
int vm_replay_file(const char *db, int64_t trace_id, const void *data, size_t len,
		   struct strbuf *path);

/*
 * vm_guest_replay - run one guest replay g. Return: 0 with *r filled, or -1 with fail()
 * saying why (a failed start leaves no directory; a guest that failed leaves its
 * directory, named in the message) and nothing stored.
 */
int vm_guest_replay(const struct vm_guest_replay *g, struct vm_guest_replay_result *r);

#endif /* FT_VM_GUEST_REPLAY_H */
