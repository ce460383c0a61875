// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-query.c - foliotrace query: look into a trace database, read-only.
 *
 * The database is opened with SQLITE_OPEN_READONLY (ftdb_open FTDB_READONLY) for every
 * view; `sql` additionally refuses any statement that writes (db/query.h), so a query can
 * never change the database.
 * Output: --format table|csv|json, JSON names documented in docs/cli-json.md; sql streams
 * its rows.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "db/ftdb.h"
#include "db/query.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/latency.h"

static const char usage_text[] =
	"usage: foliotrace query DB [--trace ID] [--format table|csv|json] [--pid PID]\n"
	"                        [--workload] [--limit N] [--stack]\n"
	"                        summary|procs|vmas|faults|orders|latency|sites|sql SQL\n"
	"\n"
	"    summary        the trace: header, totals, events per type\n"
	"    procs          processes (one per address space) with their event counts\n"
	"    vmas           VMA shapes seen by faults, per process\n"
	"    faults         anon_fault records decoded from the event stream\n"
	"    orders         faults and page-table entries per mapped order\n"
	"    latency        exact p50/p90/p99/max fault latency per mapped order\n"
	"    sites          anonymous memory per allocation site (traces recorded with sites)\n"
	"    sql SQL        run one read-only SQL statement\n"
	"\n"
	"    -t, --trace ID      trace to show (default: the only or newest recorded one)\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -p, --pid PID       procs, vmas, faults, latency, sites: only this process (tgid)\n"
	"    -w, --workload      procs: only the recorded workload's processes (the tree its\n"
	"                        command started), not the guest's own setup\n"
	"    -s, --stack         sites: one row per call stack, with its frames\n"
	"    -n, --limit N       procs, vmas, faults: at most N rows\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "trace", required_argument, NULL, 't' },
	{ "format", required_argument, NULL, 'f' },
	{ "pid", required_argument, NULL, 'p' },
	{ "limit", required_argument, NULL, 'n' },
	{ "workload", no_argument, NULL, 'w' },
	{ "stack", no_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct query_opts {
	sqlite3 *db;		/* read-only connection */
	int64_t trace_id;	/* resolved trace */
	enum out_format format;
	int64_t limit;		/* --limit: rows at most, -1 for all */
	int64_t pid;		/* --pid: only this tgid, -1 for all */
	int workload;		/* --workload: only the workload's processes */
};

/* Rows of a view into a table: its columns taken once, hex_cols printed as 0x... */
struct table_rows {
	struct out_table *t;
	const char *const *hex_cols;	/* NULL-terminated, or NULL */
	unsigned char *hex;		/* per column: 1 to print it in hex */
};

static int take_columns(void *arg, const char *const *names, int n)
{
	struct table_rows *x = arg;
	int i, k;

	x->hex = xcalloc((size_t)n + 1, 1);
	for (i = 0; i < n; i++)
		for (k = 0; x->hex_cols && x->hex_cols[k]; k++)
			x->hex[i] |= !strcmp(x->hex_cols[k], names[i]);
	if (x->t->nr_cols)
		return 0;	/* a table whose columns the view's caller named */
	for (i = 0; i < n; i++)
		out_add_col(x->t, names[i]);
	return 0;
}

static int take_row(void *arg, const struct ftdb_value *v, int n)
{
	struct table_rows *x = arg;
	int i;

	for (i = 0; i < n; i++) {
		switch (v[i].type) {
		case FTDB_V_NULL:
			out_null(x->t);
			break;
		case FTDB_V_INT:
			if (x->hex[i])
				out_hex(x->t, (uint64_t)v[i].i);
			else
				out_int(x->t, v[i].i);
			break;
		case FTDB_V_REAL:
			out_real(x->t, v[i].d);
			break;
		case FTDB_V_BLOB:
			out_text(x->t, "(blob)");
			break;
		default:
			out_text(x->t, v[i].s);
		}
	}
	return 0;
}

/* View v's rows into t (printed as they come if t streams). */
static int view_table(const struct query_opts *o, enum ftdb_view v, struct out_table *t,
		      const char *const *hex_cols)
{
	struct ftdb_view_args a = { .trace_id = o->trace_id, .pid = o->pid, .limit = o->limit,
				    .workload = o->workload };
	struct table_rows x = { .t = t, .hex_cols = hex_cols };
	struct ftdb_rows out = { take_columns, take_row, &x };
	int ret = ftdb_view(o->db, v, &a, &out);

	free(x.hex);
	return ret;
}

/*
 * summary: JSON is one object (the trace's columns and totals, "events": {name: count});
 * table and CSV are key/value rows with the event counts as "events.NAME".
 */
static int query_summary(const struct query_opts *o)
{
	struct out_table t = { 0 }, ev = { 0 }, kv = { 0 };
	static const char *const kv_cols[] = { "key", "value" };
	size_t i, rows;
	int ret = -1;

	if (view_table(o, FTDB_VIEW_SUMMARY, &t, NULL) ||
	    view_table(o, FTDB_VIEW_EVENTS, &ev, NULL))
		goto out;
	rows = t.nr_cells / t.nr_cols;
	if (rows != 1) {
		fail("trace %lld not found", (long long)o->trace_id);
		goto out;
	}
	if (o->format == OUT_JSON) {
		printf("{");
		for (i = 0; i < t.nr_cols; i++) {
			const struct out_cell *c = &t.cells[i];

			printf(i ? ",\n \"%s\": " : "\n \"%s\": ", t.cols[i]);
			if (c->type == OUT_INT)
				printf("%lld", (long long)c->i);
			else if (c->type == OUT_TEXT)
				out_json_str(stdout, c->s);
			else
				printf("null");
		}
		printf(",\n \"events\": {");
		for (i = 0; i < ev.nr_cells / 2; i++) {
			printf(i ? ", " : "");
			out_json_str(stdout, ev.cells[2 * i].s);
			printf(": %lld", (long long)ev.cells[2 * i + 1].i);
		}
		printf("}\n}\n");
		ret = 0;
		goto out;
	}
	out_init(&kv, kv_cols, 2);
	for (i = 0; i < t.nr_cols; i++) {
		const struct out_cell *c = &t.cells[i];

		out_text(&kv, t.cols[i]);
		if (c->type == OUT_INT) {
			/* as text: one left-aligned value column reads better */
			char num[24];

			snprintf(num, sizeof(num), "%lld", (long long)c->i);
			out_text(&kv, num);
		} else {
			out_text(&kv, c->type == OUT_TEXT ? c->s : NULL);
		}
	}
	for (i = 0; i < ev.nr_cells / 2; i++) {
		struct strbuf key = STRBUF_INIT;

		strbuf_addf(&key, "events.%s", ev.cells[2 * i].s);
		out_text(&kv, key.buf);
		strbuf_reset(&key);
		strbuf_addf(&key, "%lld", (long long)ev.cells[2 * i + 1].i);
		out_text(&kv, key.buf);
		strbuf_release(&key);
	}
	out_print(&kv, o->format, stdout);
	ret = 0;
out:
	out_release(&t);
	out_release(&ev);
	out_release(&kv);
	return ret;
}

/* faults: decoded from the event stream and printed as they come (db/query.h). */
static int query_faults(const struct query_opts *o, struct out_table *t)
{
	static const char *const hex_cols[] = { "address", NULL };
	struct ftdb_view_args a = { .trace_id = o->trace_id, .pid = o->pid, .limit = o->limit };
	struct table_rows x = { .t = t, .hex_cols = hex_cols };
	struct ftdb_rows out = { take_columns, take_row, &x };
	int ret;

	out_stream(t, o->format, stdout);
	ret = ftdb_view_faults(o->db, &a, &out);
	free(x.hex);
	return ret;
}

/* latency: replay/latency.h's rows. */
static int query_latency(const struct query_opts *o, struct out_table *t)
{
	static const char *const cols[] = { "order", "zero_page", "faults", "p50_ns", "p90_ns",
					    "p99_ns", "max_ns", "mean_ns" };
	struct rp_latency_row *rows;
	size_t nr, i;

	out_init(t, cols, sizeof(cols) / sizeof(cols[0]));
	if (rp_latency_rows(o->db, o->trace_id, o->pid, &rows, &nr))
		return -1;
	for (i = 0; i < nr; i++) {
		out_int(t, rows[i].order);
		out_int(t, rows[i].zero_page);
		out_int(t, rows[i].faults);
		out_int(t, rows[i].p50_ns);
		out_int(t, rows[i].p90_ns);
		out_int(t, rows[i].p99_ns);
		out_int(t, rows[i].max_ns);
		out_int(t, rows[i].mean_ns);
	}
	free(rows);
	return 0;
}

/* 1 if the trace says which processes are the workload's; else 0 with fail() said. */
static int trace_marks_workload(const struct query_opts *o)
{
	int marked;

	if (ftdb_trace_marks_workload(o->db, o->trace_id, &marked))
		return 0;
	if (!marked)
		fail("trace %lld does not mark its workload's processes (recorded without "
		      "header/workload_pid); use --pid or --comm", (long long)o->trace_id);
	return marked;
}

/* sql: the user's one read-only statement (ftdb_user_sql()), its rows printed as read. */
static int query_sql(const struct query_opts *o, const char *sql)
{
	struct out_table t = { 0 };
	struct table_rows x = { .t = &t };
	struct ftdb_rows out = { take_columns, take_row, &x };
	int ret;

	/* stream: the first row is out before the last is read, memory stays flat */
	out_stream(&t, o->format, stdout);
	ret = ftdb_user_sql(o->db, sql, &out);
	if (!ret)
		out_print(&t, o->format, stdout);
	free(x.hex);
	out_release(&t);
	return ret;
}

static int usage_error(const char *msg)
{
	return cli_usage_error("query", usage_text, msg);
}

static const char *const views[] = {
	"summary", "procs", "vmas", "faults", "orders", "latency", "sites", "sql", NULL
};

int cmd_query(int argc, char **argv)
{
	struct query_opts o = { .format = OUT_TABLE, .limit = -1, .pid = -1 };
	static const char *const hex_cols[] = { "mm", "start", "end", "flags", NULL };
	int64_t want = 0;
	const char *path, *view, *pos[3];	/* DB, view, SQL */
	struct out_table t = { 0 };
	int c, i, ret = 1, nr_pos = 0, end_of_opts = 0, sql_next_done = 0, stack = 0;

	/*
	 * Options may come anywhere before the SQL; "--" ends them; the argument after the
	 * view "sql" is the SQL even when it starts with "-" ("-- a comment\nSELECT ...").
	 * '+': getopt stops at the first non-option, this loop collects the positionals.
	 */
	optind = 1;
	while (optind < argc) {
		const char *a = argv[optind];

		if (nr_pos == 2 && !strcmp(pos[1], "sql") && !sql_next_done) {
			if (!strcmp(a, "--"))
				optind++;
			sql_next_done = 1;
			if (optind < argc)
				pos[nr_pos++] = argv[optind++];
			continue;
		}
		if (end_of_opts || a[0] != '-' || !a[1]) {
			if (nr_pos < 3)
				pos[nr_pos] = a;
			nr_pos++;
			optind++;
			continue;
		}
		if (!strcmp(a, "--")) {
			end_of_opts = 1;
			optind++;
			continue;
		}
		c = getopt_long(argc, argv, "+t:f:p:n:wsh", options, NULL);
		switch (c) {
		case 't':
			if (cli_parse_num("query", "--trace", optarg, &want))
				return usage_error(NULL);
			break;
		case 'f':
			if (out_parse_format(optarg, &o.format))
				return usage_error("--format is table, csv or json");
			break;
		case 'p':
			if (cli_parse_num("query", "--pid", optarg, &o.pid))
				return usage_error(NULL);
			break;
		case 'n':
			if (cli_parse_num("query", "--limit", optarg, &o.limit))
				return usage_error(NULL);
			break;
		case 'w':
			o.workload = 1;
			break;
		case 's':
			stack = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	if (nr_pos < 2)
		return usage_error("expected DB and a view");
	path = pos[0];
	view = pos[1];
	for (i = 0; views[i]; i++)
		if (!strcmp(views[i], view))
			break;
	if (!views[i])
		return usage_error("unknown view");
	if (nr_pos != (strcmp(view, "sql") ? 2 : 3))
		return usage_error(strcmp(view, "sql") ? "too many arguments"
						       : "sql wants one SQL statement");

	if (stack && strcmp(view, "sites"))
		return usage_error("--stack is for the sites view");
	if (ftdb_open(path, FTDB_READONLY, &o.db))
		return 1;
	if (strcmp(view, "sql") && ftdb_pick_trace(o.db, want, &o.trace_id))
		goto out;
	if (!strcmp(view, "summary")) {
		ret = query_summary(&o) ? 1 : 0;
		goto out;
	}
	if (!strcmp(view, "sql")) {
		ret = query_sql(&o, pos[2]) ? 1 : 0;
		goto out;
	}
	if (o.workload && strcmp(view, "procs")) {
		ret = usage_error("--workload is for procs");
		goto out;
	}
	if (o.workload && !trace_marks_workload(&o))
		goto out;
	if (!strcmp(view, "procs"))
		ret = view_table(&o, FTDB_VIEW_PROCS, &t, hex_cols);
	else if (!strcmp(view, "vmas"))
		ret = view_table(&o, FTDB_VIEW_VMAS, &t, hex_cols);
	else if (!strcmp(view, "orders"))
		ret = view_table(&o, FTDB_VIEW_ORDERS, &t, NULL);
	else if (!strcmp(view, "sites"))
		ret = view_table(&o, stack ? FTDB_VIEW_STACKS : FTDB_VIEW_SITES, &t, NULL);
	else if (!strcmp(view, "faults"))
		ret = query_faults(&o, &t);
	else
		ret = query_latency(&o, &t);
	if (!ret)
		out_print(&t, o.format, stdout);
	ret = ret ? 1 : 0;
out:
	out_release(&t);
	ftdb_close(o.db);
	return ret;
}
