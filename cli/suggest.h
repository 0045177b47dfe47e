/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean": the nearest of a set of words (commands, long options) to a mistyped one, as
 * git suggests a command. The distance is the optimal string alignment distance (Levenshtein
 * plus the swap of two adjacent letters, each edit costing 1): "reprot" is one edit from
 * "report", "--fromat" one from "--format".
 */
#ifndef PROXYSCOPE_CLI_SUGGEST_H
#define PROXYSCOPE_CLI_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/* The edits (insert, delete, substitute, swap two adjacent letters) from @a to @b. */
unsigned cli_suggest_distance(const char *a, const char *b);

/* A search for the word nearest to @word; feed it the candidates with cli_suggest_add. */
struct cli_suggest {
	const char *word;
	const char *best; /* the nearest candidate so far, NULL: none close enough */
	unsigned best_d;  /* its distance */
	bool tie;         /* another candidate is as near: no single suggestion */
};

void cli_suggest_init(struct cli_suggest *s, const char *word);
/* Consider @candidate (names starting with '_' are internal: never suggested). */
void cli_suggest_add(struct cli_suggest *s, const char *candidate);
/* The one candidate close enough to be what was meant, or NULL. */
const char *cli_suggest_result(const struct cli_suggest *s);

/* The nearest of @names[0..@n) to @word, or NULL (the same rules). */
const char *cli_suggest_word(const char *word, const char *const *names, size_t n);

#endif /* PROXYSCOPE_CLI_SUGGEST_H */
