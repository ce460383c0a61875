// SPDX-License-Identifier: GPL-2.0
/*
 * mech.c - the grammar of the "+mechanism" suffixes of a policy spec (mech.h,
 * docs/policies.md "Mechanisms"). Only parsing and the canonical form: what they do is
 * replay/sim-mech.c's (and the oracle's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/mech.h"

static const char *const names[] = { "khugepaged", "collapse", "shrinker", "limit", NULL };

/* Length of the mechanism name at s ("+" already skipped), 0 if none is there. */
static size_t name_at(const char *s)
{
	const char *const *n;

	for (n = names; *n; n++) {
		size_t l = strlen(*n);

		if (!strncmp(s, *n, l) && (s[l] == ':' || s[l] == '+' || !s[l]))
			return l;
	}
	return 0;
}

size_t rp_mech_split(const char *spec)
{
	const char *p, *first = strchr(spec, '+');

	for (p = first; p; p = strchr(p + 1, '+'))
		if (name_at(p + 1))
			return (size_t)(p - spec);
	if (first && !memchr(spec, ':', (size_t)(first - spec)))
		return (size_t)(first - spec);
	return strlen(spec);
}

/* A decimal number in [lo, hi] from s[0..n). Return: 0, or fail() naming what. */
static int number(const char *what, const char *s, size_t n, unsigned long lo,
		  unsigned long hi, uint32_t *out)
{
	char buf[24], *end;
	unsigned long v;

	if (!n || n >= sizeof(buf) || *s < '0' || *s > '9')
		return fail("%s: bad number '%.*s'", what, (int)n, s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end)
		return fail("%s: bad number '%s'", what, buf);
	if (v < lo || v > hi)
		return fail("%s=%s is out of range (%lu..%lu)", what, buf, lo, hi);
	*out = (uint32_t)v;
	return 0;
}

/*
 * "key=N,key=N" (args[0..n)) of a mechanism: each key at most once, from keys[]; values
 * into out[] within [lo[], hi[]], seen[] set for those given.
 */
static int options(const char *mech, const char *args, size_t n, const char *const *keys,
		   const unsigned long *lo, const unsigned long *hi, uint32_t *out, int *seen)
{
	const char *p = args, *end = args + n;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));
		unsigned int k;

		if (!eq)
			return fail("%s: option '%.*s' has no '=N'", mech, (int)(stop - p), p);
		for (k = 0; keys[k]; k++)
			if (strlen(keys[k]) == (size_t)(eq - p) && !strncmp(keys[k], p, (size_t)(eq - p)))
				break;
		if (!keys[k])
			return fail("%s: unknown option '%.*s'", mech, (int)(eq - p), p);
		if (seen[k])
			return fail("%s: option %s given twice", mech, keys[k]);
		seen[k] = 1;
		if (number(keys[k], eq + 1, (size_t)(stop - eq - 1), lo[k], hi[k], &out[k]))
			return -1;
		if (!comma)
			break;
		p = comma + 1;
		if (p == end)
			return fail("%s: empty option after ','", mech);
	}
	return 0;
}

