/* SPDX-License-Identifier: MIT */
/*
 * The slow links named (psa_report.h: psa_report_slow_links): each pair of hosts with a slow
 * link once, and the slow-link fault its hosts recorded, if any.
 *
 * Design choice: named from the clock's links (the time in flight, psa_clock.h), not from the
 * stragglers: in a collective the ranks on both ends of a slow link arrive late, and the ranks
 * elsewhere early, so the ranks' lateness points at every rank but the cause.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_report.h>

/* The first slow-link fault @host recorded (its exec then, and its rate): false if none. */
static bool fault_on(const struct psa_model *m, const char *host, uint64_t *exec_id,
		     uint32_t *kbit)
{
	size_t n;
	const struct psa_device_fault *f = psa_model_device_faults(m, &n);
	bool found = false;

	for (size_t i = 0; i < n; i++) {
		if (f[i].kind != PSA_FAULT_SLOW_LINK || !f[i].proc || strcmp(f[i].proc->host, host))
			continue;
		if (!found || f[i].exec_id < *exec_id) {
			*exec_id = f[i].exec_id;
			*kbit = (uint32_t)f[i].arg;
		}
		found = true;
	}
	return found;
}

int psa_report_slow_links(const struct psa_report *r, struct psa_slow_link **out, size_t *n)
{
	struct psa_clock_link *l = NULL;
	size_t ln = 0;

	*n = 0;
	*out = NULL;
	if (!r->clock)
		return 0;
	if (psa_clock_links(r->clock, &l, &ln))
		return -ENOMEM;
	*out = calloc(ln ? ln : 1, sizeof(**out));
	if (!*out) {
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ln; i++) {
		size_t back = psa_clock_link_back(l, ln, i);
		struct psa_slow_link *s;
		uint64_t ea = 0, eb = 0;
		uint32_t ka = 0, kb = 0;

		/* a pair once: from its first slow way in the links' order (by name) */
		if (!psa_clock_link_slow(l, ln, i) ||
		    (back < ln && back < i && psa_clock_link_slow(l, ln, back)))
			continue;
		s = &(*out)[(*n)++];
		snprintf(s->a, sizeof(s->a), "%s", l[i].from);
		snprintf(s->b, sizeof(s->b), "%s", l[i].to);
		s->transit_ns = l[i].transit_median_ns;
		s->others_ns = psa_clock_link_others_ns(l, ln, i);
		if (r->m && fault_on(r->m, s->a, &ea, &ka) && fault_on(r->m, s->b, &eb, &kb)) {
			s->injected = true;
			s->exec_id = ea < eb ? ea : eb;
			s->kbit = ka;
		}
	}
	free(l);
	return 0;
}

void psa_report_slow_links_print(const struct psa_report *r, FILE *out)
{
	struct psa_slow_link *s;
	size_t n;

	if (psa_report_slow_links(r, &s, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "slow link: %s <-> %s: its messages' median time in flight %.3f ms, the "
			"other links' %.3f ms; the ranks on %s and %s wait on the link, not "
			"on a rank", s[i].a, s[i].b, s[i].transit_ns / 1e6, s[i].others_ns / 1e6,
			s[i].a, s[i].b);
		if (s[i].injected)
			fprintf(out, " (an injected slow-link fault: %" PRIu32 " kbit/s from exec %"
				PRIu64 ")", s[i].kbit, s[i].exec_id);
		fputc('\n', out);
	}
	free(s);
}
