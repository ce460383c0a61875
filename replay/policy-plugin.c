// SPDX-License-Identifier: GPL-2.0
/*
 * policy-plugin.c - plugin:PATH.so[:ARGS], a policy from outside the tree: a shared object
 * implementing include/foliotrace/policy.h, loaded with dlopen() at parse time and kept
 * until exit (so struct rp_policy stays plain data). Its runs are stored as
 * "plugin:NAME[:ARGS]", the plugin's own name and canonical args: never a built-in's name.
 * A spec "plugin:NAME[:ARGS]" without a .so path names such stored runs (compare
 * --baseline); it parses, but replay refuses it (the guard hook).
 *
 * The plugin runs in this process. What protects the replay from it: the guard hook
 * (run.c calls every feed of a plugin's simulator through it) sets a sigsetjmp() point
 * once per batch, and a SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT raised while a plugin
 * hook runs jumps back there, as does an answer outside the allowed orders: the pass ends
 * with one fail() line and nothing is stored (the runs are stored only after the pass).
 * A signal outside a plugin hook goes to the handler that was there before (ASan's, the
 * default). Cost and limits: docs/policies.md, "Writing a policy outside the tree".
 *
 * State per simulator: an ft_vma_history and vma_priv_size private bytes per vma_id, plus
 * one scratch VMA for a fault whose VMA is unknown (reset before each such fault).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/foliotrace/policy.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/policy.h"

#define PLUGIN_NAME_MAX	24	/* bytes of ft_policy.name */
#define PLUGIN_PRIV_MAX	4096	/* bytes of ft_policy.vma_priv_size */

/* A loaded plugin: immutable after parse, on the list below until exit. */
struct rp_plugin {
	const struct ft_policy *ops;
	void *ctx;			/* what its init made */
	char path[256];
	struct rp_plugin *next;
};

static struct rp_plugin *loaded;	/* every plugin loaded (reachable: not a leak) */

/* ---- the guard: a crash or a bad answer inside a plugin hook ends the feed ---- */

static const int guarded_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NR_GUARDED (sizeof(guarded_signals) / sizeof(guarded_signals[0]))

/*
 * Process-wide, as the handlers are: the replay feeds its simulators from one thread.
 * volatile: the signal handler reads them.
 */
static struct sigaction old_action[NR_GUARDED];
static int handlers_on;
static void *alt_stack;				/* ours, if there was none; kept until exit */
static sigjmp_buf *volatile guard_env;		/* the active guard's jump point */
static const char *volatile in_hook;		/* the plugin hook running, NULL: none */
static volatile sig_atomic_t caught;		/* the signal that ended the feed */
static char bad[160];				/* a bad answer, "" if none */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	unsigned int k;

	if (in_hook && guard_env) {
		caught = sig;
		siglongjmp(*guard_env, 1);
	}
	/* not the plugin's: the previous handler gets the signal again */
	for (k = 0; k < NR_GUARDED; k++)
		if (guarded_signals[k] == sig)
			sigaction(sig, &old_action[k], NULL);
	if (si->si_code <= 0)	/* sent (kill, raise, abort): send it again */
		raise(sig);
}

/* Once per process: the handlers, on an alternate stack (a plugin's runaway recursion). */
static void handlers_install(void)
{
	struct sigaction sa;
	stack_t ss;
	unsigned int k;

	if (handlers_on)
		return;
	handlers_on = 1;
	if (!sigaltstack(NULL, &ss) && (ss.ss_flags & SS_DISABLE)) {
		ss.ss_size = 1 << 16;
		ss.ss_sp = alt_stack = xmalloc(ss.ss_size);
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	/* NODEFER: the jump leaves the handler, so the signal must not stay blocked */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < NR_GUARDED; k++)
		sigaction(guarded_signals[k], &sa, &old_action[k]);
}

/* The answer to the feed that a jump ended ("policy SPEC: " left out for a load). */
static int guard_failed(const struct rp_policy *p, const char *hook)
{
	const char *pre = *p->spec ? "policy " : "", *sep = *p->spec ? ": " : "";

	if (*bad)
		return fail("%s%s%s%s", pre, p->spec, sep, bad);
	return fail("%s%s%sthe plugin crashed in %s (%s)", pre, p->spec, sep,
		    hook ? hook : "?", strsignal(caught));
}

