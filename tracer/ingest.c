// SPDX-License-Identifier: GPL-2.0
/*
 * ingest.c - check, decode in a watched child process, clean up after a failure; see
 * ingest.h.
 *
 * The child shares one anonymous page with the parent: the sink's result (whose progress
 * field is the heartbeat) and the child's error chain. Its stderr goes to a pipe the parent
 * reads, so babeltrace2's own last words (an assertion) end up in the one-line error
 * instead of on the terminal.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "db/ftdb.h"
#include "tracer/ctfcheck.h"
#include "tracer/graph.h"
#include "tracer/ingest.h"
#include "tracer/sites.h"

#define CHILD_ERR_LEN	4096	/* bytes of the child's error chain, '\n'-separated */
#define TAIL_LEN	512	/* bytes of the child's stderr kept */
#define POLL_MS		100	/* watchdog period */

/* SIGINT, SIGTERM or SIGHUP received while the child ran: cleaned up, then re-raised */
static volatile sig_atomic_t got_signal;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

static void on_stop_signal(int sig)
{
	got_signal = sig;
}

struct shared {
	struct ft_sink_result res;
	char err[CHILD_ERR_LEN];	/* causes, oldest first, one per line */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* No progress for this long (ms) means babeltrace2 hangs; see ingest.h. */
static uint64_t stall_limit_ms(uint64_t bytes)
{
	const char *env = getenv("FT_TEST_INGEST_STALL_MS");

	if (env && *env)
		return strtoull(env, NULL, 10);
	return FT_INGEST_STALL_MS + bytes / FT_INGEST_STALL_BYTES * 1000;
}

static void child(const struct ft_graph_params *gp, struct shared *sh, int err_fd, pid_t parent)
{
	const char *c;
	size_t off = 0;
	int i;

	/* a killed parent must not leave a writer behind */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < (int)NR_STOP_SIGNALS; i++)
		signal(stop_signals[i], SIG_DFL);
	if (getppid() != parent)
		_exit(1);
	dup2(err_fd, 1);
	dup2(err_fd, 2);
	close(err_fd);
	if (!ft_graph_run(gp, &sh->res))
		_exit(0);
	for (i = 0; (c = error_cause(i)); i++)
		off += (size_t)snprintf(sh->err + off, off < sizeof(sh->err) ?
					sizeof(sh->err) - off : 0, "%s\n", c);
	_exit(1);
}

/* Keep the last TAIL_LEN bytes of what the child printed. */
static int read_tail(int fd, char *tail, size_t *len)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 && (errno == EINTR || errno == EAGAIN) ? 1 : 0;
	if ((size_t)n >= TAIL_LEN) {
		memcpy(tail, buf + n - TAIL_LEN, TAIL_LEN);
		*len = TAIL_LEN;
	} else {
		if (*len + (size_t)n > TAIL_LEN) {
			memmove(tail, tail + (*len + n - TAIL_LEN), TAIL_LEN - (size_t)n);
			*len = TAIL_LEN - (size_t)n;
		}
		memcpy(tail + *len, buf, (size_t)n);
		*len += (size_t)n;
	}
	return 1;
}

