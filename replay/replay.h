/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h - the offline replay engine: recorded anonymous fault streams replayed against
 * alternative order policies.
 *
 * A simulator (struct rp_sim) holds one policy, one allocation failure model and a model of
 * every process's page table (presence, zero page, owning block per 4K page). It is fed the
 * decoded event stream (db/stream.h) in recorded order; each FAULT, ZERO_WP and COW record is
 * a *touch* of a page, and the policy decides what a touch of an absent page maps. Several
 * simulators are fed the same decoded batches, so one pass over the stream serves all
 * policies. Semantics and metric definitions: docs/policies.md and docs/metrics.md.
 *
 * replay/ never includes tracer/; it reads the trace through db/ftdb.h and plain SQL, and
 * writes only replay_run and replay_metric.
 */
#ifndef FT_REPLAY_REPLAY_H
#define FT_REPLAY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "db/stream.h"

#define RP_PAGE_SHIFT	12		/* base page: 4K (x86_64 and arm64 guests) */
#define RP_PAGE_SIZE	(1ULL << RP_PAGE_SHIFT)
#define RP_PMD_ORDER	9		/* 2M with 4K pages */
/*
 * Largest order a policy may ask for below the PMD: 1M, PTE-mapped. It is the patched guest
 * kernel's ANON_FOLIO_MAX_ORDER (guest-kernel/patches, the knob takes orders 1..8), so every
 * order the grammar accepts can also be run in a guest. RP_MAX_FOLIO_SIZE is its size for
 * messages and must say the same.
 */
#define RP_MAX_FOLIO_ORDER 8
#define RP_MAX_FOLIO_SIZE "1M"
#define RP_MAX_ORDER	10		/* buddy orders 0..10, as /proc/buddyinfo */
/*
 * Smallest order khugepaged collapses to (+collapse): KHUGEPAGED_MIN_MTHP_ORDER of the
 * mTHP collapse series, the smallest anonymous mTHP (THP_ORDERS_ALL_ANON has no order 1)
 */
#define RP_MIN_COLLAPSE_ORDER 2
#define RP_VM_NOHUGEPAGE 0x40000000ULL	/* vm_flags: MADV_NOHUGEPAGE */
/* vm_flags: userfaultfd-armed (VM_UFFD_MISSING | VM_UFFD_WP | VM_UFFD_MINOR, 6.1 x86_64/arm64) */
#define RP_VM_UFFD	(0x200ULL | 0x1000ULL | (1ULL << 37))
/*
 * vm_flags: VM_STACK_INCOMPLETE_SETUP (VM_RAND_READ | VM_SEQ_READ), exec's temporary stack
 * at STACK_TOP_MAX before shift_arg_pages(); 6.1's hugepage_vma_check() never gives it THP
 */
#define RP_VM_STACK_SETUP (0x8000ULL | 0x10000ULL)

static inline int rp_vm_exec_stack(uint64_t vm_flags)
{
	return (vm_flags & RP_VM_STACK_SETUP) == RP_VM_STACK_SETUP;
}

/* ---- policies (replay/policy.c, one replay/policy-<name>.c each) ---- */

struct rp_policy_ops;
struct rp_persite;
struct rp_plugin;

/*
 * Mechanisms composed onto a policy with '+' (docs/policies.md, "Mechanisms";
 * replay/mech.c parses them, replay/sim-mech.c and the oracle run them): what the kernel
 * does after the fault, driven by the trace's time and by a memory limit. All zero: none.
 */
