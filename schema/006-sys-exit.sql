-- foliotrace trace database, schema version 6: the exits of the system calls the call-site
-- tracer stops (docs/sites.md), from LTTng's syscall_exit_{mmap,munmap,mremap,brk,madvise}
-- events (docs/events.md) when the recording has them. Written by the collector with the
-- trace (tracer/store.c), for every thread of the guest; ingest pairs a side file's calls
-- of version 2 (entry only) with them (tracer/sites.c) for their time and result.
CREATE TABLE sys_exit (
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	ts		INTEGER NOT NULL,	-- ns, trace clock: when the call returned
	tid		INTEGER NOT NULL,	-- thread (the event's tid context)
	call		TEXT NOT NULL,		-- mmap, munmap, mremap, brk, madvise
	ret		INTEGER NOT NULL	-- return value; -4095..-1 is -errno
);
-- pairing: a thread's exits in time order
CREATE INDEX sys_exit_tid ON sys_exit(trace_id, tid, ts);
