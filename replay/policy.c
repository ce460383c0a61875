// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the policy table and the spec parser shared by the simulator and the guest
 * knob: "name" or "name:args", one row per policy. Adding a policy is one file and one row.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/policy.h"

static const struct rp_policy_ops *const policies[] = {
	&rp_policy_order0,
	&rp_policy_mcpage,
	&rp_policy_mthp,
	&rp_policy_faultaround,
	&rp_policy_thp,
	&rp_policy_adaptive,
	NULL
};

const char *const *rp_policy_names(void)
{
	static const char *names[sizeof(policies) / sizeof(policies[0])];
	unsigned int i;

	for (i = 0; policies[i]; i++)
		names[i] = policies[i]->name;
	names[i] = NULL;
	return names;
}

int rp_parse_size(const char *s, unsigned int *order)
{
	unsigned long long v, mult = 1;
	char *end;
	unsigned int o;

	if (!s || !*s)
		return error("empty size");
	if (*s < '0' || *s > '9')
		return error("bad size '%s'", s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return error("bad size '%s'", s);
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return error("bad size '%s'", s);
	if (v == 0 || v > (1ULL << 40) / mult)
		return error("bad size '%s'", s);
	v *= mult;
	if (v & (v - 1))
		return error("size '%s' is not a power of two", s);
	if (v < RP_PAGE_SIZE)
		return error("size '%s' is smaller than a page", s);
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

int rp_policy_parse(const char *spec, struct rp_policy *p)
{
	const struct rp_policy_ops *const *ops;
	const char *colon;
	size_t nlen;

	memset(p, 0, sizeof(*p));
	if (!spec || !*spec)
		return error("bad policy '': empty spec");
	colon = strchr(spec, ':');
	nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	for (ops = policies; *ops; ops++)
		if (strlen((*ops)->name) == nlen && !strncmp((*ops)->name, spec, nlen))
			break;
	if (!*ops)
		return error("bad policy '%s': unknown policy '%.*s' (known: order0, mcpage:N, "
			     "mthp:SIZE,..., faultaround:N, thp, adaptive[:max=SIZE])",
			     spec, (int)nlen, spec);
	p->ops = *ops;
	if (colon && !colon[1])
		return error("bad policy '%s': empty argument after ':' (%s)", spec,
			     (*ops)->grammar);
	if ((*ops)->parse(p, colon ? colon + 1 : NULL)) {
		/* keep the detail, then add the spec in front, as one line */
		char detail[256];

		snprintf(detail, sizeof(detail), "%s", error_text());
		error_clear();
		memset(p, 0, sizeof(*p));
		return error("bad policy '%s': %s", spec, detail);
	}
	return 0;
}