struct rp_mech {
	uint8_t khugepaged;		/* khugepaged scans: +khugepaged or +collapse */
	uint8_t mthp;			/* +collapse with an mTHP order: the mTHP collapse
					 * series' bitmap collapse (sim-mech.c); 0: 6.12's
					 * PMD collapse (+khugepaged, or +collapse of thp) */
	uint16_t collapse_orders;	/* orders khugepaged collapses to, bit N = order N:
					 * 1 << RP_PMD_ORDER for +khugepaged; for +collapse
					 * the policy's enabled sizes of RP_MIN_COLLAPSE_ORDER
					 * and up (rp_mech_collapse()); 0 without khugepaged */
	uint8_t shrinker;		/* +shrinker: underused THPs split under pressure */
	uint16_t max_ptes_none;		/* khugepaged/max_ptes_none, 0..511: one kernel knob,
					 * khugepaged's and the shrinker's (thp_underused()) */
	uint32_t pages_to_scan;		/* khugepaged/pages_to_scan, pages per wake */
	uint32_t scan_ms;		/* khugepaged/scan_sleep_millisecs, ms between wakes */
	uint64_t limit_pages;		/* +limit: memory.max, 4K pages; 0: no limit */
};

/* A parsed policy spec. Plain data: copy freely. */
struct rp_policy {
	const struct rp_policy_ops *ops;	/* which policy */
	unsigned int order;		/* mcpage: the fixed order, 1..RP_MAX_FOLIO_ORDER */
	unsigned int orders;		/* mthp: bitmask of enabled orders (bit N = order N) */
	unsigned int max_order;		/* adaptive: largest order it may grow to */
	/*
	 * Engine parameter, set by a parser (faultaround): pages, a power of two 2..512. A write
	 * fault maps every absent page of the aligned window around it, each order 0, instead
	 * of asking ops->orders. 0: no window.
	 */
	unsigned int window;
	/*
	 * persite: the site -> order map, immutable once built and kept until exit (so the
	 * struct stays plain data); replay/policy-persite.c.
	 */
	const struct rp_persite *persite;
	/* plugin: the loaded shared object, kept until exit; NULL for a run name only */
	const struct rp_plugin *plugin;
	struct rp_mech mech;		/* +mechanisms; all zero: the fault-time policy alone */
	char spec[64];			/* canonical spec string, e.g. "mthp:16K,64K" */
};

/*
 * rp_policy_parse - parse one spec of the policy grammar (docs/policies.md).
 * Return: 0 and *p filled (p->spec canonical), or fail() naming the bad part, e.g.
 * "bad policy 'mcpage:12': order must be 1..8". A spec never contains whitespace or control
 * characters.
 */
int rp_policy_parse(const char *spec, struct rp_policy *p);
/*
 * The policy as the guest kernel's /sys/kernel/mm/anon_folio/orders value ("none", "2",
 * "2,3,4"), or "thp" for the kernel's own THP: the policy's knob hook (replay/policy.h).
 * rp_policy_in_guest() is 0 for simulation-only policies (no knob hook: faultaround,
 * adaptive), for which rp_policy_guest_knob() returns fail().
 */
int rp_policy_in_guest(const struct rp_policy *p);
int rp_policy_guest_knob(const struct rp_policy *p, char *buf, size_t len);
/*
 * rp_policy_kernel_knob - rp_policy_guest_knob() for the guest kernel series kernel
 * ("6.1", "6.12"; NULL: 6.1). On 6.12 the policy is upstream's mTHP (no order patch): the
 * knob's orders are the sizes run.sh sets `always`, and a policy it cannot put so (the
 * simulation-only ones; an order-1 folio, since upstream's anonymous mTHP starts at order
 * 2) is refused with fail() naming the policies 6.12 runs, from the policy table. A spec
 * with +mechanisms runs on 6.12 only: buf is its fault-time policy's knob, and
 * rp_mech_guest_knobs() (replay/mech.h) gives what the guest sets for the mechanisms.
 * Return: 0 with buf, or -1 with fail() (an unknown kernel too).
 */
int rp_policy_kernel_knob(const struct rp_policy *p, const char *kernel, char *buf,
			  size_t len);
/*
 * Spec templates of the known policies in table order ("order0", "mcpage:N",
 * "adaptive[:max=SIZE]"), NULL-terminated: usage text, errors, --list-policies, completion.
 */
const char *const *rp_policy_templates(void);

