-- foliotrace trace database, schema version 7: the guest clock a trace was recorded on
-- (docs/guest.md, "Clock"), and the cost model keyed by it (docs/cost-model.md).

-- header/clock: 'icount' (QEMU's instruction counter: 1 ns per guest instruction), else
-- the accelerator's own clock ('tcg', 'kvm'); NULL: the header does not say (recorded
-- before the runner wrote it, when every guest ran on its accelerator's clock).
ALTER TABLE trace ADD COLUMN clock TEXT;

-- cost_model gains clock in its key: a model fitted on one clock's latencies says nothing
-- of another's. The models stored before were fitted on their accelerator's clock.
CREATE TABLE cost_model_7 (
	arch		TEXT NOT NULL,		-- trace.arch of the calibration traces
	kernel		TEXT NOT NULL,		-- trace.kernel
	accel		TEXT NOT NULL,		-- trace_meta 'accel' (tcg | kvm), 'unknown' if absent
	clock		TEXT NOT NULL,		-- trace.clock (tcg | kvm | icount), else accel
	new_ns		REAL NOT NULL,		-- fixed cost of a fault that allocates a folio, ns
	byte_ns		REAL NOT NULL,		-- cost per byte of that folio (zeroing), ns
	pte_ns		REAL,			-- cost per PTE written, ns; NULL: not identifiable
						-- (folded into byte_ns, docs/cost-model.md)
	zero_ns		REAL,			-- fault mapping the (huge) zero page, ns; NULL: too few
	zero_wp_ns	REAL,			-- anon_zero_wp fault, ns; NULL: too few samples
	cow_ns		REAL,			-- anon_cow fault, ns; NULL: too few samples
	samples		INTEGER NOT NULL,	-- fault records the fit used
	traces		INTEGER NOT NULL,	-- traces they came from
	fitted_at	TEXT NOT NULL,		-- UTC, ISO 8601
	tool_version	TEXT NOT NULL,
	PRIMARY KEY (arch, kernel, accel, clock)
) WITHOUT ROWID;
INSERT INTO cost_model_7 SELECT arch, kernel, accel, accel, new_ns, byte_ns, pte_ns, zero_ns,
	zero_wp_ns, cow_ns, samples, traces, fitted_at, tool_version FROM cost_model;
DROP TABLE cost_model;
ALTER TABLE cost_model_7 RENAME TO cost_model;
