-- foliotrace trace database, schema version 8: a simulated run's memory and faults against
-- trace time (replay/series.h), what report draws its "memory over time" and "fault rate"
-- charts from. Written by replay with its runs; runs stored before have no rows.

-- One row per interval of the event stream's span (event_chunk's first and last ts) cut
-- into equal intervals
-- (240 since schema 8): the counted processes' anonymous RSS and faults.
CREATE TABLE replay_series (
	run_id		INTEGER NOT NULL REFERENCES replay_run(run_id) ON DELETE CASCADE,
	point		INTEGER NOT NULL,	-- 0, 1, ... in time order
	t_ns		INTEGER NOT NULL,	-- end of the interval, ns after the stream's first event
	rss_bytes	INTEGER NOT NULL,	-- resident at its end, bytes
	rss_max_bytes	INTEGER NOT NULL,	-- the most resident inside it, bytes
	faults		INTEGER NOT NULL,	-- faults (first touch + zero_wp) inside it
	PRIMARY KEY (run_id, point)
) WITHOUT ROWID;
