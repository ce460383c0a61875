// SPDX-License-Identifier: GPL-2.0
/* tracedir.c - the directories guest runs are kept in; see tracedir.h. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/tracedir.h"
#include "lib/error.h"

static void add_safe(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
				 (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' ? *s : '_');
}

int ft_ctf_dir(struct strbuf *dir, const char *db)
{
	strbuf_addf(dir, "%s.ctf", db);
	if (mkdir(dir->buf, 0777) && errno != EEXIST)
		return fail("cannot create %s: %s", dir->buf, strerror(errno));
	return 0;
}

int ft_new_trace_dir(struct strbuf *dir, const char *db, const char *arch, const char *policy,
		     const char *tag)
{
	time_t now = time(NULL);
	char stamp[32];
	size_t base;
	int i;

	if (ft_ctf_dir(dir, db))
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

void ft_discard_trace_dir(const char *dir, const char *db)
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