/*
 * rp_persite_policy - a persite policy built in memory (advise): site names[i] gets
 * orders[i] (0..RP_MAX_FOLIO_ORDER), every other site dflt; spec "persite:<label>".
 * Same decision as "persite:FILE" with that file.
 */
void rp_persite_policy(struct rp_policy *p, const char *label, const char *const *names,
		       const unsigned int *orders, size_t n, unsigned int dflt);

/* The longest line of a persite FILE, bytes without its newline. */
#define RP_PERSITE_LINE_MAX (1u << 20)
/* The largest persite FILE read, bytes. */
#define RP_PERSITE_FILE_MAX (256u << 20)

struct strbuf;
/*
 * rp_persite_add_line - append the persite FILE line giving site name order: "ORDER NAME",
 * the name quoted when it could not be read back as itself (docs/policies.md). Every line
 * it writes, persite:FILE reads back as (order, name). Return: 0, or fail() (a name
 * whose line would be longer than RP_PERSITE_LINE_MAX; nothing appended).
 */
int rp_persite_add_line(struct strbuf *sb, unsigned int order, const char *name);

/* ---- allocation failure model (replay/frag.c) ---- */

enum rp_frag_kind {
	RP_FRAG_NONE = 0,	/* every allocation succeeds */
	RP_FRAG_BUDDYINFO,	/* buddy allocator seeded from the recorded /proc/buddyinfo */
};

/* Return: 0 and *kind set, or fail() naming the bad model. */
int rp_frag_parse(const char *name, enum rp_frag_kind *kind);
const char *rp_frag_name(enum rp_frag_kind kind);

/*
 * The most free pages a buddyinfo seed may hold: 2^32 4K pages (16 TiB), above any guest
 * foliotrace records. The buddy model's bitmaps take about pages / 2 bytes.
 */
#define RP_BUDDY_MAX_PAGES	(1ULL << 32)

/*
 * Free block counts per order parsed from /proc/buddyinfo text: the sum over every zone but
 * DMA (user pages are not allocated from ZONE_DMA). Counts are plain decimal digits. The
 * free pages (sum of count << order) may not exceed max_pages (the recorded memory in
 * pages; 0 if unknown) nor RP_BUDDY_MAX_PAGES.
 * Return: 0, or fail() naming the line or the implausible order and count.
 */
int rp_buddyinfo_parse(const char *text, uint64_t max_pages,
		       uint64_t free_blocks[RP_MAX_ORDER + 1]);
/* The bound above for a seed from anywhere. Return: 0, or fail() naming the order. */
int rp_buddyinfo_check(const uint64_t free_blocks[RP_MAX_ORDER + 1], uint64_t max_pages);

/*
 * The largest order the buddyinfo model compacts for: PAGE_ALLOC_COSTLY_ORDER. 6.1 runs
 * direct compaction for a failed movable request of order 1..3 that may reclaim (the
 * anonymous fault's GFP_HIGHUSER_MOVABLE | __GFP_NORETRY); above it compaction_suitable()
 * refuses while the fragmentation index is <= vm.extfrag_threshold, which the
 * fragmented guests set to its maximum, 1000 (docs/policies.md, "Compaction").
 */
#define RP_COMPACT_MAX_ORDER	3

/*
 * The pages compaction may migrate, from recorded /proc/vmstat text: nr_inactive_anon +
 * nr_active_anon + nr_inactive_file + nr_active_file (the LRU pages; unevictable pages,
 * such as the fragmenter's mlocked pins, are not among them). Lines are "name value";
 * the sum may not exceed max_pages (the recorded memory in pages; 0 if unknown) nor
 * RP_BUDDY_MAX_PAGES.
 * Return: 0 and *pages set, or fail() naming the bad line or the implausible sum.
 */
int rp_vmstat_movable(const char *text, uint64_t max_pages, uint64_t *pages);

/* ---- metrics (replay/metrics.c; names and units in docs/metrics.md) ---- */

