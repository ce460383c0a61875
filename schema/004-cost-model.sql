-- foliotrace trace database, schema version 4: fault cost models fitted by
-- `foliotrace calibrate` (docs/cost-model.md), one row per (arch, kernel, accelerator).
-- replay reads the row matching a trace to predict fault_time_ns (docs/metrics.md).
CREATE TABLE cost_model (
	arch		TEXT NOT NULL,		-- trace.arch of the calibration traces
	kernel		TEXT NOT NULL,		-- trace.kernel
	accel		TEXT NOT NULL,		-- trace_meta 'accel' (tcg | kvm), 'unknown' if absent
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
	PRIMARY KEY (arch, kernel, accel)
) WITHOUT ROWID;
