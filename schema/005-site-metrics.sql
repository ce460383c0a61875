-- foliotrace trace database, schema version 5: per-site replay metrics (`compare --by site`,
-- docs/sites.md). site_touch is written by ingest with the other site tables
-- (tracer/sites.c): which call's range each touch of the event stream fell in, the
-- attribution of `query sites`, so replay can charge a policy's faults to the same sites.
-- replay_site is written by replay with its runs.

-- Runs of consecutive events of the stream (ordinals as ftdb_stream_foreach() yields them,
-- 0 = first) whose touches (anon_fault, anon_zero_wp, anon_cow) all fall in the range of
-- one site_call row (a call, or a process's 'none' row). Events that are not touches may
-- lie inside a run; a touch of a process the tracer did not trace lies in none.
CREATE TABLE site_touch (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	ev_first	INTEGER NOT NULL,	-- ordinal of the run's first event
	ev_end		INTEGER NOT NULL,	-- ordinal after its last event
	call_id		INTEGER NOT NULL REFERENCES site_call(call_id) ON DELETE CASCADE,
	PRIMARY KEY (trace_id, ev_first)
) WITHOUT ROWID;

-- Per replay run of a trace with sites, per site (site, site_module as `query sites`
-- groups them; '[untraced]' for touches of processes the tracer did not trace).
CREATE TABLE replay_site (
	run_id		INTEGER NOT NULL REFERENCES replay_run(run_id) ON DELETE CASCADE,
	site		TEXT NOT NULL,
	site_module	TEXT,
	faults		INTEGER NOT NULL,	-- simulated faults its touches took
	bloat_bytes	INTEGER NOT NULL,	-- bytes of its blocks never touched, bytes
	zeroed_bytes	INTEGER NOT NULL,	-- bytes its faults allocated (zeroed)
	rss_at_peak_bytes INTEGER NOT NULL	-- its blocks' resident bytes at the run's peak RSS
);
CREATE INDEX replay_site_run ON replay_site(run_id);
