// SPDX-License-Identifier: GPL-2.0
/*
 * vm-pipeline.c - vm/: the host side of a guest run without a guest. A fake tree whose
 * guest-kernel/run.sh exits with each of run.sh's statuses (and writes what run.sh writes
 * then) drives vm_record() and vm_guest_replay() through every failure: what they say,
 * and which directories they leave. Also the mapping of run.sh's statuses onto the CLI's
 * (vm_runner_status()), the trace directories' names, and vm_runner_check().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "tests/unit/tap.h"
#include "vm/guest-replay.h"
#include "vm/record.h"
#include "vm/runner.h"
#include "vm/spawn.h"
#include "vm/tracedir.h"

static char home[] = "/tmp/vm-pipeline.XXXXXX";

/*
 * run.sh as a shell script: FAKE_RC is its exit status; FAKE_FILES "name=value ..." are
 * written into the --out directory first (header/ created), as run.sh writes run_error,
 * header/guest_error, header/workload_status.
 */
static const char fake_run_sh[] =
	"#!/bin/sh\n"
	"[ -n \"$FAKE_MARK\" ] && : > \"$FAKE_MARK\"\n"
	"out=\n"
	"while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; [ \"$1\" = -- ] && break; shift; done\n"
	"[ -n \"$out\" ] && mkdir -p \"$out/header\"\n"
	"for kv in $FAKE_FILES; do printf '%s\\n' \"${kv#*=}\" > \"$out/${kv%%=*}\"; done\n"
	"[ -n \"$FAKE_NO_HEADER\" ] && rmdir \"$out/header\" 2>/dev/null\n"
	"exit ${FAKE_RC:-0}\n";

static void write_text(const char *rel, const char *text, int mode)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&p, "%s/%s", home, rel);
	f = fopen(p.buf, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
		chmod(p.buf, mode);
	}
	strbuf_release(&p);
}

static int exists(const char *fmt, const char *arg)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int r;

	strbuf_addf(&p, fmt, arg);
	r = !stat(p.buf, &st);
	strbuf_release(&p);
	return r;
}

/* 1 if error_text() contains want; the chain is cleared. */
static int says(const char *want)
{
	int r = strstr(error_text(), want) != NULL;

	if (!r)
		diag("  error: %s", error_text());
	error_clear();
	return r;
}

static void fake(const char *rc, const char *files, int no_header)
{
	setenv("FAKE_RC", rc, 1);
	setenv("FAKE_FILES", files ? files : "", 1);
	if (no_header)
		setenv("FAKE_NO_HEADER", "1", 1);
	else
		unsetenv("FAKE_NO_HEADER");
}

/* 1 if the fake run.sh ran since the last call (it touches FAKE_MARK) */
static int booted(void)
{
	struct strbuf p = STRBUF_INIT;
	int r;

	strbuf_addf(&p, "%s/booted", home);
	r = !access(p.buf, F_OK);
	unlink(p.buf);
	strbuf_release(&p);
	return r;
}

/*
 * Paths the guest cannot share or the database cannot be (issue 23 item 10): refused by
 * vm_record() before run.sh starts and before DB.ctf/ is made.
 */
