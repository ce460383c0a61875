/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report-int.h - what the report's pages share inside report/: the page's head (style)
 * and foot (the one-line script that counts the charts into data-ready), a policy's run.
 */
#ifndef FT_REPORT_REPORT_INT_H
#define FT_REPORT_REPORT_INT_H

#include "lib/strbuf.h"
#include "replay/runs.h"

/* <!DOCTYPE html> to <body> and the page's <h1>, titled "foliotrace report: what". */
void report_page_start(struct strbuf *sb, const char *what);
/* The version line, the script, </html>. */
void report_page_end(struct strbuf *sb);

/* Where policy's run is in rs, or -1. */
int report_run_index(const struct rp_run_set *rs, const char *policy);

#endif /* FT_REPORT_REPORT_INT_H */
