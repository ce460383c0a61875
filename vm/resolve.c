// SPDX-License-Identifier: GPL-2.0
/*
 * resolve.c - find the program `foliotrace record -- CMD` runs and the environment it gets;
 * see resolve.h. Everything here is decided on the host, so that a command that does not
 * exist is a one-line error before a guest boots (about 20 s under TCG) and nothing is
 * stored.
 *
 * The search is the shell's (POSIX execvp): a CMD with a slash is a path, absolute or
 * relative to the current directory; any other CMD is looked up in each directory of
 * PATH in turn (an empty entry is the current directory), and the first regular file with
 * execute permission wins. It is done inside the root the guest will see: for the host's /
 * with access(2) as the calling user (whose permissions QEMU reads the share with); for
 * another root by the file's mode bits, and a symbolic link there counts as found (its
 * target may be absolute, i.e. meaningful only inside that root).
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "vm/resolve.h"
#include "vm/rootfs.h"
#include "vm/spawn.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

extern char **environ;

static int is_bundled(const char *arch, const char *name)
{
	struct strbuf p = STRBUF_INIT;
	int found;

	found = !access(vm_bundled_path(arch, name), X_OK);
	strbuf_addf(&p, "workloads/%s.c", name);
	found = found || !access(vm_path(p.buf), R_OK);
	strbuf_reset(&p);
	strbuf_addf(&p, "workloads/%s.sh", name);
	found = found || !access(vm_path(p.buf), R_OK);
	strbuf_release(&p);
	return found;
}

/*
 * Bundled workloads that run from the root filesystem, not the initramfs: they need its
 * programs (make, gcc). The guest binds the bundled directory into the root
 * (guest-kernel/init), so they are started from there. tree: the kind of prepared tree
 * vm_prepare_cmd() makes for them.
 */
static const struct {
	const char *name, *tree;
} root_workloads[] = {
	{ "kbuild", "kbuild" },		/* guest-kernel/kbuild-tree.sh */
};
#define FT_BUNDLED_IN_ROOT "/usr/libexec/foliotrace/"

static const char *root_workload_tree(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(root_workloads) / sizeof(root_workloads[0]); i++)
		if (!strcmp(name, root_workloads[i].name))
			return root_workloads[i].tree;
	return NULL;
}

/* 1 if the host runs arch's programs (x86_64, arm64 as uname says aarch64). */
static int host_arch_is(const char *arch)
{
	struct utsname u;

	if (uname(&u))
		return 0;
	return !strcmp(u.machine, arch) || (!strcmp(arch, "arm64") && !strcmp(u.machine, "aarch64"));
}

/* 1 if path is an ELF executable without a program interpreter (statically linked). */
static int is_static_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY), i, ret = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    sizeof(ph) || ph.p_type == PT_INTERP)
			goto out;
	}
	ret = 1;
out:
	close(fd);
	return ret;
}

/* 1 if abs (an absolute path inside root) is an executable file there. */
static int executable_in(const char *root, const char *abs)
{
	struct strbuf host = STRBUF_INIT;
	struct stat st;
	int ok;

	if (!root) {
		ok = !stat(abs, &st) && S_ISREG(st.st_mode) && !access(abs, X_OK);
		return ok;
	}
	strbuf_addf(&host, "%s%s", root, abs);
	ok = !lstat(host.buf, &st) &&
	     (S_ISLNK(st.st_mode) || (S_ISREG(st.st_mode) && (st.st_mode & 0111)));
	strbuf_release(&host);
	return ok;
}

/* The absolute form of path (relative to cwd), into sb. */
static void absolute(struct strbuf *sb, const char *cwd, const char *path)
{
	strbuf_reset(sb);
	if (*path == '/')
		strbuf_addstr(sb, path);
	else
		strbuf_addf(sb, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path);
}

