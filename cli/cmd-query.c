// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-query.c - foliotrace query: look into a trace database, read-only.
 *
 * The database is opened with SQLITE_OPEN_READONLY (ftdb_open FTDB_READONLY) for every
 * view; `sql` additionally refuses any statement sqlite3_stmt_readonly() does not vouch
 * for (PRAGMA reads excepted: see query_sql()), so a query can never change the database.
 * Output: --format table|csv|json, JSON names documented in docs/cli-json.md; sql streams
 * its rows.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/query.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"

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

/*
 * Run the prepared st with the trace id (and --pid, --limit) bound, one table row per
 * result row (printed as it comes if t streams); finalizes st.
 */
static int sql_rows(const struct query_opts *o, sqlite3_stmt *st, struct out_table *t,
		    const char *const *hex_cols)
{
	int i, n, rc, k;

	for (i = 1; i <= sqlite3_bind_parameter_count(st); i++) {
		const char *name = sqlite3_bind_parameter_name(st, i);

		if (!name)
			continue;
		if (!strcmp(name, ":trace"))
			sqlite3_bind_int64(st, i, o->trace_id);
		else if (!strcmp(name, ":pid"))
			sqlite3_bind_int64(st, i, o->pid);
		else if (!strcmp(name, ":limit"))
			sqlite3_bind_int64(st, i, o->limit);
		else if (!strcmp(name, ":workload"))
			sqlite3_bind_int(st, i, o->workload);
	}
	n = sqlite3_column_count(st);
	if (!t->nr_cols)
		for (i = 0; i < n; i++)
			out_add_col(t, sqlite3_column_name(st, i));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			int hex = 0;

			for (k = 0; hex_cols && hex_cols[k]; k++)
				hex |= !strcmp(hex_cols[k], sqlite3_column_name(st, i));
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				out_null(t);
				break;
			case SQLITE_INTEGER:
				if (hex)
					out_hex(t, (uint64_t)sqlite3_column_int64(st, i));
				else
					out_int(t, sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				out_real(t, sqlite3_column_double(st, i));
				break;
			case SQLITE_BLOB:
				out_text(t, "(blob)");
				break;
			default:
				out_text(t, (const char *)sqlite3_column_text(st, i));
			}
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("query failed: %s", sqlite3_errmsg(o->db));
	return 0;
}

/* sql_rows() of one of our own statements. */
static int sql_table(const struct query_opts *o, const char *sql, struct out_table *t,
		     const char *const *hex_cols)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(o->db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("query failed: %s", sqlite3_errmsg(o->db));
	return sql_rows(o, st, t, hex_cols);
}

static const char summary_sql[] =
	"SELECT t.trace_id, t.uuid, t.path, t.arch, t.page_size, t.kernel, t.policy, "
	"t.mem_bytes, t.cpus, t.workload, t.workload_status, t.clocksource, t.clock, "
	"t.discarded_events, t.partial, t.parent_trace_id, t.first_ts, t.last_ts, "
	"t.last_ts - t.first_ts AS duration_ns, t.events AS events_total, "
	"(SELECT count(*) FROM process WHERE trace_id = t.trace_id) AS processes, "
	"(SELECT count(*) FROM vma JOIN process USING (proc_id) "
	" WHERE process.trace_id = t.trace_id) AS vmas, "
	"(SELECT coalesce(sum(anon_faults), 0) FROM process WHERE trace_id = t.trace_id) "
	" AS anon_faults, "
	"(SELECT coalesce(sum(zero_wp), 0) FROM process WHERE trace_id = t.trace_id) AS zero_wp, "
	"(SELECT coalesce(sum(cow), 0) FROM process WHERE trace_id = t.trace_id) AS cow, "
	"(SELECT coalesce(sum(zaps), 0) FROM process WHERE trace_id = t.trace_id) AS zaps, "
	"(SELECT coalesce(sum(nr_events), 0) FROM event_chunk WHERE trace_id = t.trace_id) "
	" AS stream_records, "
	"(SELECT coalesce(sum(length(data)), 0) FROM event_chunk WHERE trace_id = t.trace_id) "
	" AS stream_bytes, "
	"t.ingested_at, t.tool_version FROM trace t WHERE t.trace_id = :trace";

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

	if (sql_table(o, summary_sql, &t, NULL) ||
	    sql_table(o, "SELECT name, count FROM event_count WHERE trace_id = :trace "
			 "ORDER BY name", &ev, NULL))
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

