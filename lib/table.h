/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - tabular command output in the three --format styles: aligned text columns
 * (numbers right-aligned), CSV with a header line (RFC 4180 quoting), and JSON as one array
 * of objects whose keys are the column names. A command fills a table row by row, then
 * prints it once with out_print(): the whole result is known before the first byte is
 * written, so the table style can size its columns.
 *
 * A result too large to hold (the faults of a whole trace) is streamed instead: after
 * out_stream(), each completed row is printed and dropped; the table style sizes its
 * columns from the first OUT_STREAM_SAMPLE rows. out_print() then ends the document.
 */
#ifndef FT_LIB_TABLE_H
#define FT_LIB_TABLE_H

#include <stdint.h>
#include <stdio.h>

enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON };

/* Return: 0 and *f set, or -1 for an unknown name. */
int out_parse_format(const char *name, enum out_format *f);

enum out_type { OUT_NULL, OUT_INT, OUT_REAL, OUT_TEXT };

struct out_cell {
	enum out_type type;
	int64_t i;		/* OUT_INT */
	double d;		/* OUT_REAL */
	char *s;		/* OUT_TEXT, owned */
};

#define OUT_STREAM_SAMPLE 1000	/* rows that size a streamed table's columns */

struct out_table {
	char **cols;		/* column names, owned */
	size_t nr_cols;
	struct out_cell *cells;	/* row-major, nr_rows * nr_cols (rows not yet printed) */
	size_t nr_cells, cap_cells;
	FILE *stream;		/* out_stream(): print rows here as they complete */
	enum out_format stream_format;
	size_t *widths;		/* streamed table: column widths, once fixed */
	size_t printed;		/* rows printed so far */
};

void out_init(struct out_table *t, const char *const *cols, size_t nr_cols);
/* Add a column name (only before the first cell). */
void out_add_col(struct out_table *t, const char *name);
void out_release(struct out_table *t);
/* Append the next cell, left to right, row after row. */
void out_null(struct out_table *t);
void out_int(struct out_table *t, int64_t v);
void out_real(struct out_table *t, double v);
void out_text(struct out_table *t, const char *s);	/* NULL prints as null */
void out_hex(struct out_table *t, uint64_t v);		/* text "0x..." */
void out_print(struct out_table *t, enum out_format f, FILE *fp);
/*
 * Leave out the columns whose every row is null (not for a streamed table, and a table
 * with no row keeps its columns): for the table style, where an empty column is noise;
 * CSV and JSON keep their stable columns and fields. Return: the columns left out.
 */
size_t out_drop_empty_cols(struct out_table *t);
/* Print rows as they complete (after the column names are set). */
void out_stream(struct out_table *t, enum out_format f, FILE *fp);

/* JSON helpers for documents that are not a table. */
void out_json_str(FILE *fp, const char *s);
/* A JSON string, or null for NULL or "". */
void out_json_str_or_null(FILE *fp, const char *s);
/* v / base - 1 as a JSON number ("%.6f"), or null when base is 0. */
void out_json_ratio(FILE *fp, uint64_t v, uint64_t base);

#endif /* FT_LIB_TABLE_H */
