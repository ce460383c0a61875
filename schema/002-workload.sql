-- 002: which processes are the recorded workload's (docs/schema.md, process.workload).
-- 1: the workload's process tree (header/workload_pid and its descendants), 0: the guest's
-- own setup (init, the launcher, the tracer), NULL: the trace does not say (recorded
-- before this column, or ingested without its header).
ALTER TABLE process ADD COLUMN workload INTEGER;