static void paths_cases(struct vm_record_opts *o, struct vm_record_result *r)
{
	static const struct {
		const char *db;		/* relative to home, or absolute when it starts with / */
		const char *rootfs;	/* --rootfs, or NULL */
		const char *want;
		const char *what;
	} cases[] = {
		{ "/dev/null", NULL, "/dev/null is a character device, not a regular file",
		  "-o /dev/null" },
		{ "dir", NULL, "dir is a directory, not a regular file", "-o DIR" },
		{ "fifo", NULL, "fifo is a FIFO, not a regular file", "-o FIFO" },
		{ "a,b.db", NULL, "a,b.db has a comma: QEMU's -virtfs cannot share", "-o a,b.db" },
		{ "nl\n.db", NULL, "the database path has a newline", "-o with a newline" },
		{ "", NULL, "empty database path", "-o ''" },
		{ "t.db", "", "empty --rootfs path", "--rootfs ''" },
		{ "t.db", "/tmp/a,b", "a root filesystem path with a comma or a space",
		  "--rootfs with a comma" },
		{ "t.db", "/tmp/a b", "a root filesystem path with a comma or a space",
		  "--rootfs with a space" },
	};
	struct strbuf db = STRBUF_INIT, ctf = STRBUF_INIT, cwd = STRBUF_INIT;
	const char *saved_db = o->db, *saved_root = o->guest.rootfs;
	char here[4096];
	size_t i;

	strbuf_addf(&db, "%s/dir", home);
	mkdir(db.buf, 0777);
	strbuf_reset(&db);
	strbuf_addf(&db, "%s/fifo", home);
	mkfifo(db.buf, 0666);
	strbuf_reset(&db);
	strbuf_addf(&ctf, "%s/booted", home);
	setenv("FAKE_MARK", ctf.buf, 1);
	fake("1", NULL, 1);
	booted();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&db);
		strbuf_reset(&ctf);
		if (*cases[i].db == '/' || !*cases[i].db)
			strbuf_addstr(&db, cases[i].db);
		else
			strbuf_addf(&db, "%s/%s", home, cases[i].db);
		strbuf_addf(&ctf, "%s.ctf", db.buf);
		o->db = db.buf;
		o->guest.rootfs = cases[i].rootfs;
		ok(vm_record(o, r) && says(cases[i].want) && !booted() &&
		   !exists("%s", ctf.buf), "record %s: refused before the guest starts, no "
		   "DB.ctf made", cases[i].what);
	}
	o->guest.rootfs = saved_root;

	/* a relative database in a working directory with a newline, then with a comma */
	if (getcwd(here, sizeof(here))) {
		strbuf_addf(&cwd, "%s/wd\nx", home);
		mkdir(cwd.buf, 0777);
		o->db = "t.db";
		ok(!chdir(cwd.buf) && vm_record(o, r) && says("the working directory has a "
		   "newline") && !booted() && !exists("%s", "t.db.ctf"), "record in a working "
		   "directory with a newline: refused before the guest starts");
		strbuf_reset(&cwd);
		strbuf_addf(&cwd, "%s/wd,x", home);
		mkdir(cwd.buf, 0777);
		ok(!chdir(cwd.buf) && vm_record(o, r) && says("has a comma") && !booted() &&
		   !exists("%s", "t.db.ctf"), "record -o t.db in a working directory with a "
		   "comma: refused before the guest starts");
		if (chdir(here))
			diag("cannot go back to %s", here);
	} else {
		ok(0, "getcwd");
		ok(0, "getcwd");
	}
	o->db = saved_db;
	unsetenv("FAKE_MARK");
	strbuf_release(&db);
	strbuf_release(&ctf);
	strbuf_release(&cwd);
}

static void record_cases(void)
{
	char *cmd[] = { "fakewl", "64M", NULL };
	char *bad[] = { "fakewl", "a\nb", NULL };
	struct vm_record_opts o = {
		.guest = { .arch = "x86_64", .policy = "order0" },
		.cmd = cmd, .nr_cmd = 2,
	};
	struct vm_record_result r;
	struct strbuf db = STRBUF_INIT;

	strbuf_addf(&db, "%s/t.db", home);
	o.db = db.buf;

	o.cmd = bad;
	ok(vm_record(&o, &r) && says("argument 1 of the command has a newline") &&
	   !exists("%s.ctf", db.buf), "record: a newline in an argument is refused before "
	   "anything is created");
	o.cmd = cmd;

	paths_cases(&o, &r);

	fake("1", "run_error=no-kernel-built", 1);
	ok(vm_record(&o, &r) && says("the guest could not be started: no-kernel-built") &&
	   !exists("%s.ctf", db.buf), "record: a run that could not start says why (run_error) "
	   "and leaves no directory");

	fake("2", NULL, 1);
	ok(vm_record(&o, &r) && says("the guest runner refused its arguments") &&
	   !exists("%s.ctf", db.buf), "record: arguments run.sh refused: a failure, no "
	   "directory left");

	fake("4", "header/guest_error=kernel-panic", 0);
	ok(vm_record(&o, &r) && strstr(error_text(), "kernel-panic") &&
	   says("nothing was stored; what the guest wrote is in") && exists("%s.ctf", db.buf),
	   "record: a guest that failed without a trace: says so, keeps what it wrote");

	fake("0", NULL, 0);
	ok(vm_record(&o, &r) && says("could not be stored") && !exists("%s", db.buf),
	   "record: a run that wrote no trace: the ingest's failure, no database created");
	strbuf_release(&db);
}

