/* SPDX-License-Identifier: MIT */
/*
 * The analysis' hash map (hashmap.h): linear probing over a power-of-two table, grown at 70 %
 * load. A probe compares the stored hash first, the whole key only on a hash match, so a lookup
 * costs one key comparison when the keys do not collide.
 */
#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_of(const struct psa_hkey *k)
{
	return k->hash ? k->hash : 1;
}

static size_t slot_of(uint64_t hash, size_t cap)
{
	hash ^= hash >> 33;
	hash *= 0xff51afd7ed558ccdull;
	hash ^= hash >> 33;
	return (size_t)hash & (cap - 1);
}

/* Is stored key @a (hash already non-zero) key @b, whose hash is @hash? */
static bool key_is(const struct psa_hkey *a, const struct psa_hkey *b, uint64_t hash)
{
	if (a->hash != hash || memcmp(a->w, b->w, sizeof(a->w)))
		return false;
	return a->s == b->s || (a->s && b->s && !strcmp(a->s, b->s));
}

void psa_hashmap_init(struct psa_hashmap *h)
{
	h->keys = NULL;
	h->vals = NULL;
	h->cap = 0;
	h->n = 0;
}

void psa_hashmap_fini(struct psa_hashmap *h)
{
	free(h->keys);
	free(h->vals);
	psa_hashmap_init(h);
}

void **psa_hashmap_find_slot(const struct psa_hashmap *h, const struct psa_hkey *k)
{
	uint64_t hash = hash_of(k);

	if (!h->cap)
		return NULL;
	for (size_t i = slot_of(hash, h->cap);; i = (i + 1) & (h->cap - 1)) {
		if (key_is(&h->keys[i], k, hash))
			return &h->vals[i];
		if (!h->keys[i].hash)
			return NULL;
	}
}

void *psa_hashmap_find(const struct psa_hashmap *h, const struct psa_hkey *k)
{
	void **v = psa_hashmap_find_slot(h, k);

	return v ? *v : NULL;
}

static int resize(struct psa_hashmap *h, size_t cap)
{
	struct psa_hashmap bigger = { 0 };

	bigger.cap = cap;
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++)
		if (h->keys[i].hash)
			psa_hashmap_insert(&bigger, &h->keys[i], h->vals[i]);
	free(h->keys);
	free(h->vals);
	*h = bigger;
	return 0;
}

int psa_hashmap_insert(struct psa_hashmap *h, const struct psa_hkey *k, void *val)
{
	uint64_t hash = hash_of(k);
	size_t i;

	if ((h->n + 1) * 10 > h->cap * 7 && resize(h, h->cap ? 2 * h->cap : 64))
		return -ENOMEM;
	for (i = slot_of(hash, h->cap); h->keys[i].hash && !key_is(&h->keys[i], k, hash);
	     i = (i + 1) & (h->cap - 1))
		;
	if (!h->keys[i].hash)
		h->n++;
	h->keys[i] = *k;
	h->keys[i].hash = hash;
	h->vals[i] = val;
	return 0;
}

void *psa_hashmap_remove(struct psa_hashmap *h, const struct psa_hkey *k)
{
	uint64_t hash = hash_of(k);
	size_t i, j;
	void *val;

	if (!h->cap)
		return NULL;
	for (i = slot_of(hash, h->cap); !key_is(&h->keys[i], k, hash); i = (i + 1) & (h->cap - 1))
		if (!h->keys[i].hash)
			return NULL;
	val = h->vals[i];
	/* Backward-shift the cluster after i so lookups never need tombstones. */
	for (j = (i + 1) & (h->cap - 1); h->keys[j].hash; j = (j + 1) & (h->cap - 1)) {
		size_t home = slot_of(h->keys[j].hash, h->cap);

		if (((j - home) & (h->cap - 1)) >= ((j - i) & (h->cap - 1))) {
			h->keys[i] = h->keys[j];
			h->vals[i] = h->vals[j];
			i = j;
		}
	}
	memset(&h->keys[i], 0, sizeof(h->keys[i]));
	h->vals[i] = NULL;
	h->n--;
	return val;
}

void psa_hashmap_shrink(struct psa_hashmap *h)
{
	if (h->cap > 64 && h->n * 8 < h->cap)
		resize(h, h->cap / 4 > 64 ? h->cap / 4 : 64);
}

int psa_hashmap_next(const struct psa_hashmap *h, size_t *i, uint64_t *hash, void **val)
{
	for (; *i < h->cap; (*i)++)
		if (h->keys[*i].hash) {
			*hash = h->keys[*i].hash;
			*val = h->vals[*i];
			(*i)++;
			return 1;
		}
	return 0;
}
