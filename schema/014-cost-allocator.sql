-- foliotrace trace database, schema version 14: the page allocator's share of a fault,
-- as 6.1 splits it (docs/cost-model.md, "Per-cpu list refills" and "The buddy
-- allocator"). Folios of orders 0 to 3 (and THPs) come from per-cpu lists (replay/pcp.h):
-- a refill of any of them is priced as a fixed cost (refill_ns) and a cost per block it
-- takes from the buddy allocator (refill_block_ns: 63 blocks for order 0, 15 for order 2,
-- 7 for order 3), fitted from the calibration's refills of two orders. Folios of orders 4
-- to 8 (64K to 1M) come from the buddy allocator at each fault: buddy_ns more each.
-- A row stored before priced an order-0 refill (63 blocks) at refill_ns and no other: it
-- keeps that price, as 63 blocks of refill_ns / 63, with no fixed part; buddy_ns NULL.
ALTER TABLE cost_model ADD COLUMN refill_block_ns REAL;
ALTER TABLE cost_model ADD COLUMN buddy_ns REAL;
UPDATE cost_model SET refill_block_ns = refill_ns / 63.0, refill_ns = 0
	WHERE refill_ns IS NOT NULL;
