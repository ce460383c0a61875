// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the policy table and the spec parser shared by the simulator and the guest
 * knob: "name" or "name:args", one row per policy. Adding a policy is one file and one row
 * (docs/architecture.md, "Add a policy"). Everything that lists or runs policies (usage,
 * errors, --list-policies, completion, the guest knob) asks this table and the ops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/mech.h"
#include "replay/policy.h"

/*
 * The policy table: one row per policy, in the order usage and --list-policies show them
 * (and docs/policies.md's table). Row X(name) is the ops rp_policy_<name> of
 * replay/policy-<name>.c. Every row ends with a backslash: a new row is one added line.
 */
#define POLICY_TABLE(X)	\
	X(order0)	\
	X(mcpage)	\
	X(mthp)		\
	X(faultaround)	\
	X(thp)		\
	X(adaptive)	\
	X(persite)	\
	X(plugin)	\
	/* end of the policy table */

#define POLICY_DECLARE(name) extern const struct rp_policy_ops rp_policy_##name;
#define POLICY_ROW(name) &rp_policy_##name,
POLICY_TABLE(POLICY_DECLARE)

static const struct rp_policy_ops *const policies[] = { POLICY_TABLE(POLICY_ROW) NULL };

#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]) - 1)

const char *const *rp_policy_templates(void)
{
	static char buf[NR_POLICIES][64];
	static const char *templates[NR_POLICIES + 1];
	unsigned int i;

	for (i = 0; i < NR_POLICIES; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%.*s",
			 (int)strcspn(policies[i]->grammar, " "), policies[i]->grammar);
		templates[i] = buf[i];
	}
	templates[i] = NULL;
	return templates;
}

/* "order0, mcpage:N, ..." into buf, for the "known:" part of an error */
static void known_list(char *buf, size_t len)
{
	const char *const *t;
	size_t n = 0;

	buf[0] = '\0';
	for (t = rp_policy_templates(); *t && n < len; t++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", *t);
}

int rp_policy_in_guest(const struct rp_policy *p)
{
	char buf[64];

	return !rp_mech_any(&p->mech) && p->ops->knob && p->ops->knob(p, buf, sizeof(buf)) == 0;
}

int rp_policy_guest_knob(const struct rp_policy *p, char *buf, size_t len)
{
	if (rp_mech_any(&p->mech))	/* 6.1 has no memory cgroup and no THP shrinker */
		return fail("policy '%s' is simulation-only: its +mechanisms run only in the 6.12 "
			    "guest (--kernel 6.12)", p->spec);
	if (!p->ops->knob || p->ops->knob(p, buf, len))
		return fail("policy '%s' is simulation-only: the 6.1 guest knob cannot express it",
			     p->spec);
	return 0;
}

/* The policies a 6.12 guest runs: the table's templates of those with a knob hook. */
static void upstream_list(char *buf, size_t len)
{
	const struct rp_policy_ops *const *t;
	size_t n = 0;

	buf[0] = '\0';
	for (t = policies; *t && n < len; t++)
		if ((*t)->knob)	/* the template: the grammar up to its ranges */
			n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? ", " : "",
					      (int)strcspn((*t)->grammar, " "), (*t)->grammar);
}

int rp_policy_kernel_knob(const struct rp_policy *p, const char *kernel, char *buf,
			  size_t len)
{
	char can[512];
	const char *o;

	if (!kernel || !strcmp(kernel, "6.1"))
		return rp_policy_guest_knob(p, buf, len);
	if (strcmp(kernel, "6.12"))
		return fail("unknown guest kernel '%s' (6.1 or 6.12)", kernel);
	upstream_list(can, sizeof(can));
	/* its +mechanisms are the guest's knobs and cgroup: rp_mech_guest_knobs() */
	if (!p->ops->knob || p->ops->knob(p, buf, len))
		return fail("policy '%s' cannot run on a 6.12 guest (upstream mTHP): it runs %s "
			    "(folios of 16K and up)", p->spec, can);
	/* orders "2,4", "none", "thp": order 1 (8K) has no anonymous mTHP upstream */
	for (o = buf; *o; o = strchr(o, ',') ? strchr(o, ',') + 1 : o + strlen(o))
		if (o[0] == '1' && (o[1] == ',' || !o[1]))
			return fail("policy '%s' cannot run on a 6.12 guest (upstream mTHP has no "
				    "8K anonymous folio): it runs %s (folios of 16K and up)",
				    p->spec, can);
	return 0;
}

int rp_policy_guard(const struct rp_policy *p, void (*fn)(void *arg), void *arg)
{
	if (p->ops->guard)
		return p->ops->guard(p, fn, arg);
	if (fn)
		fn(arg);
	return 0;
}

