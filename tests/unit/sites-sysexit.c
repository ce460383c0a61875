// SPDX-License-Identifier: GPL-2.0
/*
 * sites-sysexit.c - a call-site side file of version 2 (entries only) paired with the
 * trace's sys_exit rows (tracer/sites.c, docs/sites.md "Attribution"). One story, written
 * twice: as version 1 (each call at its exit, with its result) into one database, and as
 * version 2 (each call at its entry, result "-") into another whose trace also holds the
 * calls' exits, and noise: exits of an untraced thread, an earlier exit of a traced
 * thread, another call's exit of the same thread. Both must store the same site_call,
 * site_stack/site_frame and site_touch rows (compared by content, not ids). The story:
 *
 *	pid 100 (threads 100, 101, 102), fork of pid 200, untraced pid 999
 *	brk(0) learns the break; mmap A (64K); interleaved mmaps of two threads:
 *	entry B (tid 100) < entry C (tid 101) < exit C < exit B, a fault on C between the two
 *	exits (it needs the records in exit order); brk grows the heap by 2 pages; munmap
 *	of A's first page; a failed mmap (-ENOMEM); fork; tid 102: an mmap with no exit
 *	followed by one that returns (the first one's exit bound), tid 101: an mmap with no
 *	exit at all (its thread died in it), whose range faults: [no call].
 *
 * Expected faults per call, counted by hand from the fault list below (independent of the
 * code): A 4 (3 of pid 100, 1 of its child), B 1, C 1, the heap's brk 1, E 1, [no call]
 * of pid 100 3 (before the heap grew, A's unmapped page, the dropped call's range);
 * pid 999's fault goes nowhere. Also: a version 2 file with calls on a trace without
 * sys_exit rows fails and stores nothing; a version 2 line with a result is malformed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "db/stream.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "tests/unit/chunkdb.h"
#include "tests/unit/tap.h"
#include "tracer/sites.h"

#define A 0x10000000ULL
#define B 0x20000000ULL
#define C 0x30000000ULL
#define D 0x40000000ULL		/* the dropped call's would-be range */
#define E 0x50000000ULL
#define HEAP 0x600000ULL

/* One call of the story: entry and exit times (trace clock, offset 0), or no exit (0). */
struct scall {
	uint64_t entry, exit;
	int pid, tid;
	const char *name;
	uint64_t a0, a1, a3;	/* address, length, flags */
	int64_t result;
	const char *frame;	/* the site's F line */
};

#define F_MAIN "F\t401000\t/usr/bin/w\t1000\tmain\t10"
#define F_WORK "F\t402000\t/usr/bin/w\t2000\tworker\t20"
#define F_LOST "F\t403000\t/usr/bin/w\t3000\tlost\t30"

static const struct scall story[] = {
	{ 1000, 1100, 100, 100, "brk", 0, 0, 0, (int64_t)HEAP, F_MAIN },
	{ 2000, 2100, 100, 100, "mmap", 0, 0x10000, 0x22, (int64_t)A, F_MAIN },
	{ 3000, 3300, 100, 100, "mmap", 0, 0x4000, 0x22, (int64_t)B, F_MAIN },
	{ 3100, 3200, 100, 101, "mmap", 0, 0x2000, 0x22, (int64_t)C, F_WORK },
	{ 4000, 4100, 100, 100, "brk", HEAP + 0x2000, 0, 0, (int64_t)(HEAP + 0x2000), F_MAIN },
	{ 5000, 5100, 100, 101, "munmap", A, 0x1000, 0, 0, F_WORK },
	{ 5500, 5600, 100, 100, "mmap", 0, 0x1000, 0x22, -12, F_MAIN },
	/* fork at 6000 */
	{ 6500, 0, 100, 102, "mmap", 0, 0x3000, 0x22, 0, F_LOST },
	{ 6600, 6700, 100, 102, "mmap", 0, 0x1000, 0x22, (int64_t)E, F_WORK },
	{ 7000, 0, 100, 101, "mmap", 0, 0x3000, 0x22, 0, F_LOST },
};
#define NR_STORY (sizeof(story) / sizeof(*story))
#define FORK_TS 6000

