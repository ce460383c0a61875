/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steps.h - hand-made (SYNTHETIC) event streams for the unit tests, one letter per
 * recorded event, shared by replay-cases.c and export-format.c.
 */
#ifndef FT_TESTS_UNIT_STEPS_H
#define FT_TESTS_UNIT_STEPS_H

#include <stdint.h>

#include "db/stream.h"
#include "replay/replay.h"

/*
 * op: W/R write/read FAULT at a in VMA v (a read maps the zero page), n a write FAULT
 * that installed nothing (nr_ptes 0), Z zero_wp, C cow, K fork (proc is the child, a the
 * parent), U/D/F/X munmap, dontneed, free, exit of [a, b), M mremap [a, b) to c.
 */
struct step {
	char op;
	uint32_t proc;
	uint64_t a, b, c;
	uint32_t v;
};

static inline struct ftdb_event step_event(const struct step *st)
{
	struct ftdb_event e = { 0 };

	e.proc_id = st->proc;
	e.addr = st->a;
	switch (st->op) {
	case 'W':
	case 'R':
	case 'n':
		e.kind = FTDB_EV_FAULT;
		e.vma_id = st->v;
		e.flags = st->op == 'R' ? FTDB_EVF_ZERO_PAGE : FTDB_EVF_WRITE;
		e.nr_ptes = st->op == 'n' ? 0 : 1;
		break;
	case 'Z':
		e.kind = FTDB_EV_ZERO_WP;
		break;
	case 'C':
		e.kind = FTDB_EV_COW;
		break;
	case 'K':
		e.kind = FTDB_EV_MM_DUP;
		e.addr = 0;
		e.aux = st->a;
		break;
	default:
		e.kind = FTDB_EV_ZAP;
		e.end = st->b;
		e.reason = st->op == 'U' ? FTDB_ZAP_MUNMAP : st->op == 'D' ? FTDB_ZAP_DONTNEED :
			   st->op == 'F' ? FTDB_ZAP_FREE : st->op == 'X' ? FTDB_ZAP_EXIT :
			   FTDB_ZAP_MREMAP;
		e.aux = st->op == 'M' ? st->c : 0;
	}
	return e;
}

/*
 * steps_replay - the n events ev of trace t replayed under p in both engines, each fed
 * and finished, into *sim and *o (rp_sim_free(), rp_oracle_free() them).
 */
static inline void steps_replay(const struct rp_policy *p, enum rp_frag_kind frag,
				const struct rp_trace *t, const struct ftdb_event *ev, size_t n,
				struct rp_sim **sim, struct rp_oracle **o)
{
	*sim = rp_sim_new(p, frag, t);
	*o = rp_oracle_new(p, frag, t);
	rp_sim_feed(*sim, ev, n);
	rp_oracle_feed(*o, ev, n);
	rp_sim_finish(*sim);
	rp_oracle_finish(*o);
}

#endif
