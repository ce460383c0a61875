-- foliotrace trace database, schema version 9: the cost model's large-folio term
-- (docs/cost-model.md, "The model"): what a new-folio fault of a large folio (order 2 and
-- up, the PMD included) costs beyond the line through its bytes and PTEs, fitted by
-- `calibrate` when its samples hold 4K folios and large folios of two sizes.
-- NULL: not fitted (models stored before it, or too few shapes): no such cost.
ALTER TABLE cost_model ADD COLUMN large_ns REAL;
