/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resolve.h - what `foliotrace record -- CMD` runs in the guest, decided on the host before
 * any guest boots: a bundled workload, a static executable copied in, or a program of a
 * root filesystem (the host's / by default) found through PATH as a shell would find it,
 * with the environment the workload gets. A bundled workload that needs a compiler
 * (kbuild) runs from the root too, from the bundled directory the guest binds into it.
 */
#ifndef FT_VM_RESOLVE_H
#define FT_VM_RESOLVE_H

enum vm_cmd_kind {
	VM_CMD_BUNDLED,		/* a bundled workload's name: runs from the initramfs */
	VM_CMD_STATIC,		/* a path to a static executable: copied to the share */
	VM_CMD_ROOT,		/* a program of the root filesystem: runs chrooted in it */
};

struct vm_cmd {
	enum vm_cmd_kind kind;
	char *exec;		/* VM_CMD_ROOT: the path to execute in the root (absolute, or
				 * relative to cwd when CMD was a relative path) */
	char *cwd;		/* VM_CMD_ROOT: directory to run in, absolute within the root */
	char *rootfs;		/* VM_CMD_ROOT without --rootfs on a foreign arch: the root
				 * built for it (vm/rootfs.h), else NULL */
	char **env;		/* VM_CMD_ROOT: NAME=VALUE, NULL-terminated */
	int nr_env;
	const char *tree;	/* VM_CMD_ROOT of a bundled workload that compiles (kbuild):
				 * the tree it needs prepared first (vm_prepare_cmd), else NULL */
};

/*
 * vm_resolve_cmd - decide how argv0 runs on arch. rootfs: the root given with --rootfs,
 * or NULL (the host's /, or on a foreign arch the root built for it, which is built
 * first if missing; bundled names and static executables keep running from the
 * initramfs). envs[0..nr_envs): the --env NAMEs (NAME or NAME=VALUE) passed on top of
 * PATH, HOME, LANG, LC_* and TERM.
 * Return: 0 with *cmd filled (release with vm_cmd_release), or -1 with fail() set: the
 * command is not found, a root that is not one or could not be built, an unset --env
 * variable.
 */
int vm_resolve_cmd(const char *arch, const char *rootfs, const char *argv0,
		   const char *const *envs, int nr_envs, struct vm_cmd *cmd);

/*
 * vm_prepare_cmd - before the guest boots, prepare what cmd needs from its root (kbuild:
 * the configured kernel tree, guest-kernel/kbuild-tree.sh, cached) and pass its path
 * in the environment (FT_KBUILD_TREE). Nothing for other commands. rootfs as above;
 * args, nr_args: the command line (args[0] the command), whose kbuild --objects chooses
 * the kind of tree (--make to the script when not the default objects).
 * Return: 0, or -1 with fail() set (the preparation failed; its output says why).
 */
int vm_prepare_cmd(const char *arch, const char *rootfs, struct vm_cmd *cmd,
		   char *const *args, int nr_args);

void vm_cmd_release(struct vm_cmd *cmd);

#endif /* FT_VM_RESOLVE_H */