/*
 * Run fn(arg) (NULL: only check that p can be replayed) with a jump point for the plugin's
 * hooks. Every feed of one pass ends here: one sigsetjmp() per 4096-event batch.
 */
static int plugin_guard(const struct rp_policy *p, void (*fn)(void *), void *arg)
{
	sigjmp_buf env, *outer = guard_env;

	if (!p->plugin)
		return fail("policy %s names stored runs: replay loads plugin:PATH.so[:ARGS]",
			    p->spec);
	if (!fn)
		return 0;
	handlers_install();
	bad[0] = '\0';
	if (sigsetjmp(env, 0)) {	/* mask not saved: no syscall per batch */
		const char *hook = in_hook;

		in_hook = NULL;
		guard_env = outer;
		return guard_failed(p, hook);
	}
	guard_env = &env;
	fn(arg);
	guard_env = outer;
	return 0;
}

/* A plugin's answer is wrong: end the feed (under a guard; else the answer is ignored). */
static void answer_bad(void)
{
	if (guard_env)
		siglongjmp(*guard_env, 1);
}

/* ---- loading ---- */

/* The first ".so" of s that ends s or is followed by ':' (the end of a PATH), or NULL. */
static const char *so_path_end(const char *s)
{
	const char *so;

	for (so = strstr(s, ".so"); so && so[3] && so[3] != ':'; so = strstr(so + 1, ".so"))
		;
	return so;
}

static int name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
		      s[n] == '_' || s[n] == '-'))
			return 0;
	return n >= 1 && n <= PLUGIN_NAME_MAX;
}

/* init under the guard's handlers: a crash in it is a failed load, nothing else */
struct init_call {
	struct rp_plugin *pl;
	const char *args;
	char canon[64], err[160];
	int rc;
};

static void call_init(void *arg)
{
	struct init_call *c = arg;

	in_hook = "init";
	c->rc = c->pl->ops->init(c->args, &c->pl->ctx, c->canon, sizeof(c->canon), c->err,
				 sizeof(c->err));
	in_hook = NULL;
}

extern const struct rp_policy_ops rp_policy_plugin;

static int plugin_load(struct rp_policy *p, const char *path, const char *args)
{
	struct rp_plugin *pl;
	const struct ft_policy *fp;
	struct init_call c = { .args = args };
	void *h;
	size_t n;

	if (strlen(path) >= sizeof(pl->path))
		return fail("plugin path too long (%zu bytes, at most %zu)", strlen(path),
			    sizeof(pl->path) - 1);
	/* a path without a slash would be searched in the library path: never meant */
	if (strchr(path, '/')) {
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	} else {
		char rel[sizeof(pl->path) + 2];

		snprintf(rel, sizeof(rel), "./%s", path);
		h = dlopen(rel, RTLD_NOW | RTLD_LOCAL);
	}
	if (!h)
		return fail("cannot load plugin '%s': %s", path, dlerror());
	fp = dlsym(h, FT_POLICY_SYMBOL);
	if (!fp)
		return fail("plugin '%s' has no symbol '" FT_POLICY_SYMBOL "' (include/foliotrace/"
			    "policy.h)", path);
	if (fp->abi_version != FT_POLICY_ABI_VERSION)
		return fail("plugin '%s' has ABI version %u, this foliotrace loads version %u: "
			    "rebuild it against include/foliotrace/policy.h", path,
			    fp->abi_version, FT_POLICY_ABI_VERSION);
	if (fp->size < sizeof(*fp))
		return fail("plugin '%s': struct ft_policy is %u bytes, ABI version %u has %zu",
			    path, fp->size, FT_POLICY_ABI_VERSION, sizeof(*fp));
	if (!fp->name || !name_ok(fp->name))
		return fail("plugin '%s': its name must be 1..%d of [a-z0-9_-]", path,
			    PLUGIN_NAME_MAX);
	if (!fp->get_order)
		return fail("plugin '%s' (%s) has no get_order hook", path, fp->name);
	if (fp->vma_priv_size > PLUGIN_PRIV_MAX)
		return fail("plugin '%s' (%s): vma_priv_size %zu is above %d bytes", path,
			    fp->name, fp->vma_priv_size, PLUGIN_PRIV_MAX);
	pl = xcalloc(1, sizeof(*pl));
	pl->ops = fp;
	snprintf(pl->path, sizeof(pl->path), "%s", path);
	c.pl = pl;
	if (fp->init) {
		/* no spec yet: its error reads "the plugin crashed in init (...)" */
		struct rp_policy tmp = { .ops = &rp_policy_plugin, .plugin = pl };

		if (plugin_guard(&tmp, call_init, &c)) {
			free(pl);
			return -1;
		}
		if (c.rc) {
			c.err[sizeof(c.err) - 1] = '\0';
			free(pl);
			return fail("plugin %s: %s", fp->name, *c.err ? c.err : "init failed");
		}
		c.canon[sizeof(c.canon) - 1] = '\0';
	}
	if (!*c.canon && args)
		snprintf(c.canon, sizeof(c.canon), "%s", args);
	if (so_path_end(c.canon)) {	/* the run name would read back as a path */
		free(pl);
		return fail("plugin %s: its args '%s' hold '.so' before ':' or their end, which a "
			    "run name cannot", fp->name, c.canon);
	}
	n = (size_t)snprintf(p->spec, sizeof(p->spec), "plugin:%s%s%s", fp->name,
			     *c.canon ? ":" : "", c.canon);
	if (n >= sizeof(p->spec)) {
		free(pl);
		return fail("the run name 'plugin:%s:%s' is longer than %zu bytes", fp->name,
			    c.canon, sizeof(p->spec) - 1);
	}
	pl->next = loaded;
	loaded = pl;
	p->plugin = pl;
	return 0;
}

