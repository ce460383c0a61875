-- foliotrace trace database, schema version 1.
--
-- Applied by db/ftdb.c inside one transaction together with PRAGMA user_version = 1.
-- application_id is 0x466f6c54 ("FolT"). Every table and column is documented in
-- docs/schema.md; keep the two in step.
--
-- Tuned for: one database holding a few traces of up to hundreds of millions of anonymous
-- events. The per-event data lives in event_chunk blobs (db/stream.h) so a fault costs a few
-- bytes and replay scans it at memory speed; everything a person queries by hand (traces,
-- processes, VMAs, zaps, counts, replay results) is in plain tables.

CREATE TABLE trace (
	trace_id	INTEGER PRIMARY KEY,
	uuid		TEXT NOT NULL UNIQUE,	-- identity of the recorded trace (CTF trace UUID)
	path		TEXT,			-- CTF directory ingested, as given
	arch		TEXT,			-- x86_64 | arm64
	page_size	INTEGER,		-- base page size, bytes
	kernel		TEXT,			-- guest kernel release (uname -r)
	policy		TEXT,			-- policy in force while recording (policy grammar)
	mem_bytes	INTEGER,		-- guest memory, bytes
	cpus		INTEGER,		-- guest cpus
	workload	TEXT,			-- command line of the recorded workload
	workload_status	INTEGER,		-- its exit status, NULL if unknown
	clocksource	TEXT,			-- guest clocksource while recording
	discarded_events INTEGER NOT NULL DEFAULT 0, -- events LTTng dropped (header and stream)
	partial		INTEGER NOT NULL DEFAULT 0, -- 1 if the guest died before the trace was closed
	parent_trace_id	INTEGER REFERENCES trace(trace_id), -- for a guest replay: the trace replayed
	first_ts	INTEGER,		-- first event timestamp, ns of the trace clock
	last_ts		INTEGER,		-- last event timestamp, ns of the trace clock
	events		INTEGER NOT NULL DEFAULT 0, -- events read from the CTF trace, all types
	ingested_at	TEXT NOT NULL,		-- UTC, ISO 8601
	tool_version	TEXT NOT NULL		-- foliotrace version that ingested it
);

-- Everything else the guest wrote in the trace header: buddyinfo and vmstat before and
-- after, knob settings, workload output. One row per key.
CREATE TABLE trace_meta (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	key		TEXT NOT NULL,
	value		TEXT NOT NULL,
	PRIMARY KEY (trace_id, key)
) WITHOUT ROWID;

-- Events per type as read from the CTF trace, including event types the collector does not
-- store (so the totals can be checked against `babeltrace2 -c sink.utils.counter`).
CREATE TABLE event_count (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	name		TEXT NOT NULL,		-- LTTng event name
	count		INTEGER NOT NULL,
	PRIMARY KEY (trace_id, name)
) WITHOUT ROWID;

-- One row per address space (mm) seen: a process between exec/fork and exit.
CREATE TABLE process (
	proc_id		INTEGER PRIMARY KEY,	-- referenced by event_chunk records
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	pid		INTEGER NOT NULL,	-- tgid
	mm		INTEGER NOT NULL,	-- mm_struct identity from the events
	comm		TEXT,			-- command name (last exec/fork/statedump seen)
	parent_proc_id	INTEGER,		-- the mm it was forked from (anon_mm_dup), else NULL
	first_ts	INTEGER,		-- first event of this mm, ns
	last_ts		INTEGER,		-- last event of this mm, ns
	anon_faults	INTEGER NOT NULL DEFAULT 0, -- anon_fault events
	zero_wp		INTEGER NOT NULL DEFAULT 0, -- anon_zero_wp events
	cow		INTEGER NOT NULL DEFAULT 0, -- anon_cow events
	zaps		INTEGER NOT NULL DEFAULT 0  -- anon_zap events
);
CREATE INDEX process_trace ON process(trace_id, pid);