static int find_program(struct vm_cmd *cmd, const char *root, const char *name,
			const char *path)
{
	struct strbuf cand = STRBUF_INIT, abs = STRBUF_INIT;
	const char *p = path, *end;

	if (strchr(name, '/')) {
		absolute(&abs, cmd->cwd, name);
		if (!executable_in(root, abs.buf)) {
			strbuf_release(&abs);
			return fail("workload not found: %s is not an executable file%s%s", name,
				     root ? " in " : "", root ? root : "");
		}
		strbuf_release(&abs);
		cmd->exec = xstrdup(name);
		return 0;
	}
	for (;;) {
		end = strchrnul(p, ':');
		strbuf_reset(&cand);
		if (end == p)
			strbuf_addf(&cand, "%s", name);
		else
			strbuf_addf(&cand, "%.*s/%s", (int)(end - p), p, name);
		absolute(&abs, cmd->cwd, cand.buf);
		if (executable_in(root, abs.buf)) {
			cmd->exec = strbuf_detach(&abs);
			strbuf_release(&cand);
			return 0;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	strbuf_release(&cand);
	strbuf_release(&abs);
	return fail("workload not found: %s (not a bundled workload, and not on PATH%s%s)", name,
		     root ? " in " : "", root ? root : "");
}

static void add_env(struct vm_cmd *cmd, const char *name, const char *value)
{
	struct strbuf e = STRBUF_INIT;
	int i;

	strbuf_addf(&e, "%s=%s", name, value);
	for (i = 0; i < cmd->nr_env; i++)	/* a later --env NAME wins */
		if (!strncmp(cmd->env[i], e.buf, strlen(name) + 1)) {
			free(cmd->env[i]);
			cmd->env[i] = strbuf_detach(&e);
			return;
		}
	cmd->env = xrealloc(cmd->env, (size_t)(cmd->nr_env + 2) * sizeof(*cmd->env));
	cmd->env[cmd->nr_env++] = strbuf_detach(&e);
	cmd->env[cmd->nr_env] = NULL;
}

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* PATH, HOME, LANG, LC_* and TERM of the caller, then each --env NAME[=VALUE]. */
static int build_env(struct vm_cmd *cmd, const char *const *envs, int nr_envs)
{
	static const char *const keep[] = { "PATH", "HOME", "LANG", "TERM" };
	const char *path = getenv("PATH");
	size_t k;
	char **e;
	int i;

	add_env(cmd, "PATH", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (k = 1; k < sizeof(keep) / sizeof(keep[0]); k++)
		if (getenv(keep[k]))
			add_env(cmd, keep[k], getenv(keep[k]));
	for (e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!strncmp(*e, "LC_", 3) && eq && valid_name(*e, (size_t)(eq - *e))) {
			char *name = strndup(*e, (size_t)(eq - *e));

			add_env(cmd, name, eq + 1);
			free(name);
		}
	}
	for (i = 0; i < nr_envs; i++) {
		const char *eq = strchr(envs[i], '=');
		size_t len = eq ? (size_t)(eq - envs[i]) : strlen(envs[i]);
		char *name;
		const char *val;

		if (!valid_name(envs[i], len))
			return fail("--env %s: not a variable name", envs[i]);
		name = strndup(envs[i], len);
		val = eq ? eq + 1 : getenv(name);
		if (!val) {
			fail("--env %s: %s is not set here (use --env %s=VALUE)", name, name, name);
			free(name);
			return -1;
		}
		add_env(cmd, name, val);
		free(name);
	}
	for (i = 0; i < cmd->nr_env; i++)
		if (strchr(cmd->env[i], '\n'))
			return fail("the environment variable %.*s has a newline in its value",
				     (int)(strchr(cmd->env[i], '=') - cmd->env[i]), cmd->env[i]);
	return 0;
}

int vm_resolve_cmd(const char *arch, const char *rootfs, const char *argv0,
		   const char *const *envs, int nr_envs, struct vm_cmd *cmd)
{
	char cwd[PATH_MAX];
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	const char *root = NULL;
	char *path;

	memset(cmd, 0, sizeof(*cmd));
	cmd->kind = VM_CMD_ROOT;
	if (!strchr(argv0, '/') && root_workload_tree(argv0) && is_bundled(arch, argv0))
		cmd->tree = root_workload_tree(argv0);
	else if (!rootfs && !strchr(argv0, '/') && is_bundled(arch, argv0))
		cmd->kind = VM_CMD_BUNDLED;
	else if (!rootfs && strchr(argv0, '/') && is_static_elf(argv0))
		cmd->kind = VM_CMD_STATIC;
	if (cmd->kind != VM_CMD_ROOT)
		return nr_envs ? fail("--env is for programs of the root filesystem; %s runs from "
				       "the guest's initramfs with its fixed environment", argv0) : 0;
	/*
	 * The host's root holds no programs of a foreign arch (arm64 on x86_64): the default
	 * is then the Debian root built for it in the guest cache, built now if missing.
	 */
	if (!rootfs && !host_arch_is(arch)) {
		struct strbuf built = STRBUF_INIT;

		if (vm_rootfs(arch, NULL, &built)) {
			strbuf_release(&built);
			return fail("no %s root to run %s in (not a bundled workload)", arch,
				     argv0);
		}
		rootfs = cmd->rootfs = strbuf_detach(&built);
	}
	if (rootfs) {
		strbuf_addf(&p, "%s/bin/sh", rootfs);
		if (access(p.buf, X_OK) || (strbuf_reset(&p), strbuf_addf(&p, "%s/usr", rootfs),
					    stat(p.buf, &st)) || !S_ISDIR(st.st_mode)) {
			strbuf_release(&p);
			return fail("--rootfs %s is not a root filesystem (no /bin/sh or no /usr)",
				     rootfs);
		}
		strbuf_release(&p);
		root = strcmp(rootfs, "/") ? rootfs : NULL;
	}
	if (cmd->tree) {
		/* it works in its tree by absolute paths: any directory does, / always exists */
		cmd->cwd = xstrdup("/");
		if (build_env(cmd, envs, nr_envs))
			goto fail;
		strbuf_addf(&p, FT_BUNDLED_IN_ROOT "%s", argv0);
		cmd->exec = strbuf_detach(&p);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return fail("cannot tell the current directory: %m");
	cmd->cwd = xstrdup(cwd);
	if (root) {
		/* the caller's directory, if the other root has it, else its / */
		strbuf_addf(&p, "%s%s", root, cwd);
		if (stat(p.buf, &st) || !S_ISDIR(st.st_mode)) {
			free(cmd->cwd);
			cmd->cwd = xstrdup("/");
		}
		strbuf_release(&p);
	}
	if (build_env(cmd, envs, nr_envs))
		goto fail;
	path = cmd->env[0] + strlen("PATH=");
	if (find_program(cmd, root, argv0, path))
		goto fail;
	return 0;
fail:
	vm_cmd_release(cmd);
	return -1;
}

int vm_prepare_cmd(const char *arch, const char *rootfs, struct vm_cmd *cmd,
		   char *const *args, int nr_args)
{
	struct strbuf script = STRBUF_INIT, out = STRBUF_INIT;
	char *argv[] = { NULL, "--arch", (char *)arch, "--root", (char *)(rootfs ? rootfs : "/"),
			 NULL, NULL };
	const char *objects = "default";
	char *last;
	int rc, i;

	if (!cmd->tree)
		return 0;
	/* kbuild --objects all|LIST runs the kernel's own make in the guest, which needs a
	 * tree prepared by the root's own compiler (the last --objects counts, as in
	 * workloads/kbuild.sh) */
	for (i = 1; i + 1 < nr_args; i++)
		if (!strcmp(args[i], "--objects"))
			objects = args[++i];
	if (strcmp(objects, "default"))
		argv[5] = "--make";
	strbuf_addf(&script, "guest-kernel/%s-tree.sh", cmd->tree);
	argv[0] = (char *)vm_path(script.buf);
	strbuf_release(&script);
	rc = vm_spawn_capture(argv, &out);
	if (rc) {
		strbuf_release(&out);
		return rc < 0 ? -1 : fail("the tree for %s could not be prepared "
					   "(guest-kernel/%s-tree.sh exit %d)", cmd->tree, cmd->tree, rc);
	}
	/* the tree's path, as the workload sees it, is the last line */
	while (out.len && out.buf[out.len - 1] == '\n')
		out.buf[--out.len] = '\0';
	last = strrchr(out.buf, '\n');
	last = last ? last + 1 : out.buf;
	if (*last != '/') {
		strbuf_release(&out);
		return fail("guest-kernel/%s-tree.sh printed no tree path", cmd->tree);
	}
	add_env(cmd, "FT_KBUILD_TREE", last);
	strbuf_release(&out);
	return 0;
}

void vm_cmd_release(struct vm_cmd *cmd)
{
	int i;

	for (i = 0; i < cmd->nr_env; i++)
		free(cmd->env[i]);
	free(cmd->env);
	free(cmd->exec);
	free(cmd->cwd);
	free(cmd->rootfs);
	memset(cmd, 0, sizeof(*cmd));
}
