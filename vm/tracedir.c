// SPDX-License-Identifier: GPL-2.0
/* tracedir.c - the directories guest runs are kept in; see tracedir.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vm/tracedir.h"
#include "lib/error.h"

int vm_share_check(const char *db, const char *rootfs)
{
	char cwd[PATH_MAX];
	const char *s;

	if (!db || !*db)
		return fail("empty database path");
	if (!getcwd(cwd, sizeof(cwd)))
		return fail("cannot get the working directory: %s", strerror(errno));
	if (strchr(cwd, '\n'))
		return fail("the working directory has a newline: the guest runner cannot "
			     "pass it; run from another directory");
	if (strchr(db, '\n'))
		return fail("the database path has a newline: the guest runner cannot pass it");
	if (strchr(db, ',') || (*db != '/' && strchr(cwd, ',')))
		return fail("the database path %s%s%s has a comma: QEMU's -virtfs cannot share "
			     "its DB.ctf directory", *db == '/' ? "" : cwd, *db == '/' ? "" : "/",
			     db);
	if (!rootfs)
		return 0;
	if (!*rootfs)
		return fail("empty --rootfs path");
	for (s = rootfs; *s; s++)
		if (*s == ',' || isspace((unsigned char)*s))
			return fail("a root filesystem path with a comma or a space cannot be "
				     "shared: %s", rootfs);
	if (*rootfs != '/' && strchr(cwd, ','))
		return fail("a root filesystem path with a comma or a space cannot be shared: "
			     "%s/%s", cwd, rootfs);
	return 0;
}

static void add_safe(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
				 (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' ? *s : '_');
}

int vm_ctf_dir(struct strbuf *dir, const char *db)
{
	strbuf_addf(dir, "%s.ctf", db);
	if (mkdir(dir->buf, 0777) && errno != EEXIST)
		return fail("cannot create %s: %s", dir->buf, strerror(errno));
	return 0;
}

int vm_new_trace_dir(struct strbuf *dir, const char *db, const char *arch, const char *policy,
		     const char *tag)
{
	time_t now = time(NULL);
	char stamp[32];
	size_t base;
	int i;

	if (vm_ctf_dir(dir, db))
		return -1;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&now));
	strbuf_addf(dir, "/%s-%s-", stamp, arch);
	add_safe(dir, policy);
	strbuf_addch(dir, '-');
	add_safe(dir, tag);
	base = dir->len;
	for (i = 1; mkdir(dir->buf, 0777); i++) {
		if (errno != EEXIST || i > 99)
			return fail("cannot create %s: %s", dir->buf, strerror(errno));
		dir->len = base;
		strbuf_addf(dir, ".%d", i);
	}
	return 0;
}

void vm_discard_trace_dir(const char *dir, const char *db)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;
	int others = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		others += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			  strcmp(de->d_name, "run_error");
	if (d)
		closedir(d);
	if (!d || others)
		return;
	strbuf_addf(&path, "%s/run_error", dir);
	unlink(path.buf);
	if (!rmdir(dir)) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s.ctf", db);
		rmdir(path.buf);
	}
	strbuf_release(&path);
}
