/* SPDX-License-Identifier: MIT */
/*
 * The evidence of many stalled tasks, grouped (psa_watchdog_print past PSA_EVIDENCE_FULL, not
 * --verbose): each root's own evidence, then how many tasks wait on it - directly, and through
 * how many hops - with the nearest few named; the tasks that lead to no root, a few of them.
 * One screen at any scale: the whole list is in the JSON and in --verbose.
 *
 * Design choice: the hops are found breadth-first over ranks (a rank's level is the least of
 * its stalled tasks'), so a 4096-rank ring costs one pass per hop over the chained tasks.
 */
#include <stdlib.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

#define NEAREST_SHOWN 5
#define UNEXPLAINED_SHOWN 3

/* The hop of each task chained to root @r (1: waits on the root's rank directly; 0: not
 * reached through waiting edges), into @hop; the most hops. */
static unsigned hops(const struct psa_watchdog *w, size_t r, unsigned *hop, unsigned *rank_hop,
		     uint32_t ranks)
{
	const struct psa_stall *root = &w->stalls[r];
	unsigned level = 0;
	bool grew = true;

	memset(rank_hop, 0, ranks * sizeof(*rank_hop));
	if (root->rank < ranks)
		rank_hop[root->rank] = UINT32_MAX; /* level 0, kept apart from "not reached" */
	for (size_t i = 0; i < w->n; i++)
		hop[i] = 0;
	while (grew) {
		grew = false;
		for (size_t i = 0; i < w->n; i++) {
			const struct psa_stall *s = &w->stalls[i];

			if (s->root != (int)r || hop[i])
				continue;
			for (uint32_t k = 0; k < s->waiting_on_n && !hop[i]; k++) {
				uint32_t q = s->waiting_on[k];
				unsigned at = q < ranks ? rank_hop[q] : 0;

				if ((level == 0 && at == UINT32_MAX) || (level && at == level))
					hop[i] = level + 1;
			}
			if (hop[i]) {
				grew = true;
				if (s->rank < ranks && !rank_hop[s->rank])
					rank_hop[s->rank] = level + 1;
			}
		}
		if (grew)
			level++;
	}
	return level;
}

static void print_blocked(const struct psa_watchdog *w, size_t r, const unsigned *hop,
			  unsigned most, bool many, FILE *out)
{
	char label[96 + PSA_HOST_MAX];
	size_t all = 0, direct = 0, shown = 0;

	for (size_t i = 0; i < w->n; i++) {
		all += w->stalls[i].root == (int)r;
		direct += w->stalls[i].root == (int)r && hop[i] == 1;
	}
	if (!all)
		return;
	fprintf(out, "      blocks %zu task%s: %zu wait%s on it directly", all, all == 1 ? "" : "s",
		direct, direct == 1 ? "s" : "");
	if (most > 1)
		fprintf(out, ", the farthest through %u hops", most);
	fprintf(out, "\n      nearest:");
	for (unsigned level = 1; level <= most && shown < NEAREST_SHOWN; level++)
		for (size_t i = 0; i < w->n && shown < NEAREST_SHOWN; i++) {
			if (w->stalls[i].root != (int)r || hop[i] != level)
				continue;
			psa__stall_label(&w->stalls[i], many, label, sizeof(label));
			fprintf(out, "%s %s", shown++ ? "," : "", label);
		}
	if (all > shown)
		fprintf(out, "%s and %zu more", shown ? "," : "", all - shown);
	fputc('\n', out);
}

void psa__print_evidence_grouped(const struct psa_watchdog *w, bool many, FILE *out)
{
	uint32_t ranks = 0;
	size_t unexplained = 0, shown = 0;
	unsigned *hop, *rank_hop;

	for (size_t i = 0; i < w->n; i++)
		if (w->stalls[i].rank != PSA_RANK_NONE && w->stalls[i].rank >= ranks)
			ranks = w->stalls[i].rank + 1;
	hop = calloc(w->n, sizeof(*hop));
	rank_hop = calloc(ranks ? ranks : 1, sizeof(*rank_hop));
	for (size_t r = 0; r < w->n; r++) {
		if (!w->stalls[r].root_cause)
			continue;
		psa__print_evidence(&w->stalls[r], w, many, out);
		if (hop && rank_hop)
			print_blocked(w, r, hop, hops(w, r, hop, rank_hop, ranks), many, out);
	}
	for (size_t i = 0; i < w->n; i++) {
		const struct psa_stall *s = &w->stalls[i];

		if (s->root_cause || s->root >= 0)
			continue;
		if (shown < UNEXPLAINED_SHOWN) {
			psa__print_evidence(s, w, many, out);
			shown++;
		}
		unexplained++;
	}
	if (unexplained > shown)
		fprintf(out, "  ... and %zu more stalled task%s that lead to no root cause\n",
			unexplained - shown, unexplained - shown == 1 ? "" : "s");
	fprintf(out, "  (%zu stalled tasks in all: --verbose prints the evidence of each, --json "
		     "holds every one)\n", w->n);
	free(hop);
	free(rank_hop);
}
