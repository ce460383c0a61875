// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c - write-then-rename output files; see outfile.h.
 *
 * Used for everything foliotrace writes whole: a new database (db/ftdb.c, moved with
 * link()), the HTML report, the advice file and the replay file (rename()); and, through
 * outfile_check(), for the checks of every output path, a database ingest appends to too. The fsync before the rename is what makes the
 * rename atomic across a crash, not only across processes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/xalloc.h"

/* The files this process reads (outfile_input()): few, so a linear scan. */
struct input {
	dev_t dev;
	ino_t ino;
	char *path;	/* as the command named it, for messages */
};
static struct input *inputs;
static size_t nr_inputs, alloc_inputs;

static void note(const struct stat *sb, const char *path)
{
	size_t i;

	for (i = 0; i < nr_inputs; i++)
		if (inputs[i].dev == sb->st_dev && inputs[i].ino == sb->st_ino)
			return;
	if (nr_inputs == alloc_inputs) {
		alloc_inputs = alloc_inputs ? 2 * alloc_inputs : 8;
		inputs = xrealloc(inputs, alloc_inputs * sizeof(*inputs));
	}
	inputs[nr_inputs].dev = sb->st_dev;
	inputs[nr_inputs].ino = sb->st_ino;
	inputs[nr_inputs++].path = xstrdup(path);
}

static void note_tree(const char *path, int depth)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (stat(path, &sb))
		return;
	if (S_ISREG(sb.st_mode)) {
		note(&sb, path);
		return;
	}
	if (!S_ISDIR(sb.st_mode) || depth > 2)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct strbuf sub = STRBUF_INIT;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strbuf_addf(&sub, "%s/%s", path, de->d_name);
		note_tree(sub.buf, depth + 1);
		strbuf_release(&sub);
	}
	closedir(d);
}

void outfile_input(const char *path)
{
	if (path && *path)
		note_tree(path, 0);
}

void outfile_inputs_clear(void)
{
	size_t i;

	for (i = 0; i < nr_inputs; i++)
		free(inputs[i].path);
	free(inputs);
	inputs = NULL;
	nr_inputs = alloc_inputs = 0;
}

const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a plain file";
}

/* The kind check of outfile_check(); *sb is what path is (or links to) when it exists. */
static int check_kind(const char *path, const char *what, struct stat *sb_out)
{
	struct stat sb;

	if (!path || !*path)
		return fail("empty %s path", what);
	/* lstat first: a concurrent writer's rename() never makes path vanish in between */
	if (lstat(path, &sb)) {
		if (errno != ENOENT)
			return fail("cannot use %s as the %s: %s", path, what, strerror(errno));
		return 1;
	}
	if (S_ISLNK(sb.st_mode) && stat(path, &sb)) {
		if (errno == ENOENT)
			return fail("%s is a dangling symlink: not written through", path);
		return fail("cannot use %s as the %s: %s", path, what, strerror(errno));
	}
	if (!S_ISREG(sb.st_mode))
		return fail("%s is %s, not a regular file: not used as the %s", path,
			     file_kind(sb.st_mode), what);
	*sb_out = sb;
	return 0;
}

int outfile_check_kind(const char *path, const char *what)
{
	struct stat sb;

	return check_kind(path, what, &sb);
}

int outfile_check(const char *path, const char *what)
{
	struct stat sb;
	size_t i;
	int ret = check_kind(path, what, &sb);

	if (ret)
		return ret;
	for (i = 0; i < nr_inputs; i++)
		if (inputs[i].dev == sb.st_dev && inputs[i].ino == sb.st_ino)
			return fail("%s is the input %s: not overwritten with the %s", path,
				     inputs[i].path, what);
	return 0;
}

/*
 * Remove the temporaries of path that a killed writer left: PATH.tmp-PID-XXXXXX, a regular
 * file of this user whose PID is not alive (kill -9 between mkstemp and the rename leaves
 * one; nothing else can remove it). Anything else of a similar name is left alone.
 */
static void clean_stale(const char *path)
{
	char *copy = xstrdup(path), *copy2 = xstrdup(path);
	const char *dir = dirname(copy), *base = basename(copy2);
	size_t blen = strlen(base);
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		const char *p = de->d_name;
		struct stat sb;
		char *end;
		long pid;

		if (strncmp(p, base, blen) || strncmp(p + blen, ".tmp-", 5))
			continue;
		p += blen + 5;
		if (*p < '1' || *p > '9')
			continue;
		pid = strtol(p, &end, 10);
		if (*end != '-' || strlen(end + 1) != 6 || pid <= 0 || pid == (long)getpid())
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
	free(copy);
	free(copy2);
}

int outfile_begin(struct outfile *o, const char *path, const char *what)
{
	mode_t mask;

	strbuf_init(&o->tmp);
	o->fd = -1;
	o->what = what;
	if (outfile_check(path, what) < 0)
		return -1;
	clean_stale(path);
	/* the pid names the writer, so a later writer of path can tell a dead one's */
	strbuf_addf(&o->tmp, "%s.tmp-%ld-XXXXXX", path, (long)getpid());
	o->fd = mkostemp(o->tmp.buf, O_CLOEXEC);
	if (o->fd < 0) {
		fail("cannot create %s: %s", o->tmp.buf, strerror(errno));
		strbuf_release(&o->tmp);
		return -1;
	}
	/* mkstemp makes 0600; the output gets the mode any new file would */
	mask = umask(0);
	umask(mask);
	if (fchmod(o->fd, 0666 & ~mask)) {
		fail("cannot chmod %s: %s", o->tmp.buf, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	return 0;
}

/* Make the rename durable: fsync the directory holding path (best effort). */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

int outfile_commit(struct outfile *o, const char *path, enum outfile_how how)
{
	int ret = 0;

	if (o->fd >= 0) {
		if (fsync(o->fd) || close(o->fd)) {
			o->fd = -1;
			fail("cannot write %s: %s", o->tmp.buf, strerror(errno));
			outfile_abort(o);
			return -1;
		}
		o->fd = -1;
	}
	/* the target may have changed since outfile_begin(): never rename over a device */
	if (outfile_check(path, o->what) < 0) {
		outfile_abort(o);
		return -1;
	}
	if (how == OUTFILE_RENAME ? rename(o->tmp.buf, path) : link(o->tmp.buf, path)) {
		if (how == OUTFILE_LINK && errno == EEXIST)
			ret = 1;
		else
			ret = fail("cannot create %s: %s", path, strerror(errno));
	} else {
		sync_dir(path);
	}
	outfile_abort(o);
	return ret;
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp.len)
		unlink(o->tmp.buf);
	strbuf_release(&o->tmp);
}

int write_file_atomic(const char *path, const void *buf, size_t len, const char *what)
{
	struct outfile o;
	const char *p = buf;

	if (outfile_begin(&o, path, what))
		return -1;
	while (len) {
		ssize_t n = write(o.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fail("cannot write %s: %s", o.tmp.buf,
			      n ? strerror(errno) : "short write");
			outfile_abort(&o);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return outfile_commit(&o, path, OUTFILE_RENAME) < 0 ? -1 : 0;
}
