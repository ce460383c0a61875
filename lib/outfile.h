/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile.h - output files that appear whole or not at all, and only where a file may be.
 *
 * A file is built under a private temporary name in the target's directory
 * ("PATH.tmp-PID-XXXXXX", created by mkstemp: O_EXCL, so a planted file or symlink at that
 * name is never opened; one a writer killed by SIGKILL left, its PID dead, is removed by
 * the next writer of PATH), synced, then moved into place with rename() (replaces an existing file
 * atomically) or link() (never replaces: a concurrent creator's file wins). Concurrent
 * writers of one path each get their own temporary; the last rename wins, none fails.
 *
 * An existing target that is not a regular file (a device node, a FIFO, a directory, a
 * socket) is refused before anything is written: renaming over /dev/null as root would
 * replace the device node. A symlink is judged by what it points to; a dangling one is
 * refused too (rename would replace the link, not write where it points).
 *
 * An output that is one of the command's inputs (the same device and inode, under any
 * name: a symlink, a hard link, "./DB") is refused too: `advise DB -o DB` would replace the
 * database with the advice text. A command names its inputs once with outfile_input();
 * every output path then goes through the one check in outfile_check().
 */
#ifndef FT_LIB_OUTFILE_H
#define FT_LIB_OUTFILE_H

#include <stddef.h>

#include <sys/types.h>

#include "lib/strbuf.h"

/* What a non-regular file is, for messages: "a FIFO", "a character device", ... */
const char *file_kind(mode_t m);

/*
 * outfile_input - path is read by this command: outfile_check() refuses it as an output
 * from now on (for the life of the process). A directory (a CTF trace) is noted with the
 * regular files under it, two levels deep (metadata, streams, index/, header/). A path
 * that does not exist or cannot be read is skipped: its reader reports that.
 */
void outfile_input(const char *path);

/*
 * outfile_inputs_clear - forget every input noted: a command that goes on to update a file
 * it read (guest replay stores its guests' traces into the DB it exported from) clears them
 * once the outputs that must not be an input are written.
 */
void outfile_inputs_clear(void);

/*
 * outfile_check - may path be written as a regular file? what names it in errors
 * ("database", "output").
 * Return: 1 if path does not exist, 0 if it is (or links to) a regular file, or fail():
 * "empty WHAT path", "PATH is not a regular file (a character device)", "PATH is the
 * input INPUT: not overwritten with the WHAT", ...
 */
int outfile_check(const char *path, const char *what);

/*
 * outfile_check_kind - outfile_check() without the inputs: for a file opened in place (a
 * database read, or updated by a command that also reads it). Same Return.
 */
int outfile_check_kind(const char *path, const char *what);

struct outfile {
	struct strbuf tmp;	/* the temporary's path, empty when there is none */
	int fd;			/* open on tmp, or -1 */
	const char *what;	/* "database", "output": names the target in errors */
};

/*
 * outfile_begin - outfile_check(), then create the temporary (mode 0666 & ~umask, as any
 * new file). Return: 0 with o->fd open, or fail() (nothing created).
 */
int outfile_begin(struct outfile *o, const char *path, const char *what);

enum outfile_how {
	OUTFILE_RENAME,	/* replace path if it exists */
	OUTFILE_LINK,	/* create path only if missing; Return 1 if it appeared meanwhile */
};

/*
 * outfile_commit - fsync and close the temporary (if still open), move it to path, sync
 * the directory, and remove the temporary name. The target is checked again right before.
 * Return: 0 (1 for OUTFILE_LINK when path exists already: nothing replaced), or fail();
 * either way the temporary is gone.
 */
int outfile_commit(struct outfile *o, const char *path, enum outfile_how how);

/* outfile_abort - close and remove the temporary; safe to call twice or after commit. */
void outfile_abort(struct outfile *o);

/* write_file_atomic - path holds exactly buf[0..len) or is untouched. Return: 0 or fail(). */
int write_file_atomic(const char *path, const void *buf, size_t len, const char *what);

#endif /* FT_LIB_OUTFILE_H */