/*
 * A cold fault (RP_M_COLD_FAULTS; docs/cost-model.md, "Cold faults"): one whose record
 * began (ts - latency: a record's ts is its handler's end) gap or more of recorded time
 * after the end of its process's previous fault in the same run, or its process's first:
 * the process did that much of its own work between the two, enough to evict the fault
 * path's cache lines. Under a larger folio size a process faults less often, so more of
 * its faults are cold. faulted 0: the process has had no fault yet. The gap is what
 * anon-touch --between 1M (reading a 1 MiB L2's worth between two touches) leaves between
 * its faults in an x86_64 guest, on the trace's clock (rp_cold_gap()):
 * RP_COLD_GAP_NS, 60 us of TCG's clock (62 us measured), or RP_COLD_GAP_ICOUNT on the
 * icount clock, 80,000 instructions (83,960 measured; docs/cost-model.md, "Cold faults").
 */
#define RP_COLD_GAP_NS 60000
#define RP_COLD_GAP_ICOUNT 80000
static inline int rp_cold_fault(int faulted, uint64_t prev_end, uint64_t ts, uint64_t latency,
				uint64_t gap)
{
	return !faulted || (ts >= latency && ts - latency >= prev_end &&
			    ts - latency - prev_end >= gap);
}

/*
 * rp_cold_gap - the cold gap (rp_cold_fault()) of a trace on clock (trace.clock; NULL or
 * "" if unknown: a clock of ns, as TCG's).
 */
uint64_t rp_cold_gap(const char *clock);

enum rp_metric {
	RP_M_FAULTS,		/* first-touch faults incl. zero_wp (COW not included) */
	RP_M_ZERO_MAPS,		/* faults that mapped the 4K zero page (reads) */
	RP_M_HUGE_ZERO_MAPS,	/* faults that mapped the huge zero page (thp reads) */
	RP_M_ZERO_WP,		/* write faults on a zero-page PTE (allocate 4K) */
	RP_M_COW,		/* write faults that copied a page shared after fork */
	RP_M_TOUCHES,		/* touches replayed (FAULT, ZERO_WP, COW records) */
	RP_M_PEAK_RSS,		/* bytes: peak anonymous RSS (zero page not counted) */
	RP_M_FINAL_RSS,		/* bytes: anonymous RSS at the end of the trace */
	RP_M_BLOAT,		/* bytes: allocated, never touched before zap/exit/end */
	RP_M_ZEROED,		/* bytes zeroed by allocations */
	RP_M_PTE_WRITES,	/* page-table entries written by faults (a PMD counts 1) */
	RP_M_CONTPTE_RUNS,	/* aligned 64K runs of one block mapped by a fault */
	RP_M_CONTPTE_FINAL,	/* such runs still intact at the end of the trace */
	RP_M_CONTPTE_EXIT,	/* such runs intact at each address space's end: its exit
				 * (before the exit zap), else the end of the trace */
	RP_M_PMD_MAPS,		/* 2M folios mapped by a PMD */
	RP_M_FREE_BYTES,	/* bytes of present pages in MADV_FREE ranges (kept mapped) */
	RP_M_ALLOC_FAILS,	/* allocation attempts that failed (frag model) */
	RP_M_OOM,		/* order-0 allocations that failed: mapped anyway, counted */
	RP_M_RSS_SECONDS,	/* byte-seconds: RSS integrated over the trace's time */
	RP_M_COLLAPSES,		/* folios khugepaged collapsed, any order (+khugepaged,
				 * +collapse) */
	RP_M_SPLITS,		/* underused THPs the shrinker split (+shrinker) */
	RP_M_SPLIT_FREED,	/* pages: their zero-filled subpages freed */
	RP_M_FAULT_TIME,	/* ns: predicted by the cost model (replay/cost.h), not by
				 * the engines; stored only when the database has one */
	RP_M_TABLE_FAULTS,	/* first-touch faults that allocated a page table: their 2M
				 * range of the process had none (docs/metrics.md) */
	RP_M_COW_LARGE,		/* COW faults (as RP_M_COW) of a page inside a large folio
				 * (order >= 2, PMD included) */
	RP_M_COLD_FAULTS,	/* faults (as RP_M_FAULTS) after RP_COLD_GAP_NS or more of
				 * their process's own time since its previous one */
	RP_M_PCP_REFILLS,	/* allocations of order 0-3 that refilled their per-cpu
				 * list (replay/pcp.h): the fault, COW or zero_wp paid it */
	RP_M_PCP_REFILL_BLOCKS,	/* blocks those refills took from the buddy allocator:
				 * 63 for order 0, 15 for order 2, 7 for order 3 */
	RP_M_ALLOC_0,		/* successful allocations of order 0 .. RP_PMD_ORDER */
	RP_M_FB_0 = RP_M_ALLOC_0 + RP_PMD_ORDER + 1,	/* faults by enum ftdb_fallback */
	/* collapses by order, RP_MIN_COLLAPSE_ORDER .. RP_PMD_ORDER: rp_m_collapse() */
	RP_M_COLLAPSE_MIN = RP_M_FB_0 + FTDB_FB_NR,
	RP_NR_METRICS = RP_M_COLLAPSE_MIN + RP_PMD_ORDER - RP_MIN_COLLAPSE_ORDER + 1
};

