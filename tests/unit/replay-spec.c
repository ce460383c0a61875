// SPDX-License-Identifier: GPL-2.0
/*
 * replay-spec.c - the policy spec parser: a table of valid specs with their canonical form
 * and fields, a table of invalid ones with the exact one-line error.
 */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "lib/error.h"
#include "replay/policy.h"
#include "replay/replay.h"
#include "tests/unit/tap.h"

/* Hostile buddyinfo seeds (issue 12 item 1): refused with the order and the count. */
#define BI_NORMAL "Node 0, zone Normal "
static const struct {
	const char *text;
	uint64_t max_pages;	/* the recorded memory, pages; 0 unknown */
	const char *err;
} bad_buddyinfo[] = {
	{ BI_NORMAL "0 0 0 0 0 0 0 0 0 0 9007199254740992\n", 0,
	  "implausible buddyinfo: order 10 count 9007199254740992" },
	{ BI_NORMAL "0 0 0 0 0 0 0 0 0 0 9007199254740992\n", 262144,
	  "implausible buddyinfo: order 10 count 9007199254740992" },
	{ BI_NORMAL "0 0 0 -5 0 0 0 0 0 0 0\n", 0,
	  "bad buddyinfo line 'Node 0, zone Normal 0 0 0 -5 0 0 0 0 0 0 0': 3 counts, want 11" },
	{ BI_NORMAL "1 1 1 1 1 1 1 1 1 1 99999999999999999999999\n", 0,
	  "implausible buddyinfo: order 10 count 99999999999999999999999" },
	{ BI_NORMAL "100000000 100000000 100000000 100000000 100000000 100000000 100000000 "
		    "100000000 100000000 100000000 100000000\n", 0,
	  /* 1e8 * (2^6 - 1) pages at order 5 > 2^32 */
	  "implausible buddyinfo: order 5 count 100000000: more free pages than the 4294967296 "
	  "pages the buddy model holds" },
	/* 1 GiB of 4K pages is 262144; 257 order-10 blocks are 263168 */
	{ BI_NORMAL "0 0 0 0 0 0 0 0 0 0 257\n", 262144,
	  "implausible buddyinfo: order 10 count 257: more free pages than the 262144 pages of "
	  "the recorded memory" },
	/* two zones that each fit but not together */
	{ BI_NORMAL "0 0 0 0 0 0 0 0 0 0 200\n" BI_NORMAL "0 0 0 0 0 0 0 0 0 0 100\n", 262144,
	  "implausible buddyinfo: order 10 count 300: more free pages than the 262144 pages of "
	  "the recorded memory" },
};
/* s with control characters as \n, \t or \xHH, for one-line TAP descriptions */
static const char *show(const char *s)
{
	static char buf[128];
	size_t n = 0;

	for (; *s && n + 5 < sizeof(buf); s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c != 0x7f)
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\x%02x", c);
	}
	buf[n] = '\0';
	return buf;
}

static const struct {
	const char *spec;
	const char *canon;
	unsigned int order, orders, window, max_order;
} valid[] = {
	{ "order0", "order0", 0, 0, 0, 0 },
	{ "mcpage:1", "mcpage:1", 1, 0, 0, 0 },
	{ "mcpage:2", "mcpage:2", 2, 0, 0, 0 },
	{ "mcpage:8", "mcpage:8", 8, 0, 0, 0 },
	{ "mthp:16K,32K,64K", "mthp:16K,32K,64K", 0, 0x1c, 0, 0 },
	{ "mthp:64K,16K", "mthp:16K,64K", 0, 0x14, 0, 0 },
	{ "mthp:8k", "mthp:8K", 0, 0x2, 0, 0 },
	{ "mthp:1M", "mthp:1M", 0, 0x100, 0, 0 },
	{ "mthp:65536", "mthp:64K", 0, 0x10, 0, 0 },
	{ "faultaround:2", "faultaround:2", 0, 0, 2, 0 },
	{ "faultaround:16", "faultaround:16", 0, 0, 16, 0 },
	{ "faultaround:512", "faultaround:512", 0, 0, 512, 0 },
	{ "thp", "thp", 0, 0, 0, 0 },
	{ "adaptive", "adaptive:max=64K", 0, 0, 0, 4 },
	{ "adaptive:max=256K", "adaptive:max=256K", 0, 0, 0, 6 },
	{ "adaptive:max=8K", "adaptive:max=8K", 0, 0, 0, 1 },
};