/*
 * args: "PATH.so[:ARGS]" (PATH up to the first ".so" that ends it or is followed by ':')
 * or "NAME[:ARGS]", the name of stored runs.
 */
static int plugin_parse(struct rp_policy *p, const char *args)
{
	const char *so, *colon;
	char path[512], name[PLUGIN_NAME_MAX + 2];

	if (!args)
		return fail("plugin needs a shared object: plugin:PATH.so[:ARGS]");
	so = so_path_end(args);
	if (so) {
		size_t n = (size_t)(so + 3 - args);

		if (n >= sizeof(path))
			return fail("plugin path too long");
		memcpy(path, args, n);
		path[n] = '\0';
		if (so[3] == ':' && !so[4])
			return fail("empty plugin arguments after ':'");
		return plugin_load(p, path, so[3] ? so + 4 : NULL);
	}
	/* the name of stored runs: checked as a plugin checks its own */
	colon = strchr(args, ':');
	snprintf(name, sizeof(name), "%.*s", (int)(colon ? (size_t)(colon - args) :
						   strlen(args)), args);
	if (!name_ok(name) || (colon && !colon[1]))
		return fail("'%s' is neither PATH.so[:ARGS] nor a plugin's run name "
			    "NAME[:ARGS] (NAME 1..%d of [a-z0-9_-])", args, PLUGIN_NAME_MAX);
	if ((size_t)snprintf(p->spec, sizeof(p->spec), "plugin:%s", args) >= sizeof(p->spec))
		return fail("run name too long");
	p->plugin = NULL;
	return 0;
}

/* ---- the decision ---- */

struct plugin_state {
	const struct rp_plugin *pl;
	const struct rp_vma *vmas;	/* the trace's, by vma_id */
	uint32_t nr;
	struct ft_vma_history *hist;	/* by vma_id; [nr]: the scratch VMA */
	uint8_t *priv;			/* by vma_id, pl->ops->vma_priv_size each; [nr] too */
	struct ft_vma vma;		/* the last VMA handed over, for mapped */
	uint32_t filled;		/* vma_id vma holds; UINT32_MAX: none or the scratch,
					 * which is filled afresh for every fault */
};

