-- foliotrace trace database, schema version 12: the cost of a copy-on-write fault whose
-- page is part of a large folio (docs/cost-model.md, "COW of a large folio"). cow_ns is
-- then fitted from the COWs of 4K pages alone, and cow_large_ns is what a COW of a page
-- inside a folio of order 2 and up (a PMD-mapped THP's included) costs beyond it: the
-- copy is 4K either way, but the old folio loses one page's mapping and rmap of a large
-- folio (6.1's page_remove_rmap() of a subpage, the deferred-split queue). NULL where the
-- traces do not hold 16 COWs of each kind, and in every row stored before.
ALTER TABLE cost_model ADD COLUMN cow_large_ns REAL;