/* +mechanisms (docs/policies.md, "Mechanisms"): canonical form and fields */
static const struct {
	const char *spec;
	const char *canon;
	unsigned int khugepaged, shrinker, max_ptes_none, pages, scan_ms;
	uint64_t limit_pages;
	unsigned int orders;		/* collapse_orders */
} mech_valid[] = {
	{ "thp+khugepaged", "thp+khugepaged", 1, 0, 511, 4096, 10000, 0, 0x200 },
	{ "thp+khugepaged:scan_ms=100,max_ptes_none=0,pages=512",
	  "thp+khugepaged:max_ptes_none=0,pages=512,scan_ms=100", 1, 0, 0, 512, 100, 0, 0x200 },
	{ "thp+shrinker:max_ptes_none=409+limit:512M",
	  "thp+shrinker:max_ptes_none=409+limit:512M", 0, 1, 409, 4096, 10000, 131072, 0 },
	/* any order of the mechanisms; the limit in its largest unit; one max_ptes_none */
	{ "thp+limit:1024M+shrinker", "thp+shrinker+limit:1G", 0, 1, 511, 4096, 10000, 262144, 0 },
	{ "thp+khugepaged:max_ptes_none=409+shrinker+limit:1536K",
	  "thp+khugepaged+shrinker:max_ptes_none=409+limit:1536K", 1, 1, 409, 4096, 10000, 384,
	  0x200 },
	{ "mthp:64K,16K+limit:65536", "mthp:16K,64K+limit:64K", 0, 0, 511, 4096, 10000, 16, 0 },
	{ "order0+khugepaged:max_ptes_none=511", "order0+khugepaged", 1, 0, 511, 4096, 10000, 0,
	  0x200 },
	/* +collapse: the policy's sizes of 16K and up; the PMD size alone is +khugepaged */
	{ "mthp:16K,64K+collapse", "mthp:16K,64K+collapse", 1, 0, 511, 4096, 10000, 0, 0x14 },
	{ "mthp:64K,16K,8K+collapse:scan_ms=5,max_ptes_none=0",
	  "mthp:8K,16K,64K+collapse:max_ptes_none=0,scan_ms=5", 1, 0, 0, 4096, 5, 0, 0x14 },
	{ "mcpage:4+limit:1G+collapse:pages=512", "mcpage:4+collapse:pages=512+limit:1G", 1, 0,
	  511, 512, 10000, 262144, 0x10 },
	{ "thp+collapse:scan_ms=1", "thp+khugepaged:scan_ms=1", 1, 0, 511, 4096, 1, 0, 0x200 },
	{ "thp+collapse:max_ptes_none=409", "thp+khugepaged:max_ptes_none=409", 1, 0, 409, 4096,
	  10000, 0, 0x200 },
	{ "mthp:1M+collapse:max_ptes_none=0+shrinker:max_ptes_none=0+limit:4M",
	  "mthp:1M+collapse+shrinker:max_ptes_none=0+limit:4M", 1, 1, 0, 4096, 10000, 1024,
	  0x100 },
};