static void guest_replay_cases(void)
{
	struct strbuf db = STRBUF_INIT, file = STRBUF_INIT;
	struct vm_guest_replay g = {
		.trace_id = 1, .arch = "x86_64", .policy = "mcpage:2", .filter = "",
	};
	struct vm_guest_replay_result r;

	strbuf_addf(&db, "%s/g.db", home);
	g.db = db.buf;
	ok(!vm_replay_file(db.buf, 1, "FTR\n", 4, &file) && exists("%s", file.buf) &&
	   strstr(file.buf, ".ctf/replay-t1-"), "guest replay: the replay file is written "
	   "into DB.ctf/replay-t1-TIME.ftr");
	g.file = file.buf;

	fake("4", "header/guest_error=timeout", 0);
	ok(vm_guest_replay(&g, &r) && strstr(error_text(), "timeout") &&
	   says("the mcpage:2 guest failed; see "), "guest replay: a failed guest names the "
	   "policy and its console log");

	fake("3", NULL, 0);
	ok(vm_guest_replay(&g, &r) && says("workload.out"), "guest replay: a replayer that "
	   "left no output: refused, naming workload.out");

	strbuf_reset(&db);
	strbuf_addf(&db, "%s/g,h.db", home);
	g.db = db.buf;
	ok(vm_replay_file(db.buf, 1, "FTR\n", 4, &file) && vm_guest_replay(&g, &r) &&
	   says("has a comma") && !exists("%s.ctf", db.buf), "guest replay: a database path "
	   "with a comma is refused before anything is written or booted");
	strbuf_release(&db);
	strbuf_release(&file);
}

static void status_cases(void)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addf(&out, "%s/st", home);
	mkdir(out.buf, 0777);
	strbuf_addstr(&out, "/header");
	mkdir(out.buf, 0777);
	out.len -= 7;
	out.buf[out.len] = '\0';
	write_text("st/header/workload_status", "7\n", 0644);
	write_text("st/header/oom_kills", "2\n", 0644);
	write_text("st/header/mem_bytes", "536870912\n", 0644);

	is_int(vm_runner_status(VM_RUNNER_OK, out.buf, 0), 0, "status: run.sh 0 is 0");
	is_int(vm_runner_status(VM_RUNNER_USAGE, NULL, 1), 2, "status: run.sh 2 on the user's "
	       "own arguments (guest run) is a usage error");
	error_clear();
	is_int(vm_runner_status(VM_RUNNER_USAGE, NULL, 0), 1, "status: run.sh 2 on arguments "
	       "the CLI built is a failure");
	error_clear();
	ok(vm_runner_status(VM_RUNNER_WORKLOAD_FAILED, out.buf, 0) == 1 &&
	   strstr(error_text(), "exited with status 7") && says("ran out of memory") &&
	   1, "status: a failed workload gives its status, and the OOM kills with --mem");
	write_text("st/header/memcg.events", "low 0\nhigh 0\nmax 40\noom 1\noom_kill 1\n"
		   "oom_group_kill 0\n", 0644);
	write_text("st/header/memcg.max", "67108864\n", 0644);
	ok(vm_runner_status(VM_RUNNER_WORKLOAD_FAILED, out.buf, 0) == 1 &&
	   strstr(error_text(), "exited with status 7") &&
	   says("cgroup reached its memory.max (64 MiB, the policy's +limit): the OOM killer "
		"ended 1 processes"), "status: an OOM kill in the workload's cgroup names the limit");
	ok(vm_runner_status(137, NULL, 0) == 1 && says("killed by signal 9"),
	   "status: a runner killed by a signal says which");
	strbuf_release(&out);
}

