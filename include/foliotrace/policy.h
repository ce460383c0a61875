/* SPDX-License-Identifier: GPL-2.0 */
/*
 * foliotrace/policy.h - the public interface of an out-of-tree folio-order policy: a
 * shared object that `foliotrace replay --policy plugin:PATH.so[:ARGS]` loads (dlopen) and
 * replays beside the built-in policies, in the same pass. docs/policies.md, "Writing a
 * policy outside the tree", is its documentation; contrib/policies/ holds examples.
 *
 * The hook has the shape of upstream's proposed BPF order selection (BPF-THP,
 * thp_get_order(vma, type, orders)): it is handed the VMA, the kind of allocation and the
 * bitmask of orders allowed, and returns the orders to try, a subset of that mask. The
 * simulator tries them largest first exactly as it does for the built-in policies (block
 * inside the VMA, every PTE none, the allocation succeeds) and maps 4K when none passes.
 *
 * ABI: a plugin defines one object, `const struct ft_policy ft_policy`, with abi_version
 * FT_POLICY_ABI_VERSION and size sizeof(struct ft_policy). foliotrace refuses a plugin
 * whose version differs (any change of a struct below bumps it) or whose size is smaller.
 * Everything the hooks are handed is read-only except vma->priv and what init allocated.
 * Header only: a plugin links against nothing of foliotrace (cc -shared -fPIC).
 */
#ifndef FOLIOTRACE_POLICY_H
#define FOLIOTRACE_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define FT_POLICY_ABI_VERSION	1

/* Orders are of 4K pages: order 4 is 64K, order 9 (2M) is the PMD. */
#define FT_PAGE_SHIFT		12
/*
 * The orders allowed to a plugin: 1..8 (8K..1M, PTE-mapped), bit N = order N, as the
 * built-in mthp policy may enable them. Returning a bit outside the mask handed in is an
 * error that ends the replay (one line, exit 1, nothing stored).
 */
#define FT_POLICY_ORDERS	0x1feUL

/* The kind of allocation the order is chosen for (upstream's enum tva_type). */
enum ft_alloc_kind {
	FT_ALLOC_FAULT = 0,	/* an anonymous write fault on an absent page: the only kind
				 * the simulator asks about in ABI version 1 */
	FT_ALLOC_KHUGEPAGED = 1,	/* a collapse (reserved) */
	FT_ALLOC_SWAPIN = 2,	/* a swap-in (reserved) */
};

/* struct ft_vma.flags */
#define FT_VMA_HUGEPAGE		0x1	/* MADV_HUGEPAGE (VM_HUGEPAGE) */
#define FT_VMA_NOHUGEPAGE	0x2	/* MADV_NOHUGEPAGE: never asked, the simulator maps 4K
					 * there as the kernel does (reserved for other kinds) */

/*
 * What the simulator keeps per VMA, read-only for the plugin: the history the built-in
 * adaptive policy decides by. Updated after every fault the plugin was asked about.
 */
struct ft_vma_history {
	uint64_t faults;	/* write faults on absent pages asked about in this VMA before
				 * this one */
	uint64_t seq_faults;	/* of them, those at the page right after the block mapped
				 * last in this VMA (next below): sequential first touches */
	uint64_t next;		/* byte address after the block mapped last; 0: none yet */
	uint64_t mapped_bytes;	/* bytes those faults mapped */
	uint32_t last_order;	/* order of the block mapped last (0: 4K) */
	uint32_t reserved;
};

struct ft_vma {
	uint64_t start;		/* bytes, the VMA's first address */
	uint64_t end;		/* bytes, exclusive */
	uint64_t flags;		/* FT_VMA_* */
	uint64_t vm_flags;	/* the recorded vm_flags, raw (the kernel's VM_* bits) */
	uint32_t id;		/* dense id of the VMA in the trace */
	uint32_t pid;		/* the faulting process: the trace's dense process id */
	const struct ft_vma_history *hist;
	/* vma_priv_size bytes of per-VMA private state, zeroed before the first fault;
	 * per simulator (a plugin replayed twice in one pass has two); NULL if size 0 */
	void *priv;
};

struct ft_policy {
	uint32_t abi_version;	/* FT_POLICY_ABI_VERSION */
	uint32_t size;		/* sizeof(struct ft_policy) */
	/* the policy's name: 1..24 of [a-z0-9_-]; its runs are stored as
	 * "plugin:NAME" or "plugin:NAME:ARGS" */
	const char *name;
	size_t vma_priv_size;	/* bytes of ft_vma.priv, at most 4096 */
	/*
	 * Optional: parse args (NULL: none given) into *ctx, handed to every other hook.
	 * Write the canonical args into canon (canon_len bytes; left empty: args as given,
	 * "" for none). Return 0, or non-zero with a one-line reason in err (err_len bytes).
	 * Called once at load, before any replay.
	 */
	int (*init)(const char *args, void **ctx, char *canon, size_t canon_len, char *err,
		    size_t err_len);
	/*
	 * Required: the orders to try for a fault at address addr (bytes) in vma, a subset of
	 * orders (bit N = order N); 0 maps 4K. Must not change *ctx (the simulator and the
	 * oracle share it); state goes in vma->priv.
	 */
	unsigned long (*get_order)(void *ctx, const struct ft_vma *vma, uint64_t addr,
				   enum ft_alloc_kind type, unsigned long orders);
	/* Optional: after the fault, the block [start, start + 2^order pages) mapped. */
	void (*mapped)(void *ctx, const struct ft_vma *vma, uint64_t start, unsigned int order);
	/* Optional: free what init allocated. */
	void (*fini)(void *ctx);
};

/* The one symbol foliotrace looks up. */
#define FT_POLICY_SYMBOL	"ft_policy"

#endif /* FOLIOTRACE_POLICY_H */