/* collapses of order k count in RP_M_COLLAPSE_MIN + k - RP_MIN_COLLAPSE_ORDER */
static inline unsigned int rp_m_collapse(unsigned int order)
{
	return RP_M_COLLAPSE_MIN + order - RP_MIN_COLLAPSE_ORDER;
}

/*
 * How a metric is shown (its row in replay/metrics.c). compare's table and CSV columns,
 * its JSON fields and report's memory chart follow the table's order; replay's and
 * report's lists of every metric follow enum rp_metric.
 */
enum rp_metric_show {
	RP_SHOW_BYTES = 1 << 0,		/* a byte count: tables print it as "12.3M" */
	RP_SHOW_ALWAYS = 1 << 1,	/* replay prints its row even when every run has 0 */
	RP_SHOW_COLUMN = 1 << 2,	/* compare has a column (a group: one, the group's sum) */
	RP_SHOW_VS_BASE = 1 << 3,	/* compare follows it with its change vs the baseline */
	RP_SHOW_JSON = 1 << 4,		/* compare JSON has it (a group: in the group's object) */
	RP_SHOW_TOTAL = 1 << 5,		/* a group: compare JSON adds "<group>_total" */
	RP_SHOW_CHART = 1 << 6,		/* a byte count report draws in its memory chart */
	RP_SHOW_INTERNAL = 1 << 7,	/* never stored nor shown (fallback_none) */
	RP_SHOW_ZERO_UNKNOWN = 1 << 8,	/* 0 means not computed (fault_time_ns without a cost
					 * model): compare shows null, and no change */
	RP_SHOW_REAL = 1 << 9,		/* a guest trace measures it (replay/measure.h):
					 * a row of compare --sim-vs-real */
	RP_SHOW_REAL_NONZERO = 1 << 10,	/* with RP_SHOW_REAL: only when either side is not 0 */
	RP_SHOW_SIM_ONLY = 1 << 11,	/* a row of a simulation-only policy in --sim-vs-real */
};

struct rp_metric_info {
	unsigned int id;		/* enum rp_metric */
	const char *name;		/* replay_metric.name; compare's JSON field */
	const char *column;		/* compare's column, NULL: name; "<column>_vs_base" */
	const char *group;		/* compare JSON object it belongs to, NULL: none */
	const char *key;		/* its field in that object */
	const char *label;		/* report's legend, NULL: name */
	unsigned int show;		/* enum rp_metric_show */
};