static void tracedir_cases(void)
{
	struct strbuf db = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;

	strbuf_addf(&db, "%s/d.db", home);
	ok(!vm_new_trace_dir(&a, db.buf, "x86_64", "mthp:16K,64K", "bin/sh x") &&
	   strstr(a.buf, "-x86_64-mthp_16K_64K-bin_sh_x") && exists("%s", a.buf),
	   "tracedir: DB.ctf/TIME-ARCH-POLICY-TAG, characters outside [A-Za-z0-9.-] as _");
	ok(!vm_new_trace_dir(&b, db.buf, "x86_64", "mthp:16K,64K", "bin/sh x") &&
	   strcmp(a.buf, b.buf) && exists("%s", b.buf),
	   "tracedir: a second run in the same second gets a directory of its own");
	vm_discard_trace_dir(b.buf, db.buf);
	ok(!exists("%s", b.buf) && exists("%s", a.buf), "tracedir: discarding an empty "
	   "directory removes it, not its sibling");
	strbuf_release(&db);
	strbuf_release(&a);
	strbuf_release(&b);
}

int main(void)
{
	plan(37);
	if (!mkdtemp(home))
		return 1;
	vm_set_home(home);
	mkdir(strcat(strcpy((char[256]){ 0 }, home), "/guest-kernel"), 0777);
	mkdir(strcat(strcpy((char[256]){ 0 }, home), "/workloads"), 0777);
	write_text("guest-kernel/run.sh", fake_run_sh, 0755);
	write_text("workloads/fakewl.c", "int main(void) { return 0; }\n", 0644);

	ok(vm_runner_check("sparc", "order0", NULL) && says("unknown arch 'sparc'"),
	   "check: an unknown arch is refused");
	ok(vm_runner_check("x86_64", "faultaround:4", NULL) && says("simulation-only"),
	   "check: a policy the guest knob cannot express is refused");
	ok(vm_runner_check("x86_64", "faultaround:4", "6.12") &&
	   says("cannot run on a 6.12 guest (upstream mTHP): it runs order0, mcpage:N"),
	   "check 6.12: a simulation-only policy, refused naming what 6.12 runs");
	ok(vm_runner_check("arm64", "mthp:8K,64K", "6.12") && says("no 8K anonymous folio"),
	   "check 6.12: an 8K size, refused (upstream's anonymous mTHP starts at 16K)");
	ok(!vm_runner_check("arm64", "mthp:16K,64K", "6.12") && !vm_runner_check("x86_64",
	   "thp", "6.12") && !vm_runner_check("x86_64", "mcpage:1", "6.1"), "check: 16K and 64K "
	   "and thp run on 6.12, mcpage:1 on 6.1");
	ok(!vm_runner_check("x86_64", "thp+shrinker:max_ptes_none=409+limit:64M", "6.12") &&
	   vm_runner_check("x86_64", "thp+limit:64M", NULL) &&
	   says("its +mechanisms run only in the 6.12 guest"),
	   "check: +mechanisms run on 6.12, and 6.1 refuses them in one line naming 6.12");
	ok(vm_runner_check("x86_64", "order0", "5.4") && says("unknown guest kernel '5.4'"),
	   "check: an unknown kernel is refused");
	ok(!vm_runner_check_fragment("order:3,pct:50,seed:7") &&
	   vm_runner_check_fragment("order:3,order:9") && says("each be given once") &&
	   vm_runner_check_fragment("order:1,seed:2,seed:2") && says("each be given once"),
	   "check: a --fragment key given twice is refused (the last no longer wins)");
	record_cases();
	guest_replay_cases();
	status_cases();
	tracedir_cases();
	if (system(strcat(strcpy((char[300]){ 0 }, "rm -rf "), home)))
		diag("cannot remove %s", home);
	return done_testing();
}
