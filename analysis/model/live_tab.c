/* SPDX-License-Identifier: MIT */
/*
 * The live tasks by (process, task id) (model_int.h): a slot is the task's pointer alone - its
 * key and hash are the task's own fields - where the general map's slot held the hash, two key
 * words, the string and the value (40 bytes, not 8). The table is kept at its peak size (16,384
 * slots for the 4096-rank stall's 12,000 tasks alive at once), so the saving is 512 KB there
 * (issue 22: the model's memory per live task).
 *
 * Its walk is the order psa_model_finish hands the live tasks to the observers, so it must stay
 * the general map's: the same hash (psa__proc_key's), home slot (psa_hash_slot), growth (at 70 %
 * load, from 64 slots, re-inserting in slot order), linear probing and backward-shift removal.
 * The same operations in the same order then leave every task in the same slot as the map did
 * (test_live_tab checks it against the map).
 */
#include <errno.h>
#include <stdlib.h>

#include "model/model_int.h"

static uint64_t hash_of(const struct psa_proc *p, uint64_t task_id)
{
	uint64_t h = psa__proc_key(p, task_id).hash;

	return h ? h : 1; /* as the map takes it */
}

static size_t home_of(const struct psa_task *t, size_t cap)
{
	return psa_hash_slot(hash_of(t->proc, t->task_id), cap);
}

struct psa_task *psa__live_find(const struct psa_live_tab *lt, const struct psa_proc *p,
				uint64_t task_id)
{
	if (!lt->cap)
		return NULL;
	for (size_t i = psa_hash_slot(hash_of(p, task_id), lt->cap);; i = (i + 1) & (lt->cap - 1)) {
		struct psa_task *t = lt->v[i];

		if (!t || (t->proc == p && t->task_id == task_id))
			return t;
	}
}

/* Into its first free slot from home (the task is not in the table). */
static void place(struct psa_live_tab *lt, struct psa_task *t)
{
	size_t i = home_of(t, lt->cap);

	while (lt->v[i])
		i = (i + 1) & (lt->cap - 1);
	lt->v[i] = t;
}

int psa__live_insert(struct psa_live_tab *lt, struct psa_task *t)
{
	if ((lt->n + 1) * 10 > lt->cap * 7) {
		size_t cap = lt->cap ? 2 * lt->cap : 64;
		struct psa_live_tab g = { .v = calloc(cap, sizeof(*g.v)), .cap = cap, .n = lt->n };

		if (!g.v)
			return -ENOMEM;
		for (size_t i = 0; i < lt->cap; i++)
			if (lt->v[i])
				place(&g, lt->v[i]);
		free(lt->v);
		*lt = g;
	}
	place(lt, t);
	lt->n++;
	return 0;
}

void psa__live_remove(struct psa_live_tab *lt, const struct psa_task *t)
{
	size_t i, j, mask = lt->cap - 1;

	if (!lt->cap)
		return;
	for (i = home_of(t, lt->cap); lt->v[i] != t; i = (i + 1) & mask)
		if (!lt->v[i])
			return;
	/* Backward-shift the cluster after i so lookups never need tombstones. */
	for (j = (i + 1) & mask; lt->v[j]; j = (j + 1) & mask) {
		size_t home = home_of(lt->v[j], lt->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			lt->v[i] = lt->v[j];
			i = j;
		}
	}
	lt->v[i] = NULL;
	lt->n--;
}

struct psa_task *psa__live_next(const struct psa_live_tab *lt, size_t *i)
{
	for (; *i < lt->cap; (*i)++)
		if (lt->v[*i])
			return lt->v[(*i)++];
	return NULL;
}

void psa__live_fini(struct psa_live_tab *lt)
{
	free(lt->v);
	*lt = (struct psa_live_tab){ 0 };
}