/* Faults: time, pid (proc_id = pid's index in procs[] + 1), address. */
static const struct { uint64_t ts; int pid; uint64_t addr; } faults[] = {
	{ 1500, 100, HEAP },		/* [no call]: the heap has not grown yet */
	{ 2200, 100, A }, { 2201, 100, A + 0x1000 },
	{ 2300, 999, A },		/* untraced */
	{ 3250, 100, C },		/* C returned, B not yet */
	{ 3400, 100, B },
	{ 4200, 100, HEAP + 0x1000 },
	{ 5200, 100, A },		/* [no call]: unmapped at 5100 */
	{ 5300, 100, A + 0x2000 },
	{ 6100, 200, A + 0x3000 },	/* the child: its copy of A */
	{ 6800, 100, E },
	{ 7500, 100, D },		/* [no call]: the call never returned */
};
static const int procs[] = { 100, 200, 999 };

static int write_file(const char *path, const struct strbuf *sb)
{
	FILE *f = fopen(path, "w");
	int rc = !f || fwrite(sb->buf, 1, sb->len, f) != sb->len;

	if (f && fclose(f))
		rc = 1;
	return rc ? fail("cannot write %s", path) : 0;
}

static void add_call(struct strbuf *sb, const struct scall *c, int v2)
{
	strbuf_addf(sb, "C\t%llu\t%d\t%d\t%s\t%llx\t%llx\t3\t%llx\tffffffff\t0\t",
		    (unsigned long long)(v2 ? c->entry : c->exit), c->pid, c->tid, c->name,
		    (unsigned long long)c->a0, (unsigned long long)c->a1,
		    (unsigned long long)c->a3);
	if (v2)
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, "%lld", (long long)c->result);
	strbuf_addf(sb, "\t2\tok\n%s\nF\t7f0000001000\t/lib/libc.so.6\t1000\t__mmap\t5\n",
		    c->frame);
}

/*
 * The side file of the story: version 1 in exit order without the calls that never
 * returned (what the tracer wrote at its syscall-exit stops), version 2 in entry order.
 */
static int write_side(const char *path, int v2)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t last = 0;
	int rc;

	strbuf_addf(&sb, "V\t%d\t1\n", v2 ? 2 : 1);
	for (;;) {
		const struct scall *next = NULL;
		uint64_t t, best = UINT64_MAX;
		size_t i;

		for (i = 0; i < NR_STORY; i++) {
			t = v2 ? story[i].entry : story[i].exit;
			if (t > last && t < best && (v2 || story[i].exit)) {
				best = t;
				next = &story[i];
			}
		}
		if (last < FORK_TS && best > FORK_TS)
			strbuf_addf(&sb, "K\t%d\t100\t200\tfork\n", FORK_TS);
		if (!next)
			break;
		add_call(&sb, next, v2);
		last = best;
	}
	strbuf_addstr(&sb, "E\t9000\t100\t100\t0\n");
	rc = write_file(path, &sb);
	strbuf_release(&sb);
	return rc;
}

static int proc_id(int pid)
{
	int i;

	for (i = 0; procs[i] != pid; i++)
		;
	return i + 1;
}

/* The trace: processes, faults, and with exits the sys_exit rows (and noise). */
static int make_db(const char *path, int exits)
{
	struct ftdb_enc enc;
	struct strbuf sql = STRBUF_INIT;
	sqlite3 *db;
	size_t i;
	int rc;

	if (ftdb_open(path, FTDB_CREATE, &db))
		return -1;
	strbuf_addstr(&sql, "BEGIN; INSERT INTO trace(trace_id, uuid, page_size, last_ts, "
		      "ingested_at, tool_version) VALUES (1, 'a', 4096, 9000, 'x', 'y'); "
		      "INSERT INTO trace_meta VALUES (1, 'clock_offset_ns', '0');");
	for (i = 0; i < sizeof(procs) / sizeof(*procs); i++)
		strbuf_addf(&sql, "INSERT INTO process(proc_id, trace_id, pid, mm) VALUES "
			    "(%zu, 1, %d, %zu);", i + 1, procs[i], i + 1);
	for (i = 0; exits && i < NR_STORY; i++)
		if (story[i].exit)
			strbuf_addf(&sql, "INSERT INTO sys_exit VALUES (1, %llu, %d, '%s', %lld);",
				    (unsigned long long)story[i].exit, story[i].tid,
				    story[i].name, (long long)story[i].result);
	/* noise: an untraced thread's exits, tid 100's exit before its first traced entry,
	 * another call's exit of tid 101 inside C's call (a name that must not pair) */
	if (exits)
		strbuf_addstr(&sql, "INSERT INTO sys_exit VALUES (1, 2050, 999, 'mmap', 1);"
			      "INSERT INTO sys_exit VALUES (1, 3150, 999, 'mmap', 2);"
			      "INSERT INTO sys_exit VALUES (1, 900, 100, 'brk', 4096);"
			      "INSERT INTO sys_exit VALUES (1, 3150, 101, 'madvise', 0);");
	rc = ftdb_exec(db, sql.buf);
	strbuf_release(&sql);
	ftdb_enc_init(&enc);
	for (i = 0; i < sizeof(faults) / sizeof(*faults); i++) {
		struct ftdb_event ev = { .kind = FTDB_EV_FAULT, .nr_ptes = 1, .flags = FTDB_EVF_WRITE };

		ev.ts = faults[i].ts;
		ev.proc_id = (uint32_t)proc_id(faults[i].pid);
		ev.addr = faults[i].addr;
		ftdb_enc_add(&enc, &ev);
	}
	if (!rc)
		rc = chunkdb_store(db, &enc, 1500, 7500);
	if (!rc)
		rc = ftdb_exec(db, "COMMIT");
	ftdb_enc_release(&enc);
	ftdb_close(db);
	return rc ? -1 : 0;
}

