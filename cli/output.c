// SPDX-License-Identifier: GPL-2.0
/* output.c - table, CSV and JSON printing of a filled struct out_table; see output.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
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

void out_release(struct out_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++)
		free(t->cols[i]);
	for (i = 0; i < t->nr_cells; i++)
		free(t->cells[i].s);
	free(t->cols);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static struct out_cell *next_cell(struct out_table *t)
{
	struct out_cell *c;

	XGROW(t->cells, t->cap_cells, t->nr_cells + 1);
	c = &t->cells[t->nr_cells++];
	memset(c, 0, sizeof(*c));
	return c;
}

void out_null(struct out_table *t)
{
	next_cell(t)->type = OUT_NULL;
}

void out_int(struct out_table *t, int64_t v)
{
	struct out_cell *c = next_cell(t);

	c->type = OUT_INT;
	c->i = v;
}

void out_real(struct out_table *t, double v)
{
	struct out_cell *c = next_cell(t);

	c->type = OUT_REAL;
	c->d = v;
}

void out_text(struct out_table *t, const char *s)
{
	struct out_cell *c = next_cell(t);

	c->type = s ? OUT_TEXT : OUT_NULL;
	c->s = s ? xstrdup(s) : NULL;
}

void out_hex(struct out_table *t, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	out_text(t, buf);
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
		strbuf_addstr(sb, c->s);
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

static void print_table(const struct out_table *t, FILE *fp)
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
	for (k = 0; k < t->nr_cols; k++)
		fprintf(fp, "%s%-*s", k ? "  " : "", k + 1 < t->nr_cols ? (int)w[k] : 0,
			t->cols[k]);
	fputc('\n', fp);
	for (r = 0; r < rows; r++) {
		for (k = 0; k < t->nr_cols; k++) {
			const struct out_cell *c = &t->cells[r * t->nr_cols + k];
			int num = c->type == OUT_INT || c->type == OUT_REAL;

			cell_text(c, &sb);
			if (num)
				fprintf(fp, "%s%*s", k ? "  " : "", (int)w[k], sb.buf);
			else
				fprintf(fp, "%s%-*s", k ? "  " : "",
					k + 1 < t->nr_cols ? (int)w[k] : 0, sb.buf);
		}
		fputc('\n', fp);
	}
	strbuf_release(&sb);
	free(w);
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

static void print_csv(const struct out_table *t, FILE *fp)
{
	size_t rows = t->nr_cols ? t->nr_cells / t->nr_cols : 0, r, k;
	struct strbuf sb = STRBUF_INIT;

	for (k = 0; k < t->nr_cols; k++) {
		if (k)
			fputc(',', fp);
		csv_field(fp, t->cols[k]);
	}
	fputc('\n', fp);
	for (r = 0; r < rows; r++) {
		for (k = 0; k < t->nr_cols; k++) {
			if (k)
				fputc(',', fp);
			cell_text(&t->cells[r * t->nr_cols + k], &sb);
			csv_field(fp, sb.buf);
		}
		fputc('\n', fp);
	}
	strbuf_release(&sb);
}

static void print_json(const struct out_table *t, FILE *fp)
{
	size_t rows = t->nr_cols ? t->nr_cells / t->nr_cols : 0, r, k;

	fputc('[', fp);
	for (r = 0; r < rows; r++) {
		fputs(r ? ",\n {" : "\n {", fp);
		for (k = 0; k < t->nr_cols; k++) {
			const struct out_cell *c = &t->cells[r * t->nr_cols + k];

			if (k)
				fputs(", ", fp);
			out_json_str(fp, t->cols[k]);
			fputs(": ", fp);
			switch (c->type) {
			case OUT_NULL:
				fputs("null", fp);
				break;
			case OUT_INT:
				fprintf(fp, "%" PRId64, c->i);
				break;
			case OUT_REAL:
				fprintf(fp, "%.17g", c->d);
				break;
			case OUT_TEXT:
				out_json_str(fp, c->s);
				break;
			}
		}
		fputc('}', fp);
	}
	fputs(rows ? "\n]\n" : "]\n", fp);
}

void out_print(const struct out_table *t, enum out_format f, FILE *fp)
{
	switch (f) {
	case OUT_TABLE:
		print_table(t, fp);
		break;
	case OUT_CSV:
		print_csv(t, fp);
		break;
	case OUT_JSON:
		print_json(t, fp);
		break;
	}
}