int rp_parse_size(const char *s, unsigned int *order)
{
	unsigned long long v, mult = 1;
	char *end;
	unsigned int o;

	if (!s || !*s)
		return fail("empty size");
	if (*s < '0' || *s > '9')
		return fail("bad size '%s'", s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return fail("bad size '%s'", s);
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return fail("bad size '%s'", s);
	if (v == 0 || v > (1ULL << 40) / mult)
		return fail("bad size '%s'", s);
	v *= mult;
	if (v & (v - 1))
		return fail("size '%s' is not a power of two", s);
	if (v < RP_PAGE_SIZE)
		return fail("size '%s' is smaller than a page", s);
	for (o = 0; (RP_PAGE_SIZE << o) < v; o++)
		;
	*order = o;
	return 0;
}

void rp_format_size(unsigned int order, char *buf, size_t len)
{
	unsigned long long b = RP_PAGE_SIZE << order;

	if (b >= (1ULL << 20))
		snprintf(buf, len, "%lluM", b >> 20);
	else
		snprintf(buf, len, "%lluK", b >> 10);
}

/*
 * The orders p enables in the kernel, bit N = order N, from its guest knob ("2,3,4",
 * "thp", "none"): the sizes whose per-size "enabled" khugepaged collapses to (+collapse).
 * 0 for a policy that is simulation only.
 */
static unsigned int enabled_orders(const struct rp_policy *p)
{
	unsigned int orders = 0;
	char buf[64], *s, *end;

	if (!p->ops->knob || p->ops->knob(p, buf, sizeof(buf)))
		return 0;
	if (!strcmp(buf, "thp"))
		return 1U << RP_PMD_ORDER;
	for (s = buf; *s >= '0' && *s <= '9'; s = *end == ',' ? end + 1 : end) {
		unsigned long o = strtoul(s, &end, 10);

		if (o <= RP_PMD_ORDER)
			orders |= 1U << o;
	}
	return orders;
}

/* The fault-time policy spec[0..len) (the part before any "+mechanism"): into p. */
static int parse_base(const char *spec, size_t len, struct rp_policy *p);

/* The detail of the pending error, the spec in front: "bad policy 'SPEC': detail". */
static int fail_spec(const char *spec, struct rp_policy *p)
{
	char detail[256];

	snprintf(detail, sizeof(detail), "%s", error_text());
	error_clear();
	memset(p, 0, sizeof(*p));
	return fail("bad policy '%s': %s", spec, detail);
}

int rp_policy_parse(const char *spec, struct rp_policy *p)
{
	const char *c;
	size_t blen;

	memset(p, 0, sizeof(*p));
	if (!spec || !*spec)
		return fail("bad policy '': empty spec");
	/* one rule for every part of every spec: no blank, no control character anywhere */
	for (c = spec; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return fail("bad policy '%s': whitespace or control character at byte %zu "
				     "(a spec has none)", spec, (size_t)(c - spec));
	blen = rp_mech_split(spec);
	if (!blen)
		return fail("bad policy '%s': no policy before '+'", spec);
	if (parse_base(spec, blen, p))
		return -1;
	if (spec[blen] && (rp_mech_parse(spec + blen, &p->mech) ||
			   rp_mech_collapse(&p->mech, enabled_orders(p)) ||
			   rp_mech_format(&p->mech, p->spec, sizeof(p->spec))))
		return fail_spec(spec, p);
	return 0;
}

static int parse_base(const char *spec, size_t len, struct rp_policy *p)
{
	const struct rp_policy_ops *const *ops;
	const char *colon;
	char *base = xmalloc(len + 1);	/* the policy's own parser sees only its part */
	size_t nlen;
	int r;

	memcpy(base, spec, len);
	base[len] = '\0';

	colon = strchr(base, ':');
	nlen = colon ? (size_t)(colon - base) : strlen(base);
	for (ops = policies; *ops; ops++)
		if (strlen((*ops)->name) == nlen && !strncmp((*ops)->name, spec, nlen))
			break;
	if (!*ops) {
		char known[256];

		known_list(known, sizeof(known));
		r = fail("bad policy '%s': unknown policy '%.*s' (known: %s)", spec, (int)nlen,
			 base, known);
	} else if (p->ops = *ops, colon && !colon[1]) {
		r = fail("bad policy '%s': empty argument after ':' (%s)", spec, (*ops)->grammar);
	} else {
		/* keep the detail, then add the spec in front, as one line */
		r = (*ops)->parse(p, colon ? colon + 1 : NULL) ? fail_spec(spec, p) : 0;
	}
	free(base);
	return r;
}