/* The rows of sql, one line each, in the strbuf; Return: number of rows, -1 on error. */
static int rows(const char *path, const char *sql, struct strbuf *out)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int n = 0, k;

	strbuf_reset(out);
	if (ftdb_open(path, FTDB_READONLY, &db))
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		diag("%s: %s", sql, sqlite3_errmsg(db));
		ftdb_close(db);
		return -1;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (k = 0; k < sqlite3_column_count(st); k++) {
			const unsigned char *t = sqlite3_column_text(st, k);

			strbuf_addf(out, "%s%s", k ? "|" : "", t ? (const char *)t : "NULL");
		}
		strbuf_addch(out, '\n');
		n++;
	}
	sqlite3_finalize(st);
	ftdb_close(db);
	return n;
}

static long long one(const char *path, const char *sql)
{
	struct strbuf sb = STRBUF_INIT;
	long long v = rows(path, sql, &sb) == 1 ? atoll(sb.buf) : -1;

	strbuf_release(&sb);
	return v;
}

/* The same rows of sql in both databases (and at least one). */
static void same(const char *db1, const char *db2, const char *sql, const char *what)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int na = rows(db1, sql, &a), nb = rows(db2, sql, &b);

	ok(na > 0 && na == nb && !strcmp(a.buf, b.buf), "%s: %d rows, the same", what, na);
	if (na <= 0 || strcmp(a.buf, b.buf))
		diag("version 1:\n%sversion 2:\n%s", a.buf, b.buf);
	strbuf_release(&a);
	strbuf_release(&b);
}

#define CALLS "SELECT ts, pid, tid, call, arg0, arg1, arg3, result, start, end, end_ts, site, " \
	      "site_module, faults, touched_pages FROM site_call ORDER BY ts, pid, tid"