static const char procs_sql[] =
	"SELECT p.proc_id, p.pid, p.comm, p.mm, p.parent_proc_id, p.anon_faults, p.zero_wp, "
	"p.cow, p.zaps, (SELECT count(*) FROM vma v WHERE v.proc_id = p.proc_id) AS vmas, "
	"p.first_ts, p.last_ts FROM process p WHERE p.trace_id = :trace "
	"AND (:pid < 0 OR p.pid = :pid) AND (NOT :workload OR p.workload = 1) "
	"ORDER BY p.proc_id LIMIT :limit";

static const char vmas_sql[] =
	"SELECT v.vma_id, v.proc_id, p.pid, p.comm, v.start, v.end, v.end - v.start AS bytes, "
	"v.flags, v.faults, v.first_ts FROM vma v JOIN process p USING (proc_id) "
	"WHERE p.trace_id = :trace AND (:pid < 0 OR p.pid = :pid) "
	"ORDER BY v.proc_id, v.start, v.vma_id LIMIT :limit";

static const char orders_sql[] =
	"SELECT order_ AS \"order\", "
	"(SELECT page_size FROM trace WHERE trace_id = :trace) << order_ AS block_bytes, "
	"sum(faults) AS faults, sum(CASE WHEN zero_page THEN faults ELSE 0 END) "
	"AS zero_page_faults, sum(ptes) AS ptes, "
	"sum(CASE WHEN zero_page THEN 0 ELSE ptes END) * "
	"(SELECT page_size FROM trace WHERE trace_id = :trace) AS mapped_bytes "
	"FROM fault_order WHERE trace_id = :trace GROUP BY order_ ORDER BY order_";

/*
 * sites (docs/sites.md): per site, or per stack with --stack; the '[no call]' rows hold the
 * faults of traced processes that no call's range covers. Lifetime: from the call to its
 * range's unmapping (end_ts), median over the site's regions.
 */
#define SITES_SQL(KEY, COLS, MATCH) \
	"WITH c AS (SELECT c.*, s.status FROM site_call c LEFT JOIN site_stack s USING " \
	" (stack_id) WHERE c.trace_id = :trace AND (:pid < 0 OR c.pid = :pid)), " \
	"m AS (SELECT " KEY ", end_ts - ts AS life, row_number() OVER (PARTITION BY " KEY \
	" ORDER BY end_ts - ts) AS rn, count(*) OVER (PARTITION BY " KEY ") AS n FROM c " \
	" WHERE start IS NOT NULL), " \
	"g AS (SELECT " KEY ", site, site_module, min(site_offset) AS site_offset, " \
	" sum(call <> 'none') AS calls, sum(start IS NOT NULL) AS regions, " \
	" coalesce(sum(end - start), 0) AS mapped_bytes, sum(touched_pages) AS touched_pages, " \
	" sum(faults) AS anon_faults, sum(coalesce(status, 'ok') <> 'ok') AS unwind_failed " \
	" FROM c GROUP BY " KEY ") " \
	"SELECT site, site_module AS module, " COLS "calls, regions, mapped_bytes, " \
	" touched_pages, anon_faults, CASE WHEN mapped_bytes > 0 THEN round(touched_pages * " \
	" (SELECT page_size FROM trace WHERE trace_id = :trace) * 1.0 / mapped_bytes, 4) END " \
	" AS density, (SELECT life FROM m WHERE " MATCH " AND rn = (n + 1) / 2) " \
	" AS median_lifetime_ns, unwind_failed FROM g " \
	" ORDER BY anon_faults DESC, site, module LIMIT :limit"

static const char sites_sql[] = SITES_SQL("site, site_module", "",
	"m.site = g.site AND m.site_module IS g.site_module");