/* Every metric once, in display order; *n rows. */
const struct rp_metric_info *rp_metric_table(size_t *n);
/* The row of metric m (m < RP_NR_METRICS). */
const struct rp_metric_info *rp_metric_info(unsigned int m);
/* Name of a metric as stored in replay_metric.name: "faults", "alloc_order_4", ... */
const char *rp_metric_name(unsigned int m);
/* Return: the metric's index, or -1 if name is unknown. */
int rp_metric_lookup(const char *name);
/* 1 if the metric is a byte count (formatting). */
int rp_metric_is_bytes(unsigned int m);
/* 1 if the metric is stored and shown (not RP_SHOW_INTERNAL). */
int rp_metric_public(unsigned int m);

struct rp_counters {
	uint64_t v[RP_NR_METRICS];	/* indexed by enum rp_metric */
};

/* ---- the trace's static tables, as the engine needs them ---- */

struct rp_vma {
	uint64_t start;		/* bytes */
	uint64_t end;		/* bytes, exclusive */
	uint64_t flags;		/* vm_flags */
};

/*
 * What a simulator is built from. vmas is indexed by vma_id (ids the stream uses); entries
 * with start == end are unused. proc ids in the stream must be < nr_procs.
 */
struct rp_trace {
	const struct rp_vma *vmas;	/* indexed by vma_id */
	uint32_t nr_vmas;		/* entries in vmas */
	uint32_t nr_procs;		/* 1 + largest proc_id */
	/*
	 * Per-site accounting: the number of site slots the touches are charged to
	 * (rp_sim_feed_sites()); 0: none. Slot 0 is for touches of no traced process.
	 */
	uint32_t nr_site_slots;
	/*
	 * By slot: its site's name as `compare --by site` shows it (site_call.site; slot 0
	 * "[untraced]"), what the persite policy looks up; NULL: no names (persite then
	 * treats the trace as one without sites)
	 */
	const char *const *slot_sites;
	/*
	 * By proc_id (< nr_procs): 1 if the process's metrics count, 0 for a shadow, a process
	 * fed only for what it shares with the counted ones (a selected process's fork
	 * children: their fork, copies, zaps and exit decide when a counted process's write
	 * copies a page). A shadow's own faults, pages and RSS are in no metric, per process,
	 * total or per site. NULL: every process counts.
	 */
	const uint8_t *counted;
	uint64_t free_blocks[RP_MAX_ORDER + 1];	/* frag=buddyinfo seed, blocks per order */
	uint64_t movable_pages;	/* frag=buddyinfo: pages compaction may migrate; 0: none */
	uint64_t cold_gap;	/* rp_cold_fault()'s gap, units of the trace's clock
				 * (rp_cold_gap()); 0: RP_COLD_GAP_NS */
};

/* ---- the fast engine (replay/sim.c) ---- */

struct rp_sim;

/* Return: a simulator, or NULL with fail() (frag model without a seed). */
struct rp_sim *rp_sim_new(const struct rp_policy *p, enum rp_frag_kind frag,
			  const struct rp_trace *t);
void rp_sim_free(struct rp_sim *s);
/*
 * The engine's order-0 per-cpu list (replay/pcp.h), which a replay of a selection also
 * moves for the processes it leaves out (replay/run.c, replay/pcp-follow.h): their
 * frees are pages the selection's faults take back.
 */
struct rp_pcp *rp_sim_pcp(struct rp_sim *s);
/* Replay n events in recorded order. ALLOC records are ignored. */
void rp_sim_feed(struct rp_sim *s, const struct ftdb_event *ev, size_t n);
/*
 * The same, with the site slot of each event (slots[i] for ev[i], < t->nr_site_slots;
 * read for touches only): faults, zeroed bytes and the blocks they allocate are charged to
 * it. slots NULL, or a trace without slots: rp_sim_feed().
 */
void rp_sim_feed_sites(struct rp_sim *s, const struct ftdb_event *ev, const uint32_t *slots,
		       size_t n);
/* End of the trace: final RSS, end-of-trace bloat, intact contpte runs. Call once. */
void rp_sim_finish(struct rp_sim *s);
/*
 * Metrics after rp_sim_finish(): per process (proc_id < nr_procs; NULL if the process never
 * appeared or is a shadow) and the total over the counted processes (peak_rss of the total
 * is the peak of their sum).
 */