/* The last non-empty line of the tail, control characters blanked; "" if none. */
static const char *last_line(char *tail, size_t len)
{
	char *p, *start;

	tail[len] = '\0';
	while (len && (tail[len - 1] == '\n' || tail[len - 1] == ' '))
		tail[--len] = '\0';
	start = strrchr(tail, '\n');
	start = start ? start + 1 : tail;
	/* babeltrace2 opens its assertion messages with an ASCII-art table flip */
	while (*start && !(*start >= 'a' && *start <= 'z') && !(*start >= 'A' && *start <= 'Z'))
		start++;
	for (p = start; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = ' ';
	return start;
}

/* Run the graph in a child under the watchdog; Return: 0 (res filled) or -1. */
static int run_watched(const struct ft_graph_params *gp, uint64_t limit_ms,
		       const struct ft_ingest_opts *o, struct ft_sink_result *res)
{
	struct shared *sh;
	char tail[TAIL_LEN + 1];
	size_t tail_len = 0;
	uint64_t beat = 0, b;
	double since;
	int pfd[2], status = 0, open_pipe = 1, stalled = 0, ret = -1;
	pid_t pid, parent = getpid();

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return fail("cannot map shared memory: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));
	if (pipe2(pfd, O_CLOEXEC)) {
		fail("cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fail("cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (!pid) {
		close(pfd[0]);
		child(gp, sh, pfd[1], parent);
	}
	close(pfd[1]);
	since = now_s();
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		if (open_pipe) {
			if (poll(&p, 1, POLL_MS) > 0)
				open_pipe = read_tail(pfd[0], tail, &tail_len);
		} else {
			usleep(POLL_MS * 1000);
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (got_signal) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (o->progress)
			o->progress(__atomic_load_n(&sh->res.events, __ATOMIC_RELAXED),
				    o->progress_arg);
		b = __atomic_load_n(&sh->res.progress, __ATOMIC_RELAXED);
		if (b != beat) {
			beat = b;
			since = now_s();
		} else if ((now_s() - since) * 1000 > (double)limit_ms) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			stalled = 1;
			break;
		}
	}
	while (open_pipe)
		open_pipe = read_tail(pfd[0], tail, &tail_len) && !stalled;
	close(pfd[0]);
	if (got_signal) {
		fail("interrupted by signal %d", (int)got_signal);
	} else if (stalled) {
		fail("babeltrace2 made no progress decoding the trace for %.1f s: stopped (a "
		      "damaged trace?)", (double)limit_ms / 1000);
	} else if (WIFSIGNALED(status)) {
		const char *line = last_line(tail, tail_len);

		fail("babeltrace2 died of signal %d (%s) decoding the trace%s%s (a damaged "
		      "trace?)", WTERMSIG(status), strsignal(WTERMSIG(status)),
		      *line ? ": " : "", line);
	} else if (WEXITSTATUS(status) == 0) {
		*res = sh->res;
		ret = 0;
	} else if (sh->err[0]) {
		char *c = sh->err, *nl;

		for (; (nl = strchr(c, '\n')); c = nl + 1) {
			*nl = '\0';
			fail("%s", c);
		}
	} else {
		fail("the ingest process exited with status %d", WEXITSTATUS(status));
	}
out:
	munmap(sh, sizeof(*sh));
	return ret;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Tell o's caller, if it asked, what a clean-up could not do. */
__attribute__((format(printf, 2, 3)))
static void warn(const struct ft_ingest_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->warn(msg, o->warn_arg);
}

/* Undo the creation of a database that did not exist (or was empty) before. */
static void restore_missing(const struct ft_ingest_opts *o, int was_empty)
{
	const char *db = o->db;

	struct strbuf journal = STRBUF_INIT;

	strbuf_addf(&journal, "%s-journal", db);
	unlink(journal.buf);
	strbuf_release(&journal);
	if (was_empty) {
		if (truncate(db, 0))
			warn(o, "cannot empty %s again: %s", db, strerror(errno));
	} else {
		unlink(db);
	}
}

/*
 * A child killed inside its transaction left its journal: roll it back now, so the file is
 * byte for byte what it was and no reader needs to write. A hot journal is rolled back by
 * SQLite as the lock is taken; one whose header was never synced is not hot (nothing of it
 * reached the database) and SQLite leaves it: while we hold the write lock no writer can
 * own it, so it is removed.
 */
static void roll_back(const char *db)
{
	struct strbuf journal = STRBUF_INIT, name = STRBUF_INIT;
	struct stat sb;
	sqlite3 *h = NULL;

	/*
	 * plain SQLite, not ftdb_open(): nothing to check, and no cause to add to the chain;
	 * but the same file ftdb_open() opens (a "file:" path is not a URI here either, or
	 * the journal below would be removed while another file is locked)
	 */
	strbuf_addf(&journal, "%s-journal", db);
	ftdb_sqlite_name(&name, db);
	if (!stat(journal.buf, &sb) &&
	    sqlite3_open_v2(name.buf, &h, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(h, 10000);
		if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK) {
			unlink(journal.buf);
			sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
		}
	}
	sqlite3_close(h);
	strbuf_release(&name);
	strbuf_release(&journal);
}

/* The call-site side file of a guest run, if there is one, parsed before anything is stored. */
static int sites_check(const struct ft_ingest_opts *o)
{
	struct strbuf path = STRBUF_INIT;
	struct stat sb;
	int ret = 0;

	/* lstat: a link to nothing is a side file that went wrong, not the lack of one */
	strbuf_addf(&path, "%s/%s", o->dir, FT_SITES_FILE);
	if (!lstat(path.buf, &sb))
		ret = ft_sites_check(path.buf, o->site_skip);
	strbuf_release(&path);
	return ret;
}

/*
 * A trace stored before without its call sites (by a version that committed them in a
 * transaction of their own, and was stopped between the two): the side file, if there is
 * one, is stored now, so a re-run completes the trace. The trace stays if this fails.
 */
static int complete_sites(const struct ft_ingest_opts *o, int64_t trace_id)
{
	struct strbuf path = STRBUF_INIT;
	struct stat sb;
	int ret = 0;

	strbuf_addf(&path, "%s/%s", o->dir, FT_SITES_FILE);
	if (!lstat(path.buf, &sb))
		ret = ft_sites_store(o->db, trace_id, path.buf, o->site_skip);
	strbuf_release(&path);
	return ret;
}

int ft_ingest(const struct ft_ingest_opts *o, struct ft_ingest_result *res)
{
	struct ft_graph_params gp = { .db = o->db, .input = o->dir };
	struct ft_sink_result sr = { 0 };
	struct strbuf shadow = STRBUF_INIT, sites = STRBUF_INIT;
	struct ctf_check chk;
	char **inputs = NULL;
	double t0 = now_s();
	struct sigaction old_sa[NR_STOP_SIGNALS];
	struct stat sb;
	size_t i;
	int was_empty, rc, ret = -1;

	memset(res, 0, sizeof(*res));
	if (outfile_check(o->db, "database") < 0)
		return -1;
	if (stat(o->dir, &sb))
		return fail("cannot read %s: %s", o->dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return fail("%s is not a directory (give the CTF trace directory)", o->dir);
	if (ft_ctf_check(o->dir, &chk))
		goto out;
	if (chk.nr_missing && !o->allow_partial) {
		fail("incomplete trace, %u stream%s missing: %s (--allow-partial stores it "
		      "marked partial)", chk.nr_missing, chk.nr_missing > 1 ? "s" : "",
		      chk.missing.buf);
		goto out;
	}
	/*
	 * A private directory, removed here whatever becomes of the child: the pieces of a
	 * parallel decode (tracer/pdecode.h), the good streams of a partial trace
	 */
	{
		const char *tmp = getenv("TMPDIR");

		strbuf_addf(&shadow, "%s/foliotrace-ingest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(shadow.buf)) {
			fail("cannot create %s: %s", shadow.buf, strerror(errno));
			strbuf_reset(&shadow);
			goto out;
		}
		gp.scratch = shadow.buf;
	}
	if (chk.nr_missing) {
		/* babeltrace2 reads every file of a CTF directory: show it the good ones only */
		if (ft_ctf_check_shadow(&chk, shadow.buf, &inputs))
			goto out;
		gp.ctf_dirs = inputs;
		gp.partial = chk.missing_id.buf;
	} else {
		inputs = xcalloc(chk.nr_dirs + 1, sizeof(*inputs));
		for (i = 0; i < chk.nr_dirs; i++)
			inputs[i] = xstrdup(chk.dirs[i].path);
		gp.ctf_dirs = inputs;
	}
	gp.nr_ctf_dirs = chk.nr_dirs;

	if (sites_check(o))
		goto out;
	/* stored by the sink with the trace, in its transaction */
	strbuf_addf(&sites, "%s/%s", o->dir, FT_SITES_FILE);
	if (!lstat(sites.buf, &sb)) {
		gp.sites = sites.buf;
		gp.site_skip = o->site_skip;
	}
	/* a missing or empty database is "nothing": a failure must leave nothing */
	was_empty = !stat(o->db, &sb) ? (sb.st_size == 0 ? 1 : -1) : 0;
	/* an interrupted ingest cleans up like a failed one, then dies of its signal */
	got_signal = 0;
	for (i = 0; i < NR_STOP_SIGNALS; i++) {
		struct sigaction sa = { .sa_handler = on_stop_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(stop_signals[i], &sa, &old_sa[i]);
		/* an ignored signal (nohup, a background job of sh) stays ignored */
		if (old_sa[i].sa_handler == SIG_IGN)
			sigaction(stop_signals[i], &old_sa[i], NULL);
	}
	rc = run_watched(&gp, stall_limit_ms(chk.bytes), o, &sr);
	if (rc) {
		if (was_empty >= 0)
			restore_missing(o, was_empty);
		else
			roll_back(o->db);
	}
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old_sa[i], NULL);
	if (got_signal) {
		if (shadow.len)
			nftw(shadow.buf, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		raise(got_signal);
	}
	if (rc)
		goto out;
	if (sr.duplicate && complete_sites(o, sr.trace_id))
		goto out;
	res->trace_id = sr.trace_id;
	res->duplicate = sr.duplicate;
	res->events = sr.events;
	res->anon_records = sr.anon_records;
	res->missing = chk.nr_missing;
	res->seconds = now_s() - t0;
	ret = 0;
out:
	if (shadow.len)
		nftw(shadow.buf, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	strbuf_release(&shadow);
	strbuf_release(&sites);
	for (i = 0; inputs && i < chk.nr_dirs; i++)
		free(inputs[i]);
	free(inputs);
	ft_ctf_check_release(&chk);
	if (ret)
		fail("cannot ingest %s", o->dir);
	return ret;
}
