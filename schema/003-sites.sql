-- foliotrace trace database, schema version 3: allocation call sites (`record --sites`,
-- docs/sites.md). Written by tracer/sites.c from the side file of the in-guest call-site
-- tracer (tracer/guest/ft-sites.c), in the same transaction-less step after the trace
-- itself; see docs/schema.md.

-- A call stack, stored once per trace however many calls share it.
CREATE TABLE site_stack (
	stack_id	INTEGER PRIMARY KEY,
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	nr_frames	INTEGER NOT NULL,	-- rows in site_frame
	status		TEXT NOT NULL,		-- ok | why unwinding stopped (docs/sites.md)
	site_depth	INTEGER			-- depth of the site frame; NULL: [unknown]
);
CREATE INDEX site_stack_trace ON site_stack(trace_id);

-- The frames of a stack, innermost (the system call's instruction) first.
CREATE TABLE site_frame (
	stack_id	INTEGER NOT NULL REFERENCES site_stack(stack_id) ON DELETE CASCADE,
	depth		INTEGER NOT NULL,	-- 0 = innermost
	ip		INTEGER NOT NULL,	-- instruction pointer (return address above 0)
	module		TEXT,			-- path of the mapped file, NULL if none
	module_offset	INTEGER,		-- ip as a file offset in module, bytes
	proc		TEXT,			-- procedure name (unw_get_proc_name), NULL if unknown
	proc_offset	INTEGER,		-- ip - start of proc, bytes
	PRIMARY KEY (stack_id, depth)
) WITHOUT ROWID;

-- One row per traced call, and per traced process one row with call = 'none' holding the
-- faults no call covers (stack, .bss, what exec mapped): site '[no call]'.
CREATE TABLE site_call (
	call_id		INTEGER PRIMARY KEY,
	trace_id	INTEGER NOT NULL REFERENCES trace(trace_id) ON DELETE CASCADE,
	ts		INTEGER,		-- when the call returned, ns of the trace clock
	pid		INTEGER NOT NULL,	-- tgid
	tid		INTEGER,
	call		TEXT NOT NULL,		-- mmap | munmap | mremap | brk | madvise | none
	arg0		INTEGER, arg1 INTEGER, arg2 INTEGER, arg3 INTEGER, arg4 INTEGER,
	arg5		INTEGER,		-- the call's arguments as passed (registers)
	result		INTEGER,		-- its return value (negative: -errno)
	start		INTEGER,		-- anonymous range it mapped, bytes; NULL: none
	end		INTEGER,		-- bytes, exclusive
	end_ts		INTEGER,		-- range unmapped, moved or exec'ed away, or the
						-- end of the trace, ns; NULL if no range
	stack_id	INTEGER REFERENCES site_stack(stack_id),
	site		TEXT NOT NULL,		-- site frame's proc, '[unknown]', '[no call]'
	site_module	TEXT,			-- site frame's module
	site_offset	INTEGER,		-- site frame's module_offset
	faults		INTEGER NOT NULL DEFAULT 0, -- anon_fault events attributed to it
	touched_pages	INTEGER NOT NULL DEFAULT 0  -- distinct base pages those faults mapped
);
CREATE INDEX site_call_trace ON site_call(trace_id, site);