const struct rp_counters *rp_sim_proc(const struct rp_sim *s, uint32_t proc_id);
const struct rp_counters *rp_sim_total(const struct rp_sim *s);
/*
 * rp_sim_block_fits - whether a write first touch of page vpn of VMA vma_id by process
 * proc_id, given order k now, would map its aligned 2^k-page block: the VMA is not one that
 * always gets 4K, holds the block, and every page of the block is absent. The allocation
 * is not asked (advise's probes run the none model, where it always succeeds).
 */
int rp_sim_block_fits(struct rp_sim *s, uint32_t proc_id, uint32_t vma_id, uint64_t vpn,
		      unsigned int k);

/* What one site slot took in a run (docs/sites.md, "Per-site metrics"). */
struct rp_site_counters {
	uint64_t faults;	/* faults its touches took (as RP_M_FAULTS) */
	uint64_t zeroed;	/* bytes its faults allocated, as RP_M_ZEROED */
	uint64_t bloat;		/* bytes of its blocks never touched, as RP_M_BLOAT */
	uint64_t rss;		/* pages of its blocks resident now */
	uint64_t at_peak;	/* after rp_sim_finish(): bytes of its blocks resident when
				 * the total RSS first reached its peak */
};

/*
 * After rp_sim_finish(): the site slots' counters, *n of them (0 for a trace without
 * slots). Over all slots, faults, zeroed and bloat sum to the total's, at_peak to
 * peak_rss_bytes.
 */
const struct rp_site_counters *rp_sim_sites(const struct rp_sim *s, uint32_t *n);

/* ---- the naive reference simulator (replay/oracle.c), same contract ---- */

struct rp_oracle;

struct rp_oracle *rp_oracle_new(const struct rp_policy *p, enum rp_frag_kind frag,
				const struct rp_trace *t);
void rp_oracle_free(struct rp_oracle *o);
struct rp_pcp *rp_oracle_pcp(struct rp_oracle *o);	/* as rp_sim_pcp() */
void rp_oracle_feed(struct rp_oracle *o, const struct ftdb_event *ev, size_t n);
void rp_oracle_feed_sites(struct rp_oracle *o, const struct ftdb_event *ev, const uint32_t *slots,
			  size_t n);
void rp_oracle_finish(struct rp_oracle *o);
const struct rp_counters *rp_oracle_proc(const struct rp_oracle *o, uint32_t proc_id);
const struct rp_counters *rp_oracle_total(const struct rp_oracle *o);
const struct rp_site_counters *rp_oracle_sites(const struct rp_oracle *o, uint32_t *n);

/* ---- named synthetic streams (replay/synth.c), for tests and the bench ---- */

struct rp_stream {
	struct ftdb_event *ev;	/* events in recorded order */
	size_t nr;		/* events used */
	size_t cap;		/* events allocated */
	struct rp_vma *vmas;	/* indexed by vma_id */
	uint32_t nr_vmas;
	uint32_t nr_procs;
};

/*
 * rp_synth - generate the named synthetic stream ("random", "seq", "kbuild-like"; see
 * rp_synth_names()) with about nr_faults FAULT records, deterministic for a seed.
 * Return: 0, or fail() for an unknown name.
 */
int rp_synth(const char *name, uint64_t seed, size_t nr_faults, struct rp_stream *out);
const char *const *rp_synth_names(void);
void rp_stream_release(struct rp_stream *s);
/* Helpers to build streams by hand (tests). Return the new vma_id. */
uint32_t rp_stream_add_vma(struct rp_stream *s, uint64_t start, uint64_t end, uint64_t flags);
void rp_stream_add(struct rp_stream *s, const struct ftdb_event *ev);
/* Fill t from s (free_blocks zero). */
void rp_stream_trace(const struct rp_stream *s, struct rp_trace *t);

#endif /* FT_REPLAY_REPLAY_H */