int main(void)
{
	char dir[] = "/tmp/ft-sites-sysexit-XXXXXX";
	struct strbuf p1 = STRBUF_INIT, p2 = STRBUF_INIT, s1 = STRBUF_INIT, s2 = STRBUF_INIT;
	struct strbuf p3 = STRBUF_INIT, bad = STRBUF_INIT, sb = STRBUF_INIT;
	struct strbuf *files[] = { &p1, &p2, &p3, &s1, &s2, &bad };
	size_t k;
	int rc;

	plan(17);
	if (!mkdtemp(dir)) {
		diag("cannot make %s", dir);
		return 1;
	}
	strbuf_addf(&p1, "%s/v1.db", dir);
	strbuf_addf(&p2, "%s/v2.db", dir);
	strbuf_addf(&p3, "%s/noexit.db", dir);
	strbuf_addf(&s1, "%s/v1.txt", dir);
	strbuf_addf(&s2, "%s/v2.txt", dir);
	strbuf_addf(&bad, "%s/bad.txt", dir);
	if (write_side(s1.buf, 0) || write_side(s2.buf, 1) || make_db(p1.buf, 0) ||
	    make_db(p2.buf, 1) || make_db(p3.buf, 0)) {
		diag("cannot make the traces: %s", error_text());
		return 1;
	}
	rc = ft_sites_store(p1.buf, 1, s1.buf, NULL);
	ok(!rc, "version 1 stored");
	if (rc)
		diag("%s", error_text());
	error_clear();
	rc = ft_sites_store(p2.buf, 1, s2.buf, NULL);
	ok(!rc, "version 2 stored with the trace's exits");
	if (rc)
		diag("%s", error_text());
	error_clear();

	same(p1.buf, p2.buf, CALLS, "site_call (times, results, ranges, faults per call)");
	same(p1.buf, p2.buf, "SELECT c.ts, c.tid, f.depth, f.ip, f.module, f.proc FROM site_call c "
	     "JOIN site_frame f USING (stack_id) ORDER BY c.ts, c.tid, f.depth",
	     "each call's stack");
	same(p1.buf, p2.buf, "SELECT t.ev_first, t.ev_end, c.ts, c.pid, c.call FROM site_touch t "
	     "JOIN site_call c USING (call_id) ORDER BY t.ev_first", "site_touch");
	is_int(one(p2.buf, "SELECT count(*) FROM site_stack"), 2,
	       "the stack only dropped calls had is not stored");
	is_int(one(p2.buf, "SELECT count(*) FROM site_call WHERE site = 'lost'"), 0,
	       "the two calls that never returned are dropped");

	/* the story's numbers, counted by hand */
	rows(p2.buf, "SELECT ts, tid, call, result, faults FROM site_call WHERE call <> 'none' "
	     "ORDER BY call_id", &sb);
	rc = !strcmp(sb.buf, "1100|100|brk|6291456|0\n2100|100|mmap|268435456|4\n"
	       "3200|101|mmap|805306368|1\n3300|100|mmap|536870912|1\n"
	       "4100|100|brk|6299648|1\n5100|101|munmap|0|0\n5600|100|mmap|-12|0\n"
	       "6700|102|mmap|1342177280|1\n");
	ok(rc, "calls at their exits' times with their results, in time order, faults per call");
	if (!rc)
		diag("%s", sb.buf);
	is_int(one(p2.buf, "SELECT faults FROM site_call WHERE call = 'none' AND pid = 100"), 3,
	       "pid 100's [no call]: before the heap, the unmapped page, the dropped call's range");
	is_int(one(p2.buf, "SELECT faults FROM site_call WHERE call = 'none' AND pid = 200"), 0,
	       "the child's fault is in A's row (its copy of the map), not its [no call]");
	is_int(one(p2.buf, "SELECT sum(faults) FROM site_call"), 11,
	       "all traced faults (pid 100's and its child's), none of the untraced pid's");
	is_int(one(p2.buf, "SELECT end_ts FROM site_call WHERE ts = 2100"), 5100,
	       "A's range ends at the munmap's exit");

	/* a version 2 file with calls, a trace without exits: an error, nothing stored */
	rc = ft_sites_store(p3.buf, 1, s2.buf, NULL);
	ok(rc && strstr(error_text(), "need the trace's syscall exit events"),
	   "no sys_exit rows: fails (%s)", rc ? error_text() : "stored");
	error_clear();
	is_int(one(p3.buf, "SELECT (SELECT count(*) FROM site_call) + (SELECT count(*) FROM "
		   "site_stack) + (SELECT count(*) FROM site_touch) + (SELECT count(*) FROM "
		   "trace_meta WHERE key = 'sites.skip')"), 0, "and nothing is stored");
	/* a version 2 file with a result inline is malformed */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "V\t2\t1\nC\t1000\t100\t100\tbrk\t0\t0\t0\t0\t0\t0\t4096\t0\tok\n");
	if (write_file(bad.buf, &sb))
		return 1;
	rc = ft_sites_check(bad.buf, NULL);
	ok(rc && strstr(error_text(), "malformed call line 2"), "version 2 with a result: %s",
	   rc ? error_text() : "accepted");
	error_clear();
	/* and a version 1 file still wants its result */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "V\t1\t1\nC\t1000\t100\t100\tbrk\t0\t0\t0\t0\t0\t0\t-\t0\tok\n");
	if (write_file(bad.buf, &sb))
		return 1;
	rc = ft_sites_check(bad.buf, NULL);
	ok(rc && strstr(error_text(), "malformed call line 2"), "version 1 without a result: %s",
	   rc ? error_text() : "accepted");
	error_clear();
	/* a version 2 file without calls needs no exits */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "V\t2\t1\nK\t1000\t100\t200\tfork\n");
	if (write_file(bad.buf, &sb))
		return 1;
	rc = ft_sites_store(p3.buf, 1, bad.buf, NULL);
	ok(!rc && one(p3.buf, "SELECT count(*) FROM site_call WHERE call = 'none'") == 2,
	   "version 2 without calls on a trace without exits: stored ([no call] rows)");
	error_clear();

	for (k = 0; k < sizeof(files) / sizeof(*files); k++) {
		unlink(files[k]->buf);
		strbuf_release(files[k]);
	}
	rmdir(dir);
	strbuf_release(&sb);
	return done_testing();
}