static const struct {
	const char *spec;
	const char *err;
} invalid[] = {
	{ "thp+foo", "bad policy 'thp+foo': unknown mechanism 'foo' (known: "
	  "+khugepaged[:max_ptes_none=N,pages=N,scan_ms=N], "
	  "+collapse[:max_ptes_none=0|511,pages=N,scan_ms=N], +shrinker[:max_ptes_none=N], "
	  "+limit:SIZE)" },
	{ "order0+collapse", "bad policy 'order0+collapse': collapse: the policy enables no THP "
	  "size to collapse to (the sizes of mthp, mcpage:N or thp, 16K and up)" },
	{ "mthp:8K+collapse", "bad policy 'mthp:8K+collapse': collapse: the policy enables no THP "
	  "size to collapse to (the sizes of mthp, mcpage:N or thp, 16K and up)" },
	{ "adaptive+collapse", "bad policy 'adaptive+collapse': collapse: the policy enables no "
	  "THP size to collapse to (the sizes of mthp, mcpage:N or thp, 16K and up)" },
	{ "mthp:16K+collapse:max_ptes_none=256", "bad policy 'mthp:16K+collapse:max_ptes_none=256'"
	  ": collapse: max_ptes_none=256: mTHP collapse takes 0 or 511 only (the kernel would use "
	  "0 for the mTHP sizes)" },
	{ "mthp:16K+collapse+shrinker:max_ptes_none=409+limit:1G",
	  "bad policy 'mthp:16K+collapse+shrinker:max_ptes_none=409+limit:1G': collapse: "
	  "max_ptes_none=409: mTHP collapse takes 0 or 511 only (the kernel would use 0 for the "
	  "mTHP sizes)" },
	{ "thp+khugepaged+collapse", "bad policy 'thp+khugepaged+collapse': khugepaged and "
	  "collapse given together: +collapse is khugepaged collapsing to the policy's sizes" },
	{ "mthp:16K+collapse+collapse", "bad policy 'mthp:16K+collapse+collapse': collapse given "
	  "twice" },
	{ "mthp:16K+collapse:sizes=64K", "bad policy 'mthp:16K+collapse:sizes=64K': collapse: "
	  "unknown option 'sizes'" },
	{ "mthp:16K+collapse:pages=0", "bad policy 'mthp:16K+collapse:pages=0': pages=0 is out of "
	  "range (1..16777216)" },
	{ "thp+khugepaged+khugepaged", "bad policy 'thp+khugepaged+khugepaged': khugepaged "
				       "given twice" },
	{ "thp+khugepaged:pages=8,pages=8", "bad policy 'thp+khugepaged:pages=8,pages=8': "
					    "khugepaged: option pages given twice" },
	{ "thp+khugepaged:max_ptes_none=512", "bad policy 'thp+khugepaged:max_ptes_none=512': "
					      "max_ptes_none=512 is out of range (0..511)" },
	{ "thp+khugepaged:scan_ms=0", "bad policy 'thp+khugepaged:scan_ms=0': scan_ms=0 is out "
				      "of range (1..86400000)" },
	{ "thp+khugepaged:sleep=5", "bad policy 'thp+khugepaged:sleep=5': khugepaged: unknown "
				    "option 'sleep'" },
	{ "thp+khugepaged:", "bad policy 'thp+khugepaged:': khugepaged: empty argument after ':'" },
	{ "thp+shrinker", "bad policy 'thp+shrinker': shrinker needs +limit:SIZE (the model's "
			  "only memory pressure)" },
	{ "thp+shrinker:max_ptes_none=4x+limit:1G", "bad policy 'thp+shrinker:max_ptes_none=4x+"
						    "limit:1G': max_ptes_none: bad number '4x'" },
	{ "thp+khugepaged:max_ptes_none=0+shrinker:max_ptes_none=409+limit:1G",
	  "bad policy 'thp+khugepaged:max_ptes_none=0+shrinker:max_ptes_none=409+limit:1G': "
	  "khugepaged max_ptes_none=0 and shrinker max_ptes_none=409 differ: the kernel has one "
	  "knob (khugepaged/max_ptes_none)" },
	{ "thp+limit", "bad policy 'thp+limit': limit needs a size: limit:SIZE (memory.max)" },
	{ "thp+limit:6000", "bad policy 'thp+limit:6000': limit: size '6000' is not a whole "
			    "number of 4K pages" },
	{ "thp+limit:2T", "bad policy 'thp+limit:2T': limit: bad size '2T'" },
	{ "thp+limit:1G+limit:2G", "bad policy 'thp+limit:1G+limit:2G': limit given twice" },
	{ "+limit:1G", "bad policy '+limit:1G': no policy before '+'" },
	{ "mcpage:12+limit:1G", "bad policy 'mcpage:12+limit:1G': order must be 1..8" },
	{ "thp+khugepaged:max_ptes_none=1,pages=100,scan_ms=100+shrinker+limit:1536K",
	  "bad policy 'thp+khugepaged:max_ptes_none=1,pages=100,scan_ms=100+shrinker+limit:1536K': "
	  "canonical spec longer than 63 bytes" },
	{ "", "bad policy '': empty spec" },
	{ "mcpage:12", "bad policy 'mcpage:12': order must be 1..8" },
	{ "mcpage:0", "bad policy 'mcpage:0': order must be 1..8" },
	{ "mcpage", "bad policy 'mcpage': mcpage needs an order: mcpage:N with N = 1..8" },
	{ "mcpage:", "bad policy 'mcpage:': empty argument after ':' (mcpage:N (N = 1..8))" },
	{ "mcpage:two", "bad policy 'mcpage:two': order 'two' is not a number" },
	{ "mcpage:-1", "bad policy 'mcpage:-1': order '-1' is not a number" },
	{ "order1", "bad policy 'order1': unknown policy 'order1' (known: order0, mcpage:N, "
		    "mthp:SIZE[,SIZE...], faultaround:N, thp, adaptive[:max=SIZE], persite:FILE, "
		    "plugin:PATH.so[:ARGS])" },
	{ "persite", "bad policy 'persite': persite needs a file: persite:FILE (lines 'ORDER "
		     "SITE', docs/sites.md)" },
	{ "persite:/dev/null", "bad policy 'persite:/dev/null': '/dev/null' is not a regular "
			       "file" },
	{ "persite:/nonexistent/sites", "bad policy 'persite:/nonexistent/sites': cannot read "
					"'/nonexistent/sites': No such file or directory" },
	{ "order0:1", "bad policy 'order0:1': order0 takes no argument" },
	{ "thp:2M", "bad policy 'thp:2M': thp takes no argument" },
	{ "mthp:48K", "bad policy 'mthp:48K': size '48K' is not a power of two" },
	{ "mthp:2M", "bad policy 'mthp:2M': size '2M' out of range 8K..1M" },
	{ "mthp:4K", "bad policy 'mthp:4K': size '4K' out of range 8K..1M" },
	{ "mthp:16K,,32K", "bad policy 'mthp:16K,,32K': empty size in '16K,,32K'" },
	{ "mthp:16K,16K", "bad policy 'mthp:16K,16K': size '16K' given twice" },
	{ "mthp:16Q", "bad policy 'mthp:16Q': bad size '16Q'" },
	{ "mthp", "bad policy 'mthp': mthp needs sizes: mthp:16K,32K,64K (8K..1M)" },
	{ "faultaround:3", "bad policy 'faultaround:3': window must be a power of two 2..512 pages" },
	{ "faultaround:1", "bad policy 'faultaround:1': window must be a power of two 2..512 pages" },
	{ "faultaround:1024",
	  "bad policy 'faultaround:1024': window must be a power of two 2..512 pages" },
	{ "adaptive:max=2M", "bad policy 'adaptive:max=2M': max '2M' out of range 8K..1M" },
	{ "adaptive:min=8K", "bad policy 'adaptive:min=8K': unknown option 'min=8K' "
			     "(adaptive:max=SIZE)" },
	/* one rule: no whitespace or control character anywhere, echoed escaped on one line */
	{ " mcpage:2", "bad policy ' mcpage:2': whitespace or control character at byte 0 "
		       "(a spec has none)" },
	{ "mcpage:\t2", "bad policy 'mcpage:\\t2': whitespace or control character at byte 7 "
			"(a spec has none)" },
	{ "mcpage: 2", "bad policy 'mcpage: 2': whitespace or control character at byte 7 "
		       "(a spec has none)" },
	{ "faultaround:\n2", "bad policy 'faultaround:\\n2': whitespace or control character "
			     "at byte 12 (a spec has none)" },
	{ "thp\n", "bad policy 'thp\\n': whitespace or control character at byte 3 "
		   "(a spec has none)" },
	{ "mthp:16K, 32K", "bad policy 'mthp:16K, 32K': whitespace or control character at "
			   "byte 9 (a spec has none)" },
	{ "order0\r", "bad policy 'order0\\r': whitespace or control character at byte 6 "
		      "(a spec has none)" },
	{ "adaptive:max=\x7f", "bad policy 'adaptive:max=\\x7f': whitespace or control "
			       "character at byte 13 (a spec has none)" },
	{ "no\x1b[2Jpe", "bad policy 'no\\x1b[2Jpe': whitespace or control character at "
			 "byte 2 (a spec has none)" },
};