static const char sites_stack_sql[] = SITES_SQL("stack_id", "site_offset AS module_offset, "
	"stack_id, (SELECT status FROM site_stack s WHERE s.stack_id = g.stack_id) AS status, "
	"(SELECT group_concat(coalesce(proc, '?') || '+0x' || printf('%x', proc_offset), ' < ') "
	" FROM (SELECT proc, proc_offset FROM site_frame f WHERE f.stack_id = g.stack_id "
	" ORDER BY depth)) AS stack, ", "m.stack_id IS g.stack_id");

/* What the authorizer saw while the user's statement was prepared. */
struct sql_auth {
	int pragma_read;	/* a PRAGMA without a value: "PRAGMA journal_mode" */
	int pragma_set;		/* a PRAGMA with a value or argument */
};

static int sql_auth_cb(void *arg, int action, const char *a1, const char *a2, const char *db,
		       const char *trigger)
{
	struct sql_auth *a = arg;

	if (action == SQLITE_PRAGMA)
		*(a2 ? &a->pragma_set : &a->pragma_read) = 1;
	return SQLITE_OK;
}

/* 1 if the trace says which processes are the workload's; else 0 with fail() said. */
static int trace_marks_workload(const struct query_opts *o)
{
	sqlite3_stmt *st;
	int marked = 0;

	if (sqlite3_prepare_v2(o->db, "SELECT count(*) FROM process WHERE trace_id = ? AND "
			       "workload IS NOT NULL", -1, &st, NULL) != SQLITE_OK) {
		fail("query failed: %s", sqlite3_errmsg(o->db));
		return 0;
	}
	sqlite3_bind_int64(st, 1, o->trace_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		marked = sqlite3_column_int64(st, 0) > 0;
	sqlite3_finalize(st);
	if (!marked)
		fail("trace %lld does not mark its workload's processes (recorded without "
		      "header/workload_pid); use --pid or --comm", (long long)o->trace_id);
	return marked;
}

/*
 * sql: exactly one statement (comments and semicolons around it are fine), and one that
 * reads: sqlite3_stmt_readonly() vouches for it, or it is a PRAGMA read, which SQLite
 * counts as a possible write for a few pragmas (journal_mode) although without a value
 * it only reports. The handle is read-only besides. Rows are printed as they are read.
 */
static int query_sql(const struct query_opts *o, const char *sql)
{
	struct out_table t = { 0 };
	struct sql_auth auth = { 0 };
	sqlite3_stmt *st, *next;
	const char *tail;
	int ret, rc;

	sqlite3_set_authorizer(o->db, sql_auth_cb, &auth);
	rc = sqlite3_prepare_v2(o->db, sql, -1, &st, &tail);
	sqlite3_set_authorizer(o->db, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail("invalid SQL: %s", sqlite3_errmsg(o->db));
	if (!st)
		return fail("empty SQL statement");
	/* what follows may only be comments, blanks and semicolons: SQLite's own lexer says */
	while (*tail) {
		if (sqlite3_prepare_v2(o->db, tail, -1, &next, &tail) != SQLITE_OK || next) {
			sqlite3_finalize(next);
			sqlite3_finalize(st);
			return fail("only one SQL statement at a time");
		}
	}
	if (!sqlite3_stmt_readonly(st) && !(auth.pragma_read && !auth.pragma_set)) {
		sqlite3_finalize(st);
		return fail("refusing a statement that writes: query is read-only");
	}
	/* stream: the first row is out before the last is read, memory stays flat */
	out_stream(&t, o->format, stdout);
	ret = sql_rows(o, st, &t, NULL);
	if (!ret)
		out_print(&t, o->format, stdout);
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
		ret = sql_table(&o, procs_sql, &t, hex_cols);
	else if (!strcmp(view, "vmas"))
		ret = sql_table(&o, vmas_sql, &t, hex_cols);
	else if (!strcmp(view, "orders"))
		ret = sql_table(&o, orders_sql, &t, NULL);
	else if (!strcmp(view, "sites"))
		ret = sql_table(&o, stack ? sites_stack_sql : sites_sql, &t, NULL);
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
