// SPDX-License-Identifier: GPL-2.0
/*
 * rootfs.c - build or find a foreign arch's root filesystem; see rootfs.h. The work is in
 * guest-kernel/rootfs.sh (usable on its own): this file runs it, takes the directory from
 * its last line of stdout and its one-line reason for a failure from --error-file, so
 * the CLI prints that reason as its own single line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/rootfs.h"
#include "vm/spawn.h"
#include "lib/error.h"
#include "lib/strbuf.h"

int vm_rootfs(const char *arch, const char *packages, struct strbuf *dir)
{
	char errfile[] = "/tmp/foliotrace-rootfs-XXXXXX";
	char *args[10] = { (char *)vm_path("guest-kernel/rootfs.sh"), "--print-dir",
			   "--arch", (char *)arch, "--error-file", errfile, NULL };
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	int fd, rc, n = 6;
	char *nl;

	if (packages) {
		args[n++] = "--packages";
		args[n++] = (char *)packages;
	}
	fd = mkstemp(errfile);
	if (fd < 0) {
		fail("cannot create a temporary file in /tmp: %m");
		return 1;
	}
	close(fd);
	rc = vm_spawn_capture(args, &out);
	if (rc) {
		/* rc < 0: could not run it, fail() is set */
		if (rc > 0 && !strbuf_read_file(&why, errfile) && why.len) {
			while (why.len && why.buf[why.len - 1] == '\n')
				why.buf[--why.len] = '\0';
			fail("%s", why.buf);
		} else if (rc > 0) {
			fail("guest-kernel/rootfs.sh failed (exit %d)", rc);
		}
		rc = rc == 2 ? 2 : 1;
		goto out;
	}
	while (out.len && out.buf[out.len - 1] == '\n')
		out.buf[--out.len] = '\0';
	nl = strrchr(out.buf, '\n');
	strbuf_reset(dir);
	strbuf_addstr(dir, nl ? nl + 1 : out.buf);
	if (!dir->len) {
		rc = 1;
		fail("guest-kernel/rootfs.sh printed no directory");
	}
out:
	unlink(errfile);
	strbuf_release(&out);
	strbuf_release(&why);
	return rc;
}
