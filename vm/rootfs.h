/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rootfs.h - the Debian root filesystem `record --arch A` runs a foreign arch's programs
 * in (arm64 on an x86_64 host): built by guest-kernel/rootfs.sh with mmdebstrap into the
 * guest cache, found there when built (docs/guest.md).
 */
#ifndef FT_VM_ROOTFS_H
#define FT_VM_ROOTFS_H

struct strbuf;

/*
 * vm_rootfs - find the root of arch with the default packages plus packages (a list
 * rootfs.sh takes: names separated by commas or spaces; NULL for none), building it
 * first if the cache has none; a build prints progress lines on stderr.
 * Return: 0 with the root's directory in *dir; 1 with fail() set (the build failed, or
 * could not start); 2 with fail() set to what rootfs.sh refused (an arch with no root to
 * build, a bad package name).
 */
int vm_rootfs(const char *arch, const char *packages, struct strbuf *dir);

#endif /* FT_VM_ROOTFS_H */
