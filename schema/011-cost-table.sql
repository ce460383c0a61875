-- foliotrace trace database, schema version 11: the cost of the page table a fault
-- allocates (docs/cost-model.md, "Page tables"). table_ns: what a fault into a 2M range
-- of its process that had no page table costs beyond its kind's cost (the table's
-- allocation, zeroing and accounting, pte_alloc() or a THP's pte_alloc_one()), fitted from
-- the faults a calibration trace shows allocating one; NULL where the traces do not hold
-- 16 such faults beside 16 others of the same shape, and in every row stored before.
ALTER TABLE cost_model ADD COLUMN table_ns REAL;
