// SPDX-License-Identifier: GPL-2.0
/*
 * measure-db.c - measure a guest replay stored in a trace database: the replay map from
 * the guest trace's trace_meta, the selection from the original trace and the guest
 * processes from the guest trace (both through the trace loader, load.h), then one pass
 * over the guest trace's stream. See measure.h.
 */
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/load.h"
#include "replay/measure.h"

/* trace_id's header value of key, or NULL (absent, or unreadable: the caller says so). */
static char *meta(sqlite3 *db, int64_t trace_id, const char *key)
{
	char *v;

	if (ftdb_trace_meta(db, trace_id, key, &v)) {
		error_clear();
		return NULL;
	}
	return v;
}

static int feed_one(const struct ftdb_event *ev, void *arg)
{
	rp_measure_feed(arg, ev);
	return 0;
}

int rp_measure_db(sqlite3 *db, int64_t trace_id, int64_t guest_id, const struct rp_filter *sel,
		  struct rp_measured *out)
{
	struct rp_replay_map m = { 0 };
	struct rp_loaded orig = { 0 }, guest = { 0 };
	struct rp_measure *w;
	int32_t *family = NULL;
	char *text = meta(db, guest_id, "replay_map");
	uint32_t id;
	size_t i;
	int ret = -1;

	if (!text)
		return fail("guest trace %lld has no replay_map in trace_meta",
			     (long long)guest_id);
	if (rp_replay_map_parse(text, &m) || rp_load(db, trace_id, sel, &orig) ||
	    rp_load(db, guest_id, NULL, &guest))
		goto out;
	/* a guest process is measured if it replayed a selected recorded process */
	family = xmalloc(guest.nr_procs * sizeof(*family));
	for (id = 0; id < guest.nr_procs; id++) {
		family[id] = -1;
		if (!guest.procs[id].present)
			continue;
		for (i = 0; i < m.nr_p; i++)
			if (m.p[i].pid == guest.procs[id].pid && m.p[i].proc_id < orig.nr_procs &&
			    orig.procs[m.p[i].proc_id].selected)
				family[id] = (int32_t)m.p[i].root;
	}
	w = rp_measure_new(&m, family, guest.nr_procs, guest.page_shift ? guest.page_shift : 12);
	if (ftdb_stream_foreach(db, guest_id, feed_one, w)) {
		rp_measure_finish(w, out);
		rp_measured_release(out);
		fail("cannot read guest trace %lld", (long long)guest_id);
		goto out;
	}
	rp_measure_finish(w, out);
	ret = 0;
out:
	free(family);
	rp_load_release(&orig);
	rp_load_release(&guest);
	rp_replay_map_release(&m);
	free(text);
	return ret;
}

/* Whether process info is the guest's init or one of LTTng's own (client, daemons). */
static int tracing_proc(const struct rp_proc_info *p)
{
	return p->pid == 1 || !strncmp(p->comm, "lttng", 5);
}

int rp_measure_trace(sqlite3 *db, int64_t trace_id, enum rp_measure_who who,
		     struct rp_measured *out)
{
	struct rp_loaded t = { 0 };
	struct rp_measure *w;
	int32_t *family;
	uint32_t id;
	int ret = 0;

	if (rp_load(db, trace_id, NULL, &t))
		return -1;
	/*
	 * the default selection (filter.h: the workload's processes, not the guest's setup),
	 * or every process but init's and LTTng's; one family, root 0: the map is NULL, so
	 * there are no ranges to look it up in
	 */
	family = xmalloc((t.nr_procs ? t.nr_procs : 1) * sizeof(*family));
	for (id = 0; id < t.nr_procs; id++)
		family[id] = (who == RP_MEASURE_WORKLOAD ? t.procs[id].selected
			      : t.procs[id].present && !tracing_proc(&t.procs[id])) ? 0 : -1;
	w = rp_measure_new(NULL, family, t.nr_procs, t.page_shift ? t.page_shift : 12);
	if (ftdb_stream_foreach(db, trace_id, feed_one, w))
		ret = fail("cannot read trace %lld", (long long)trace_id);
	rp_measure_finish(w, out);
	if (ret)
		rp_measured_release(out);
	free(family);
	rp_load_release(&t);
	return ret;
}
