/* SPDX-License-Identifier: MIT */
/*
 * Values per (space, rank, sub) (model_int.h): what finished, per rank of a job or a process
 * (model/marks.c's values). At 4096 ranks each of the general maps holding them took 8,192
 * slots of 40-48 bytes for 4,096 keys (issue 22: 1.1 MB of the model's 4.7 MB). Ranks come in
 * runs, so they are kept in pages of PSA_RK_PAGE consecutive ranks of one space, an entry a
 * (sub, value) pair - 16 bytes a rank, the page found through a small map of pages (the first
 * page made is kept apart: a trace of up to 16 ranks needs no map). A rank has mostly one sub
 * (its one peer in a ring, its one stream): a second sub of a rank whose entry is taken goes to
 * a general map of its own. Never walked for an output: the order is nobody's.
 */
#include <stdlib.h>

#include "model/model_int.h"

struct rk_page {
	struct rk_entry {
		uint64_t sub;
		void *val; /* NULL: free */
	} e[PSA_RK_PAGE];
};

static struct psa_hkey page_key(uint64_t space, uint32_t rank)
{
	uint64_t page = rank / PSA_RK_PAGE;

	return PSA_HKEY(psa_key(space + 1, page + 1), space, page);
}

static struct psa_hkey rest_key(uint64_t space, uint32_t rank, uint64_t sub)
{
	return PSA_HKEY(psa_key(psa_key(space + 1, (uint64_t)rank + 1), sub + 1), space, rank, sub);
}

void psa__rk_init(struct psa_rank_map *rm)
{
	rm->first = NULL;
	psa_hashmap_init_sized(&rm->pages, 2, 8);
	psa_hashmap_init_sized(&rm->rest, 3, 8);
}

/*
 * A key's entry: the rank's entry in its page holds it, or holds another sub (then the key,
 * if anywhere, is in rest: entries are never freed, so a key went to rest only when its
 * rank's entry was already another's), or is free (the key is nowhere).
 */
static struct rk_entry *entry_of(const struct psa_rank_map *rm, uint64_t space, uint32_t rank)
{
	struct psa_hkey k = page_key(space, rank);
	struct rk_page *pg;

	if (rm->first && rm->first_space == space && rm->first_no == rank / PSA_RK_PAGE)
		pg = rm->first;
	else
		pg = psa_hashmap_find(&rm->pages, &k);
	return pg ? &pg->e[rank % PSA_RK_PAGE] : NULL;
}

/* A page for @rank of @space: the first, or one in the map. */
static struct rk_page *page_new(struct psa_rank_map *rm, uint64_t space, uint32_t rank)
{
	struct rk_page *pg = calloc(1, sizeof(*pg));
	struct psa_hkey k = page_key(space, rank);

	if (pg && !rm->first) {
		rm->first = pg;
		rm->first_space = space;
		rm->first_no = rank / PSA_RK_PAGE;
	} else if (pg && psa_hashmap_insert(&rm->pages, &k, pg)) {
		free(pg);
		pg = NULL;
	}
	return pg;
}

void *psa__rk_get(const struct psa_rank_map *rm, uint64_t space, uint32_t rank, uint64_t sub)
{
	const struct rk_entry *e = entry_of(rm, space, rank);
	struct psa_hkey k;

	if (!e || !e->val)
		return NULL;
	if (e->sub == sub)
		return e->val;
	k = rest_key(space, rank, sub);
	return psa_hashmap_find(&rm->rest, &k);
}

void **psa__rk_cell(struct psa_rank_map *rm, uint64_t space, uint32_t rank, uint64_t sub)
{
	struct rk_entry *e = entry_of(rm, space, rank);
	struct psa_hkey k;
	void **slot;

	if (!e) {
		struct rk_page *pg = page_new(rm, space, rank);

		if (!pg)
			return NULL;
		e = &pg->e[rank % PSA_RK_PAGE];
	}
	if (!e->val || e->sub == sub) {
		e->sub = sub; /* a free entry is the key's until a value is stored in it */
		return &e->val;
	}
	k = rest_key(space, rank, sub);
	slot = psa_hashmap_find_slot(&rm->rest, &k);
	if (!slot && !psa_hashmap_insert(&rm->rest, &k, NULL))
		slot = psa_hashmap_find_slot(&rm->rest, &k);
	return slot;
}

static void page_free(struct rk_page *pg, void (*free_val)(void *))
{
	for (unsigned j = 0; pg && j < PSA_RK_PAGE; j++)
		if (pg->e[j].val)
			free_val(pg->e[j].val);
	free(pg);
}

void psa__rk_fini(struct psa_rank_map *rm, void (*free_val)(void *))
{
	uint64_t k;
	void *v;

	page_free(rm->first, free_val);
	rm->first = NULL;
	for (size_t i = 0; psa_hashmap_next(&rm->pages, &i, &k, &v);)
		page_free(v, free_val);
	for (size_t i = 0; psa_hashmap_next(&rm->rest, &i, &k, &v);)
		if (v)
			free_val(v);
	psa_hashmap_fini(&rm->pages);
	psa_hashmap_fini(&rm->rest);
}
