// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - table, CSV and JSON printing of a struct out_table, whole or streamed row by
 * row; see table.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/table.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

int out_parse_format(const char *name, enum out_format *f)
{
	if (!strcmp(name, "table"))
		*f = OUT_TABLE;
	else if (!strcmp(name, "csv"))
		*f = OUT_CSV;
	else if (!strcmp(name, "json"))
		*f = OUT_JSON;
	else
		return -1;
	return 0;
}

void out_init(struct out_table *t, const char *const *cols, size_t nr_cols)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nr_cols; i++)
		out_add_col(t, cols[i]);
}

void out_add_col(struct out_table *t, const char *name)
{
	t->cols = xrealloc(t->cols, (t->nr_cols + 1) * sizeof(*t->cols));
	t->cols[t->nr_cols++] = xstrdup(name);
}

static void drop_cells(struct out_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_cells; i++)
		free(t->cells[i].s);
	t->nr_cells = 0;
}

void out_release(struct out_table *t)
{
	size_t i;

	drop_cells(t);
	for (i = 0; i < t->nr_cols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	free(t->widths);
	memset(t, 0, sizeof(*t));
}

size_t out_drop_empty_cols(struct out_table *t)
{
	size_t rows, r, c, k = 0, dropped = 0;
	unsigned char *keep;

	if (t->stream || !t->nr_cols || !t->nr_cells)
		return 0;
	rows = t->nr_cells / t->nr_cols;
	keep = xcalloc(t->nr_cols, 1);
	for (c = 0; c < t->nr_cols; c++)
		for (r = 0; r < rows && !keep[c]; r++)
			keep[c] = t->cells[r * t->nr_cols + c].type != OUT_NULL;
	/* cells in place, row-major: the kept ones move left, never right */
	for (r = 0; r < rows; r++)
		for (c = 0; c < t->nr_cols; c++)
			if (keep[c])
				t->cells[k++] = t->cells[r * t->nr_cols + c];
	t->nr_cells = k;
	for (c = k = 0; c < t->nr_cols; c++) {
		if (keep[c]) {
			t->cols[k++] = t->cols[c];
		} else {
			free(t->cols[c]);
			dropped++;
		}
	}
	t->nr_cols = k;
	free(keep);
	return dropped;
}

/* A cell as text, for the table and CSV styles; NULL is the empty string. */
static void cell_text(const struct out_cell *c, struct strbuf *sb)
{
	strbuf_reset(sb);
	switch (c->type) {
	case OUT_NULL:
		break;
	case OUT_INT:
		strbuf_addf(sb, "%" PRId64, c->i);
		break;
	case OUT_REAL:
		strbuf_addf(sb, "%.6g", c->d);
		break;
	case OUT_TEXT:
		strbuf_add_escaped(sb, c->s);	/* a symbol's ESC never reaches a terminal */
		break;
	}
}

void out_json_str(FILE *fp, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_json_str(&sb, s);
	fputs(sb.buf, fp);
	strbuf_release(&sb);
}

void out_json_str_or_null(FILE *fp, const char *s)
{
	if (s && *s)
		out_json_str(fp, s);
	else
		fputs("null", fp);
}

void out_json_ratio(FILE *fp, uint64_t v, uint64_t base)
{
	if (base)
		fprintf(fp, "%.6f", (double)v / (double)base - 1.0);
	else
		fputs("null", fp);
}

static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* Column widths of the table style: names and the rows held. */
static size_t *table_widths(const struct out_table *t)
{
	size_t rows = t->nr_cols ? t->nr_cells / t->nr_cols : 0, r, k;
	size_t *w = xcalloc(t->nr_cols ? t->nr_cols : 1, sizeof(*w));
	struct strbuf sb = STRBUF_INIT;

	for (k = 0; k < t->nr_cols; k++)
		w[k] = strlen(t->cols[k]);
	for (r = 0; r < rows; r++)
		for (k = 0; k < t->nr_cols; k++) {
			cell_text(&t->cells[r * t->nr_cols + k], &sb);
			if (sb.len > w[k])
				w[k] = sb.len;
		}
	strbuf_release(&sb);
	return w;
}

static void print_header(const struct out_table *t, enum out_format f, const size_t *w,
			 FILE *fp)
{
	size_t k;

	switch (f) {
	case OUT_TABLE:
		for (k = 0; k < t->nr_cols; k++)
			fprintf(fp, "%s%-*s", k ? "  " : "", k + 1 < t->nr_cols ? (int)w[k] : 0,
				t->cols[k]);
		fputc('\n', fp);
		break;
	case OUT_CSV:
		for (k = 0; k < t->nr_cols; k++) {
			if (k)
				fputc(',', fp);
			csv_field(fp, t->cols[k]);
		}
		fputc('\n', fp);
		break;
	case OUT_JSON:
		fputc('[', fp);
		break;
	}
}

/* Print row r of the cells held; index is the row's number in the whole output. */
static void print_row(const struct out_table *t, size_t r, size_t index, enum out_format f,
		      const size_t *w, struct strbuf *sb, FILE *fp)
{
	const struct out_cell *row = &t->cells[r * t->nr_cols];
	size_t k;

	if (f == OUT_JSON)
		fputs(index ? ",\n {" : "\n {", fp);
	for (k = 0; k < t->nr_cols; k++) {
		const struct out_cell *c = &row[k];

		switch (f) {
		case OUT_TABLE:
			cell_text(c, sb);
			if (c->type == OUT_INT || c->type == OUT_REAL)
				fprintf(fp, "%s%*s", k ? "  " : "", (int)w[k], sb->buf);
			else
				fprintf(fp, "%s%-*s", k ? "  " : "",
					k + 1 < t->nr_cols ? (int)w[k] : 0, sb->buf);
			break;
		case OUT_CSV:
			if (k)
				fputc(',', fp);
			cell_text(c, sb);
			csv_field(fp, sb->buf);
			break;
		case OUT_JSON:
			if (k)
				fputs(", ", fp);
			out_json_str(fp, t->cols[k]);
			fputs(": ", fp);
			if (c->type == OUT_NULL)
				fputs("null", fp);
			else if (c->type == OUT_INT)
				fprintf(fp, "%" PRId64, c->i);
			else if (c->type == OUT_REAL && !isfinite(c->d))
				fputs("null", fp);	/* JSON has no inf, -inf, nan */
			else if (c->type == OUT_REAL)
				fprintf(fp, "%.17g", c->d);
			else
				out_json_str(fp, c->s);
			break;
		}
	}
	fputs(f == OUT_JSON ? "}" : "\n", fp);
}

/* Print the rows held (after the header) and forget them. */
static void print_held(struct out_table *t, enum out_format f, FILE *fp)
{
	size_t rows = t->nr_cols ? t->nr_cells / t->nr_cols : 0, r;
	struct strbuf sb = STRBUF_INIT;

	for (r = 0; r < rows; r++)
		print_row(t, r, t->printed++, f, t->widths, &sb, fp);
	strbuf_release(&sb);
	drop_cells(t);
}

void out_stream(struct out_table *t, enum out_format f, FILE *fp)
{
	t->stream = fp;
	t->stream_format = f;
}

/* A row is complete: a streaming table prints it, or holds it while sizing columns. */
static void row_done(struct out_table *t)
{
	if (!t->widths) {
		if (t->stream_format == OUT_TABLE &&
		    t->nr_cells / t->nr_cols < OUT_STREAM_SAMPLE)
			return;
		t->widths = table_widths(t);
		print_header(t, t->stream_format, t->widths, t->stream);
	}
	print_held(t, t->stream_format, t->stream);
}

static struct out_cell *next_cell(struct out_table *t)
{
	struct out_cell *c;

	XGROW(t->cells, t->cap_cells, t->nr_cells + 1);
	c = &t->cells[t->nr_cells++];
	memset(c, 0, sizeof(*c));
	return c;
}

/* After the cell is filled in. */
static void cell_done(struct out_table *t)
{
	if (t->stream && t->nr_cols && t->nr_cells % t->nr_cols == 0)
		row_done(t);
}

void out_null(struct out_table *t)
{
	next_cell(t)->type = OUT_NULL;
	cell_done(t);
}

void out_int(struct out_table *t, int64_t v)
{
	struct out_cell *c = next_cell(t);

	c->type = OUT_INT;
	c->i = v;
	cell_done(t);
}

void out_real(struct out_table *t, double v)
{
	struct out_cell *c = next_cell(t);

	c->type = OUT_REAL;
	c->d = v;
	cell_done(t);
}

void out_text(struct out_table *t, const char *s)
{
	struct out_cell *c = next_cell(t);

	c->type = s ? OUT_TEXT : OUT_NULL;
	c->s = s ? xstrdup(s) : NULL;
	cell_done(t);
}

void out_hex(struct out_table *t, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	out_text(t, buf);
}

void out_print(struct out_table *t, enum out_format f, FILE *fp)
{
	if (t->stream) {
		f = t->stream_format;
		fp = t->stream;
	}
	if (!t->widths) {
		t->widths = table_widths(t);
		print_header(t, f, t->widths, fp);
	}
	print_held(t, f, fp);
	if (f == OUT_JSON)
		fputs(t->printed ? "\n]\n" : "]\n", fp);
}
