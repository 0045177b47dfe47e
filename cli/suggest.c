/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean" (suggest.h): the optimal string alignment distance and the choice of the one
 * candidate close enough to be what the user meant.
 *
 * Design choice: a suggestion is made only when it is likely right - at most 2 edits, and at
 * most a third of the candidate's length (so "rn" suggests "run" but "xy" suggests nothing) -
 * and only when one candidate is nearest: git lists all of a tie, but a CLI with a handful of
 * commands rarely has one, and a wrong guess is worse than none. A prefix of one candidate
 * ("--form") counts as one edit, since options are never abbreviated here.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

/* Longer words than this are never anyone's typo of a command or option name. */
#define WORD_MAX 64

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned cli_suggest_distance(const char *a, const char *b)
{
	/* Three rows of the dynamic-programming table: the swap looks two rows back. */
	unsigned rows[3][WORD_MAX + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	size_t la = strlen(a), lb = strlen(b);

	if (la > WORD_MAX || lb > WORD_MAX)
		return UINT_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *t;

		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

void cli_suggest_init(struct cli_suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->best_d = UINT_MAX;
	s->tie = false;
}

void cli_suggest_add(struct cli_suggest *s, const char *candidate)
{
	size_t lw = strlen(s->word), lc = strlen(candidate);
	unsigned d;

	if (!candidate[0] || candidate[0] == '_')
		return;
	d = cli_suggest_distance(s->word, candidate);
	if (d == 0)
		return; /* the word itself: nothing to suggest */
	if (lw >= 3 && lw < lc && !strncmp(s->word, candidate, lw))
		d = 1;
	if (d > 2 || d * 3 > lc)
		return;
	if (d < s->best_d) {
		s->best = candidate;
		s->best_d = d;
		s->tie = false;
	} else if (d == s->best_d && strcmp(candidate, s->best)) {
		s->tie = true;
	}
}

const char *cli_suggest_result(const struct cli_suggest *s)
{
	return s->tie ? NULL : s->best;
}

const char *cli_suggest_word(const char *word, const char *const *names, size_t n)
{
	struct cli_suggest s;

	cli_suggest_init(&s, word);
	for (size_t i = 0; i < n; i++)
		cli_suggest_add(&s, names[i]);
	return cli_suggest_result(&s);
}