-- One row per distinct VMA (start, end, flags) seen in a fault of a process. A VMA that
-- grows (stack, brk) or changes flags appears once per shape.
CREATE TABLE vma (
	vma_id		INTEGER PRIMARY KEY,	-- referenced by event_chunk records
	proc_id		INTEGER NOT NULL REFERENCES process(proc_id) ON DELETE CASCADE,
	start		INTEGER NOT NULL,	-- bytes
	end		INTEGER NOT NULL,	-- bytes, exclusive
	flags		INTEGER NOT NULL,	-- vm_flags
	first_ts	INTEGER NOT NULL,	-- first fault that saw it, ns
	faults		INTEGER NOT NULL DEFAULT 0 -- anon_fault events in it
);
CREATE INDEX vma_proc ON vma(proc_id);

-- Zaps, also in the event stream; here for hand queries.
CREATE TABLE zap (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	seq		INTEGER NOT NULL,	-- position in the trace's event stream
	ts		INTEGER NOT NULL,	-- ns
	proc_id		INTEGER NOT NULL REFERENCES process(proc_id),
	start		INTEGER NOT NULL,
	end		INTEGER NOT NULL,
	cause		TEXT NOT NULL,		-- munmap | dontneed | free | mremap | exit
	new_addr	INTEGER,		-- mremap destination, else NULL
	PRIMARY KEY (trace_id, seq)
) WITHOUT ROWID;

-- The anonymous event stream, in recorded (timestamp) order, packed in chunks of up to
-- 65536 events. Format of data: docs/schema.md "event_chunk format", codec db/stream.c.
CREATE TABLE event_chunk (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	chunk		INTEGER NOT NULL,	-- 0, 1, 2, ... in stream order
	first_seq	INTEGER NOT NULL,	-- stream position of the first event
	nr_events	INTEGER NOT NULL,
	first_ts	INTEGER NOT NULL,	-- ns
	last_ts		INTEGER NOT NULL,	-- ns
	data		BLOB NOT NULL,
	PRIMARY KEY (trace_id, chunk)
) WITHOUT ROWID;

-- Fault counts and latency summary per mapped order, written at ingest.
CREATE TABLE fault_order (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	order_		INTEGER NOT NULL,	-- mapped order (9 = PMD)
	zero_page	INTEGER NOT NULL,	-- 1 for zero-page mappings
	faults		INTEGER NOT NULL,
	ptes		INTEGER NOT NULL,	-- page-table entries written
	PRIMARY KEY (trace_id, order_, zero_page)
) WITHOUT ROWID;

-- A replay run: one policy replayed over one trace, offline (simulator) or in a guest.
CREATE TABLE replay_run (
	run_id		INTEGER PRIMARY KEY,
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	policy		TEXT NOT NULL,		-- policy spec, canonical form
	frag		TEXT NOT NULL,		-- allocation failure model: none | buddyinfo
	kind		TEXT NOT NULL,		-- sim | guest
	guest_trace_id	INTEGER REFERENCES trace(trace_id), -- kind = guest: the trace it recorded
	filter		TEXT,			-- --comm/--pid restriction, NULL for all
	tool_version	TEXT NOT NULL,
	created_at	TEXT NOT NULL,		-- UTC, ISO 8601
	elapsed_ns	INTEGER			-- wall time of the run
);

-- Metrics of a replay run, per process and in total (proc_id NULL). Names and units in
-- docs/metrics.md: faults, peak_rss_bytes, final_rss_bytes, bloat_bytes, zeroed_bytes,
-- pte_writes, alloc_order_N, fallback_REASON, contpte_runs, pmd_maps, ...
CREATE TABLE replay_metric (
	run_id		INTEGER NOT NULL REFERENCES replay_run(run_id) ON DELETE CASCADE,
	proc_id		INTEGER,		-- NULL: all processes
	name		TEXT NOT NULL,
	value		INTEGER NOT NULL
);
CREATE INDEX replay_metric_run ON replay_metric(run_id, name);
