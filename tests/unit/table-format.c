// SPDX-License-Identifier: GPL-2.0
/*
 * table-format.c - lib/table.c: the three --format styles of a table, byte for byte
 * against hand-written expectations (docs/cli-json.md): RFC 4180 quoting in CSV, JSON
 * strings escaped (quotes, backslashes, control characters), null cells, the aligned
 * table style, and a streamed table printing the same document as a held one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/table.h"
#include "tests/unit/tap.h"

static void fill(struct out_table *t, int stream, enum out_format f, FILE *fp)
{
	static const char *const cols[] = { "name", "n", "x" };

	out_init(t, cols, 3);
	if (stream)
		out_stream(t, f, fp);
	out_text(t, "a,b \"q\"");
	out_int(t, -12);
	out_null(t);
	out_text(t, "tab\there\nnl");
	out_hex(t, 0x1000);
	out_real(t, 0.5);
}

/* The document of the table above in format f, streamed or held. */
static char *render(enum out_format f, int stream)
{
	struct out_table t = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	fill(&t, stream, f, fp);
	out_print(&t, f, fp);
	out_release(&t);
	fclose(fp);
	return buf;
}

static int same(const char *got, const char *want, const char *what)
{
	int r = ok(!strcmp(got, want), "%s", what);

	if (!r)
		diag("got:\n%s\nwant:\n%s", got, want);
	return r;
}

int main(void)
{
	char *held, *streamed, *s;
	enum out_format f;

	plan(9);
	s = render(OUT_CSV, 0);
	same(s, "name,n,x\n\"a,b \"\"q\"\"\",-12,\ntab\\there\\nnl,0x1000,0.5\n",
	     "csv: quoted fields with doubled quotes, null as empty, hex as text, control "
	     "characters escaped (one record a line)");
	free(s);
	s = render(OUT_JSON, 0);
	ok(strstr(s, "\"name\": \"a,b \\\"q\\\"\"") && strstr(s, "\"x\": null") &&
	   strstr(s, "\"tab\\u0009here\\u000anl\"") && strstr(s, "\"n\": -12") &&
	   strstr(s, "\"n\": \"0x1000\"") && s[0] == '[', "json: one array of objects, strings "
	   "escaped, null cells null, hex as a string");
	free(s);
	s = render(OUT_JSON, 0);
	ok(!strchr(s, '\t'), "json: no raw control character in a string");
	free(s);
	s = render(OUT_TABLE, 0);
	ok(!strncmp(s, "name           n       x\n", 25) &&
	   strstr(s, "a,b \"q\"           -12  \n") && strstr(s, "tab\\there\\nnl") &&
	   !strchr(s, '\t'), "table: columns sized to the widest cell (13 bytes: the tab and "
	   "the newline escaped, two each), numbers right-aligned");
	free(s);
	{
		/* a symbol name holding an ESC sequence never reaches the terminal raw */
		struct out_table t;
		static const char *const cols[] = { "site" };
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);

		out_init(&t, cols, 1);
		out_text(&t, "f\033[2J\x7f");
		out_print(&t, OUT_TABLE, fp);
		fclose(fp);
		out_release(&t);
		ok(!strchr(buf, '\033') && !strchr(buf, 0x7f) && strstr(buf, "f\\x1b[2J\\x7f"),
		   "table: ESC and DEL escaped as \\xHH (csv shares the cell text)");
		s = buf;
	}
	free(s);
	{
		/* columns null in every row left out (compare's fault_time without a model) */
		static const char *const cols[] = { "a", "empty", "b", "none" };
		struct out_table t;
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);

		out_init(&t, cols, 4);
		out_int(&t, 1); out_null(&t); out_null(&t); out_null(&t);
		out_int(&t, 2); out_null(&t); out_text(&t, "x"); out_null(&t);
		ok(out_drop_empty_cols(&t) == 2 && t.nr_cols == 2, "drop: the 2 null columns left "
		   "out, one with a value in one row kept");
		out_print(&t, OUT_CSV, fp);
		fclose(fp);
		out_release(&t);
		same(buf, "a,b\n1,\n2,x\n", "drop: the cells of the kept columns, in order");
		free(buf);
	}
	for (f = OUT_TABLE; f <= OUT_JSON; f++) {
		if (f == OUT_TABLE)
			continue;	/* streamed tables size columns from a sample: same here */
		held = render(f, 0);
		streamed = render(f, 1);
		same(streamed, held, f == OUT_CSV ? "csv: streamed = held" : "json: streamed = held");
		free(held);
		free(streamed);
	}
	return done_testing();
}
