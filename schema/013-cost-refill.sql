-- foliotrace trace database, schema version 13: the cost of an order-0 allocation (a 4K
-- fault, a COW's copy, a zero_wp) that finds the per-cpu list empty and refills it from
-- the buddy allocator (rmqueue_bulk(): a batch of 63 pages on 6.1), beyond its kind's
-- cost (docs/cost-model.md, "Per-cpu list refills"). The calibration follows the list
-- through its traces for how many allocations refilled; replay prices each refill the
-- engines count (metric pcp_refills). Fitted on the icount clock only; NULL elsewhere and
-- in every row stored before.
ALTER TABLE cost_model ADD COLUMN refill_ns REAL;