/* The guest knob of each policy (docs/guest.md), NULL for simulation-only ones. */
static const struct {
	const char *spec;
	const char *knob;
} knobs[] = {
	{ "order0", "none" },
	{ "mcpage:2", "2" },
	{ "mcpage:8", "8" },
	{ "mthp:16K,32K,64K", "2,3,4" },
	{ "mthp:8K,1M", "1,8" },
	{ "thp", "thp" },
	{ "faultaround:16", NULL },
	{ "adaptive", NULL },
	{ "adaptive:max=1M", NULL },
	{ "thp+khugepaged", NULL },
	{ "mcpage:2+limit:1G", NULL },
	{ "mthp:16K,64K+collapse", NULL },
};

static const struct {
	const char *name;
	int ok;
	enum rp_frag_kind kind;
} frags[] = {
	{ "none", 1, RP_FRAG_NONE },
	{ "buddyinfo", 1, RP_FRAG_BUDDYINFO },
	{ "buddy", 0, RP_FRAG_NONE },
};

int main(void)
{
	size_t i;
	uint64_t fb[RP_MAX_ORDER + 1];

	plan((int)(sizeof(valid) / sizeof(valid[0]) * 2 + sizeof(invalid) / sizeof(invalid[0]) +
		   sizeof(frags) / sizeof(frags[0]) + sizeof(knobs) / sizeof(knobs[0]) + 12 +
		   sizeof(bad_buddyinfo) / sizeof(bad_buddyinfo[0]) +
		   sizeof(mech_valid) / sizeof(mech_valid[0]) * 2));
	for (i = 0; i < sizeof(mech_valid) / sizeof(mech_valid[0]); i++) {
		struct rp_policy p, q;
		int r = rp_policy_parse(mech_valid[i].spec, &p);

		if (r)
			diag("%s", error_text());
		error_clear();
		ok(!r && !strcmp(p.spec, mech_valid[i].canon) &&
			   p.mech.khugepaged == mech_valid[i].khugepaged &&
			   p.mech.shrinker == mech_valid[i].shrinker &&
			   p.mech.max_ptes_none == mech_valid[i].max_ptes_none &&
			   p.mech.pages_to_scan == mech_valid[i].pages &&
			   p.mech.scan_ms == mech_valid[i].scan_ms &&
			   p.mech.limit_pages == mech_valid[i].limit_pages &&
			   p.mech.collapse_orders == mech_valid[i].orders,
		   "valid '%s' -> '%s'", mech_valid[i].spec, mech_valid[i].canon);
		if (!r && strcmp(p.spec, mech_valid[i].canon))
			diag("  got '%s'", p.spec);
		r = rp_policy_parse(p.spec, &q);
		error_clear();
		ok(!r && !strcmp(q.spec, p.spec) && !memcmp(&q.mech, &p.mech, sizeof(p.mech)),
		   "canonical '%s' is a fixed point", p.spec);
	}
	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		struct rp_policy p, q;
		int r = rp_policy_parse(valid[i].spec, &p);

		if (r)
			diag("%s", error_text());
		error_clear();
		ok(!r && !strcmp(p.spec, valid[i].canon) && p.order == valid[i].order &&
			   p.orders == valid[i].orders && p.window == valid[i].window &&
			   p.max_order == valid[i].max_order,
		   "valid '%s' -> '%s'", valid[i].spec, valid[i].canon);
		/* the canonical form parses to itself */
		r = rp_policy_parse(p.spec, &q);
		error_clear();
		ok(!r && !strcmp(q.spec, p.spec), "canonical '%s' is a fixed point", p.spec);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct rp_policy p;
		int r = rp_policy_parse(invalid[i].spec, &p);
		const char *got = error_text();

		if (!ok(r == -1 && !strcmp(got, invalid[i].err), "invalid '%s'",
			show(invalid[i].spec)))
			diag("  got '%s'", show(got));
		error_clear();
	}
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		struct rp_policy p;
		char buf[64] = "";
		int r = rp_policy_parse(knobs[i].spec, &p), in = !r && rp_policy_in_guest(&p);

		r = r ? r : rp_policy_guest_knob(&p, buf, sizeof(buf));
		if (!ok(knobs[i].knob ? in && !r && !strcmp(buf, knobs[i].knob) : !in && r == -1,
			"guest knob of '%s': %s", knobs[i].spec, knobs[i].knob ? knobs[i].knob :
			"simulation only"))
			diag("  in_guest %d, knob '%s', error '%s'", in, buf, error_text());
		error_clear();
	}
	{
		/* persite:FILE needs a file: valid, canonical, simulation only; a duplicate site */
		char path[] = "/tmp/ft-replay-spec.XXXXXX", spec[64], want[160], buf[64];
		static const char good[] = "# comment\n\n4 main\n0 [no call]\n2 *\n";
		static const char dup[] = "4 main\n3 main\n";
		struct rp_policy p, q;
		int fd = mkstemp(path), r;

		if (fd < 0 || write(fd, good, strlen(good)) != (ssize_t)strlen(good))
			diag("cannot write %s", path);	/* the check below fails */
		close(fd);
		snprintf(spec, sizeof(spec), "persite:%s", path);
		r = rp_policy_parse(spec, &p);
		ok(!r && !strcmp(p.spec, spec) && !rp_policy_parse(p.spec, &q) &&
		   !strcmp(q.spec, spec) && !rp_policy_in_guest(&p) &&
		   rp_policy_guest_knob(&p, buf, sizeof(buf)) == -1,
		   "valid '%s', a fixed point, simulation only", spec);
		error_clear();
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0 || write(fd, dup, strlen(dup)) != (ssize_t)strlen(dup))
			diag("cannot write %s", path);	/* the check below fails */
		close(fd);
		snprintf(want, sizeof(want), "bad policy '%s': %s line 2: site 'main' given twice",
			 spec, path);
		r = rp_policy_parse(spec, &p);
		if (!ok(r == -1 && !strcmp(error_text(), want), "a site given twice: line named"))
			diag("  got '%s'", error_text());
		error_clear();
		unlink(path);
	}
	{
		/* the maximum folio order: accepted by every policy that takes an order or size */
		struct rp_policy p;

		ok(!rp_policy_parse("mcpage:" RP_STR(RP_MAX_FOLIO_ORDER), &p) &&
			   !rp_policy_parse("mthp:" RP_MAX_FOLIO_SIZE, &p) &&
			   !rp_policy_parse("adaptive:max=" RP_MAX_FOLIO_SIZE, &p),
		   "RP_MAX_FOLIO_ORDER %u (" RP_MAX_FOLIO_SIZE ") is accepted", RP_MAX_FOLIO_ORDER);
		error_clear();
		char sz[16];

		rp_format_size(RP_MAX_FOLIO_ORDER, sz, sizeof(sz));
		ok(!strcmp(sz, RP_MAX_FOLIO_SIZE), "RP_MAX_FOLIO_SIZE is the size of order %u",
		   RP_MAX_FOLIO_ORDER);
	}
	{
		/* any error text is one line: control characters reach it escaped */
		fail("path 'a\nb\tc\x01'");
		ok(!strcmp(error_text(), "path 'a\\nb\\tc\\x01'"), "fail(): control characters escaped");
		error_clear();
	}
	for (i = 0; i < sizeof(frags) / sizeof(frags[0]); i++) {
		enum rp_frag_kind k = RP_FRAG_NONE;
		int r = rp_frag_parse(frags[i].name, &k);

		ok((r == 0) == frags[i].ok && (!frags[i].ok || k == frags[i].kind), "frag '%s'",
		   frags[i].name);
		error_clear();
	}
	ok(!rp_buddyinfo_parse("Node 0, zone      DMA      1      1      1      0      2      1"
			       "      1      0      1      1      3\n"
			       "Node 0, zone    DMA32    100     50     20     10      5      4"
			       "      3      2      1      0      7\n",
			       0, fb) && fb[0] == 100 && fb[10] == 7 && fb[4] == 5,
	   "buddyinfo: zones summed, DMA skipped");
	ok(rp_buddyinfo_parse("Node 0, zone DMA32 1 2 3\n", 0, fb) == -1, "buddyinfo: short line");
	error_clear();
	ok(rp_buddyinfo_parse("garbage\n", 0, fb) == -1, "buddyinfo: not buddyinfo");
	error_clear();
	/* exactly the recorded memory is plausible (all of it free), one page more is not */
	ok(!rp_buddyinfo_parse(BI_NORMAL "0 0 0 0 0 0 0 0 0 0 256\n", 262144, fb) && fb[10] == 256,
	   "buddyinfo: 1 GiB free of 1 GiB accepted");
	error_clear();
	for (i = 0; i < sizeof(bad_buddyinfo) / sizeof(bad_buddyinfo[0]); i++) {
		int r = rp_buddyinfo_parse(bad_buddyinfo[i].text, bad_buddyinfo[i].max_pages, fb);
		const char *got = error_text(), *want = bad_buddyinfo[i].err;

		if (!ok(r == -1 && !strncmp(got, want, strlen(want)), "buddyinfo refused: %s", want))
			diag("  got '%s'", got);
		error_clear();
	}
	/* a seed that did not come through the parser is checked where it is used */
	memset(fb, 0, sizeof(fb));
	fb[10] = 9007199254740992ULL;
	{
		struct rp_policy p;
		struct rp_trace t = { .free_blocks = { 0 } };

		memcpy(t.free_blocks, fb, sizeof(fb));
		rp_policy_parse("mcpage:2", &p);
		ok(!rp_sim_new(&p, RP_FRAG_BUDDYINFO, &t) &&
			   !strncmp(error_text(), "implausible buddyinfo: order 10", 31),
		   "rp_sim_new refuses an overflowing seed");
		error_clear();
		fb[10] = 0;
		fb[0] = 1ULL << 33;
		memcpy(t.free_blocks, fb, sizeof(fb));
		ok(!rp_sim_new(&p, RP_FRAG_BUDDYINFO, &t) &&
			   !strncmp(error_text(), "implausible buddyinfo: order 0", 30),
		   "rp_sim_new refuses a seed above RP_BUDDY_MAX_PAGES");
		error_clear();
	}
	ok(rp_metric_lookup("alloc_order_4") == RP_M_ALLOC_0 + 4 &&
		   !strcmp(rp_metric_name(RP_M_FB_0 + FTDB_FB_VMA_EDGE), "fallback_vma_edge"),
	   "metric names");
	return done_testing();
}
