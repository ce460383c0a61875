-- foliotrace trace database, schema version 10: the host model's cost of a cold fault
-- (docs/cost-model.md, "Cold faults"). cold_ns: what a fault whose process ran more than
-- RP_COLD_GAP_NS of its own work since its previous fault costs beyond new_ns (the fault
-- path's cache lines evicted by that work), fitted by `calibrate --host` from anon-touch
-- --between; NULL in a model fitted from guest latencies, and in every row stored before.
ALTER TABLE cost_model ADD COLUMN cold_ns REAL;