/* "512M", "1G", "65536" (bytes; K, M, G binary, an optional B): whole 4K pages, >= 1. */
static int limit_size(const char *s, size_t n, uint64_t *pages)
{
	unsigned long long v, mult = 1;
	char buf[32], *end;

	if (!n || n >= sizeof(buf) || *s < '0' || *s > '9')
		return fail("limit: bad size '%.*s'", (int)n, s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (*end == 'K' || *end == 'k')
		mult = 1ULL << 10, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1ULL << 20, end++;
	else if (*end == 'G' || *end == 'g')
		mult = 1ULL << 30, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (errno || *end || !v)
		return fail("limit: bad size '%s'", buf);
	if (v > (1ULL << 40) / mult)
		return fail("limit: size '%s' is above 1T", buf);
	v *= mult;
	if (v % RP_PAGE_SIZE)
		return fail("limit: size '%s' is not a whole number of 4K pages", buf);
	*pages = v / RP_PAGE_SIZE;
	return 0;
}

int rp_mech_parse(const char *tail, struct rp_mech *m)
{
	static const char *const kh_keys[] = { "max_ptes_none", "pages", "scan_ms", NULL };
	static const unsigned long kh_lo[] = { 0, 1, 1 };
	/* pages_to_scan up to 64G a wake; scan_sleep_millisecs up to a day */
	static const unsigned long kh_hi[] = { 511, 1UL << 24, 86400000 };
	static const char *const sh_keys[] = { "max_ptes_none", NULL };
	int kh_none = 0, sh_none = 0;
	uint32_t kh_none_v = 0, sh_none_v = 0;
	const char *p = tail;

	memset(m, 0, sizeof(*m));
	m->max_ptes_none = RP_MECH_MAX_PTES_NONE;
	m->pages_to_scan = RP_MECH_PAGES_TO_SCAN;
	m->scan_ms = RP_MECH_SCAN_MS;
	while (*p == '+') {
		const char *start = ++p, *end = strchr(p, '+'), *args;
		size_t l = name_at(start), n;

		if (!end)
			end = start + strlen(start);
		if (!l)
			return fail("unknown mechanism '%.*s' (known: %s)", (int)(end - start),
				    start, RP_MECH_GRAMMAR);
		args = start[l] == ':' ? start + l + 1 : NULL;
		n = args ? (size_t)(end - args) : 0;
		if (args && !n)
			return fail("%.*s: empty argument after ':'", (int)l, start);
		if (!strncmp(start, "khugepaged", l) || !strncmp(start, "collapse", l)) {
			const char *what = start[0] == 'k' ? "khugepaged" : "collapse";
			uint32_t v[3] = { 0 };
			int seen[3] = { 0 };

			if (m->khugepaged && m->mthp == (what[0] == 'c'))
				return fail("%s given twice", what);
			/* one khugepaged: +collapse is it, with the mTHP orders */
			if (m->khugepaged)
				return fail("khugepaged and collapse given together: +collapse is "
					    "khugepaged collapsing to the policy's sizes");
			m->khugepaged = 1;
			/* +collapse's orders are the policy's: rp_mech_collapse() */
			m->mthp = what[0] == 'c';
			m->collapse_orders = m->mthp ? 0 : 1U << RP_PMD_ORDER;
			if (args && options(what, args, n, kh_keys, kh_lo, kh_hi, v, seen))
				return -1;
			kh_none = seen[0], kh_none_v = v[0];
			if (seen[1])
				m->pages_to_scan = v[1];
			if (seen[2])
				m->scan_ms = v[2];
		} else if (!strncmp(start, "shrinker", l)) {
			int seen[1] = { 0 };

			if (m->shrinker)
				return fail("shrinker given twice");
			m->shrinker = 1;
			if (args && options("shrinker", args, n, sh_keys, kh_lo, kh_hi, &sh_none_v,
					    seen))
				return -1;
			sh_none = seen[0];
		} else {
			if (m->limit_pages)
				return fail("limit given twice");
			if (!args)
				return fail("limit needs a size: limit:SIZE (memory.max)");
			if (limit_size(args, n, &m->limit_pages))
				return -1;
		}
		p = end;
	}
	/* one kernel knob: khugepaged/max_ptes_none is also thp_underused()'s threshold */
	if (kh_none && sh_none && kh_none_v != sh_none_v)
		return fail("khugepaged max_ptes_none=%u and shrinker max_ptes_none=%u differ: the "
			    "kernel has one knob (khugepaged/max_ptes_none)", kh_none_v, sh_none_v);
	if (kh_none)
		m->max_ptes_none = (uint16_t)kh_none_v;
	if (sh_none)
		m->max_ptes_none = (uint16_t)sh_none_v;
	if (m->shrinker && !m->limit_pages)
		return fail("shrinker needs +limit:SIZE (the model's only memory pressure)");
	return 0;
}

int rp_mech_collapse(struct rp_mech *m, unsigned int orders)
{
	unsigned int none = m->max_ptes_none;

	if (!m->mthp)
		return 0;
	orders &= ((1U << (RP_PMD_ORDER + 1)) - 1) & ~((1U << RP_MIN_COLLAPSE_ORDER) - 1);
	if (!orders)
		return fail("collapse: the policy enables no THP size to collapse to (the sizes "
			    "of mthp, mcpage:N or thp, 16K and up)");
	m->collapse_orders = (uint16_t)orders;
	/* the PMD size alone is 6.12's khugepaged: its canonical name is +khugepaged */
	m->mthp = orders != 1U << RP_PMD_ORDER;
	/*
	 * collapse_max_ptes_none() of the series: an mTHP order honours 0 and 511 only (other
	 * values warn and act as 0); refused, so that a run name never holds a value the
	 * kernel does not apply to every order it names
	 */
	if (m->mthp && none && none != RP_MECH_MAX_PTES_NONE)
		return fail("collapse: max_ptes_none=%u: mTHP collapse takes 0 or %u only (the "
			    "kernel would use 0 for the mTHP sizes)", none, RP_MECH_MAX_PTES_NONE);
	return 0;
}

/* The limit as the largest binary unit dividing it: "512M", "1G", "1536K". */
static void format_limit(uint64_t pages, char *buf, size_t len)
{
	uint64_t b = pages * RP_PAGE_SIZE;

	if (!(b % (1ULL << 30)))
		snprintf(buf, len, "%lluG", (unsigned long long)(b >> 30));
	else if (!(b % (1ULL << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
}

int rp_mech_format(const struct rp_mech *m, char *buf, size_t len)
{
	size_t n = strlen(buf);
	int none = m->max_ptes_none != RP_MECH_MAX_PTES_NONE;
	char opt[96] = "", lim[32];

	if (m->khugepaged) {
		const char *name = m->mthp ? "collapse" : "khugepaged";

		/* the knob is printed once: on the shrinker when there is one */
		if (none && !m->shrinker)
			snprintf(opt, sizeof(opt), ",max_ptes_none=%u", m->max_ptes_none);
		if (m->pages_to_scan != RP_MECH_PAGES_TO_SCAN)
			snprintf(opt + strlen(opt), sizeof(opt) - strlen(opt), ",pages=%u",
				 m->pages_to_scan);
		if (m->scan_ms != RP_MECH_SCAN_MS)
			snprintf(opt + strlen(opt), sizeof(opt) - strlen(opt), ",scan_ms=%u",
				 m->scan_ms);
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "+%s%s%s", name,
				      *opt ? ":" : "", *opt ? opt + 1 : "");
	}
	if (m->shrinker && n < len) {
		if (none)
			n += (size_t)snprintf(buf + n, len - n, "+shrinker:max_ptes_none=%u",
					      m->max_ptes_none);
		else
			n += (size_t)snprintf(buf + n, len - n, "+shrinker");
	}
	if (m->limit_pages && n < len) {
		format_limit(m->limit_pages, lim, sizeof(lim));
		n += (size_t)snprintf(buf + n, len - n, "+limit:%s", lim);
	}
	if (n >= len)
		return fail("canonical spec longer than %zu bytes", len - 1);
	return 0;
}

int rp_mech_guest_knobs(const struct rp_mech *m, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len,
		     "khugepaged/max_ptes_none %u\n"
		     "khugepaged/pages_to_scan %u\n"
		     "khugepaged/scan_sleep_millisecs %u\n"
		     "shrink_underused %d\n",
		     m->max_ptes_none, m->pages_to_scan, m->scan_ms, m->shrinker ? 1 : 0);
	if (n >= 0 && (size_t)n < len && m->limit_pages)
		n += snprintf(buf + n, len - (size_t)n, "memory.max %llu\n",
			      (unsigned long long)(m->limit_pages * RP_PAGE_SIZE));
	if (n < 0 || (size_t)n >= len)
		return fail("the guest knobs of the mechanisms do not fit %zu bytes", len);
	return 0;
}