static void *plugin_new(const struct rp_policy *p, const struct rp_trace *t)
{
	struct plugin_state *st = xcalloc(1, sizeof(*st));
	size_t ps;

	if (!p->plugin)		/* a run name: plugin_guard() refuses it before a feed */
		return st;
	ps = p->plugin->ops->vma_priv_size;
	st->pl = p->plugin;
	st->vmas = t->vmas;
	st->nr = t->nr_vmas;
	st->hist = xcalloc((size_t)st->nr + 1, sizeof(*st->hist));
	st->priv = ps ? xcalloc((size_t)st->nr + 1, ps) : NULL;
	st->filled = UINT32_MAX;
	return st;
}

static void plugin_free(void *state)
{
	struct plugin_state *st = state;

	if (st) {
		free(st->hist);
		free(st->priv);
		free(st);
	}
}

/*
 * The ft_vma of fault f into st->vma (an unknown VMA: the fault's page, a fresh scratch).
 * Consecutive faults mostly share a VMA: then only the process is set again.
 */
static inline void vma_fill(struct plugin_state *st, const struct rp_fault *f)
{
	size_t ps = st->pl->ops->vma_priv_size;
	uint32_t k = f->vma_id < st->nr ? f->vma_id : st->nr;
	uint64_t vf = f->vma_id < st->nr ? st->vmas[k].flags : 0;

	st->vma.pid = f->proc_id;
	if (k == st->filled)
		return;
	st->filled = k == st->nr ? UINT32_MAX : k;
	if (k == st->nr) {
		memset(&st->hist[k], 0, sizeof(st->hist[k]));
		if (ps)
			memset(st->priv + k * ps, 0, ps);
	}
	st->vma.start = f->vma_start << RP_PAGE_SHIFT;
	st->vma.end = f->vma_end << RP_PAGE_SHIFT;
	st->vma.vm_flags = vf;
	st->vma.flags = (vf & 0x20000000ULL ? FT_VMA_HUGEPAGE : 0) |
			(vf & RP_VM_NOHUGEPAGE ? FT_VMA_NOHUGEPAGE : 0);
	st->vma.id = f->vma_id;
	st->vma.hist = &st->hist[k];
	st->vma.priv = ps ? st->priv + k * ps : NULL;
}

static unsigned int plugin_orders(const struct rp_policy *p, void *state,
				  const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	struct plugin_state *st = state;
	unsigned long m;
	unsigned int n = 0;
	int o;

	vma_fill(st, f);
	in_hook = "get_order";
	m = st->pl->ops->get_order(st->pl->ctx, &st->vma, f->vpn << RP_PAGE_SHIFT,
				   FT_ALLOC_FAULT, FT_POLICY_ORDERS);
	in_hook = NULL;
	if (m & ~FT_POLICY_ORDERS) {
		snprintf(bad, sizeof(bad), "get_order returned orders 0x%lx, outside the allowed "
			 "0x%lx", m, FT_POLICY_ORDERS);
		answer_bad();
		m &= FT_POLICY_ORDERS;
	}
	for (; m; m &= ~(1UL << o)) {	/* the set bits, largest first */
		o = 63 - __builtin_clzl(m);
		out[n++] = (uint8_t)o;
	}
	return n;
}

static void plugin_mapped(void *state, const struct rp_fault *f, uint64_t first_vpn,
			  unsigned int order)
{
	struct plugin_state *st = state;
	struct ft_vma_history *h = (struct ft_vma_history *)st->vma.hist;
	uint64_t start = first_vpn << RP_PAGE_SHIFT;

	/* st->vma is the fault's: mapped follows the orders call of the same fault */
	h->seq_faults += h->next && f->vpn << RP_PAGE_SHIFT == h->next;
	h->faults++;
	h->next = start + (RP_PAGE_SIZE << order);
	h->mapped_bytes += RP_PAGE_SIZE << order;
	h->last_order = order;
	if (st->pl->ops->mapped) {
		in_hook = "mapped";
		st->pl->ops->mapped(st->pl->ctx, &st->vma, start, order);
		in_hook = NULL;
	}
}

const struct rp_policy_ops rp_policy_plugin = {
	.name = "plugin",
	.grammar = "plugin:PATH.so[:ARGS] (a policy outside the tree: include/foliotrace/"
		   "policy.h)",
	.parse = plugin_parse,
	.orders = plugin_orders,
	.mapped = plugin_mapped,
	.state_new = plugin_new,
	.state_free = plugin_free,
	.guard = plugin_guard,
};
