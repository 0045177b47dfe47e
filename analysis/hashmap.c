/* SPDX-License-Identifier: MIT */
/*
 * The analysis' hash map (hashmap.h): linear probing over a power-of-two table, grown at 70 %
 * load. A probe compares the stored hash first, the whole key only on a hash match, so a lookup
 * costs one key comparison when the keys do not collide. A slot stores the hash, the map's
 * width of key words and the string pointer: a map of two-word keys takes 40 bytes a slot
 * with its value, not 64 (issue 22: the model's tables at 4096 ranks).
 */
#include "hashmap.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_of(const struct psa_hkey *k)
{
	return k->hash ? k->hash : 1;
}

static size_t slot_of(uint64_t hash, size_t cap)
{
	return psa_hash_slot(hash, cap);
}

static unsigned width(const struct psa_hashmap *h)
{
	return h->words ? h->words : PSA_HKEY_WORDS;
}

/* Slot @i's stored key: [0] the hash (0: empty), then width() words, then the string. */
static uint64_t *key_at(const struct psa_hashmap *h, size_t i)
{
	return h->keys + i * (width(h) + 2);
}

/* @k has no part beyond the map's width (the map would not tell such keys apart). */
static inline bool fits(const struct psa_hashmap *h, const struct psa_hkey *k)
{
	for (unsigned i = width(h); i < PSA_HKEY_WORDS; i++)
		if (k->w[i])
			return false;
	return true;
}

/* Is stored key @a (hash already non-zero) key @b, whose hash is @hash? */
static bool key_is(const struct psa_hashmap *h, const uint64_t *a, const struct psa_hkey *b,
		   uint64_t hash)
{
	const char *s;

	if (a[0] != hash || memcmp(a + 1, b->w, width(h) * sizeof(b->w[0])))
		return false;
	s = (const char *)(uintptr_t)a[1 + width(h)];
	return s == b->s || (s && b->s && !strcmp(s, b->s));
}

static void key_store(const struct psa_hashmap *h, uint64_t *a, const struct psa_hkey *k,
		      uint64_t hash)
{
	a[0] = hash;
	memcpy(a + 1, k->w, width(h) * sizeof(k->w[0]));
	a[1 + width(h)] = (uint64_t)(uintptr_t)k->s;
}

void psa_hashmap_init(struct psa_hashmap *h)
{
	psa_hashmap_init_words(h, 0);
}

void psa_hashmap_init_words(struct psa_hashmap *h, unsigned words)
{
	psa_hashmap_init_sized(h, words, 0);
}

void psa_hashmap_init_sized(struct psa_hashmap *h, unsigned words, unsigned first_cap)
{
	assert(words <= PSA_HKEY_WORDS && !(first_cap & (first_cap - 1)));
	h->keys = NULL;
	h->vals = NULL;
	h->cap = 0;
	h->n = 0;
	h->words = words;
	h->first_cap = first_cap;
}

static size_t first_cap(const struct psa_hashmap *h)
{
	return h->first_cap ? h->first_cap : 64;
}

void psa_hashmap_fini(struct psa_hashmap *h)
{
	free(h->keys);
	free(h->vals);
	psa_hashmap_init_sized(h, h->words, h->first_cap);
}

void **psa_hashmap_find_slot(const struct psa_hashmap *h, const struct psa_hkey *k)
{
	uint64_t hash = hash_of(k);

	assert(fits(h, k));
	if (!h->cap)
		return NULL;
	for (size_t i = slot_of(hash, h->cap);; i = (i + 1) & (h->cap - 1)) {
		const uint64_t *a = key_at(h, i);

		if (key_is(h, a, k, hash))
			return &h->vals[i];
		if (!a[0])
			return NULL;
	}
}

void *psa_hashmap_find(const struct psa_hashmap *h, const struct psa_hkey *k)
{
	void **v = psa_hashmap_find_slot(h, k);

	return v ? *v : NULL;
}

uint64_t psa_hashmap_key_word(const struct psa_hashmap *h, size_t slot, unsigned word)
{
	assert(slot < h->cap && word < width(h));
	return key_at(h, slot)[1 + word];
}

static int resize(struct psa_hashmap *h, size_t cap)
{
	struct psa_hashmap bigger = { .cap = cap, .words = h->words, .first_cap = h->first_cap };

	bigger.keys = calloc(bigger.cap * (width(h) + 2), sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++) {
		const uint64_t *a = key_at(h, i);
		struct psa_hkey k = { .hash = a[0], .s = (const char *)(uintptr_t)a[1 + width(h)] };

		if (!a[0])
			continue;
		memcpy(k.w, a + 1, width(h) * sizeof(k.w[0]));
		psa_hashmap_insert(&bigger, &k, h->vals[i]);
	}
	free(h->keys);
	free(h->vals);
	*h = bigger;
	return 0;
}

int psa_hashmap_insert(struct psa_hashmap *h, const struct psa_hkey *k, void *val)
{
	uint64_t hash = hash_of(k);
	size_t i;

	assert(fits(h, k));
	if ((h->n + 1) * 10 > h->cap * 7 && resize(h, h->cap ? 2 * h->cap : first_cap(h)))
		return -ENOMEM;
	for (i = slot_of(hash, h->cap); key_at(h, i)[0] && !key_is(h, key_at(h, i), k, hash);
	     i = (i + 1) & (h->cap - 1))
		;
	if (!key_at(h, i)[0])
		h->n++;
	key_store(h, key_at(h, i), k, hash);
	h->vals[i] = val;
	return 0;
}

void *psa_hashmap_remove(struct psa_hashmap *h, const struct psa_hkey *k)
{
	uint64_t hash = hash_of(k);
	size_t i, j, stride = (width(h) + 2) * sizeof(*h->keys);
	void *val;

	assert(fits(h, k));
	if (!h->cap)
		return NULL;
	for (i = slot_of(hash, h->cap); !key_is(h, key_at(h, i), k, hash);
	     i = (i + 1) & (h->cap - 1))
		if (!key_at(h, i)[0])
			return NULL;
	val = h->vals[i];
	/* Backward-shift the cluster after i so lookups never need tombstones. */
	for (j = (i + 1) & (h->cap - 1); key_at(h, j)[0]; j = (j + 1) & (h->cap - 1)) {
		size_t home = slot_of(key_at(h, j)[0], h->cap);

		if (((j - home) & (h->cap - 1)) >= ((j - i) & (h->cap - 1))) {
			memcpy(key_at(h, i), key_at(h, j), stride);
			h->vals[i] = h->vals[j];
			i = j;
		}
	}
	memset(key_at(h, i), 0, stride);
	h->vals[i] = NULL;
	h->n--;
	return val;
}

void psa_hashmap_shrink(struct psa_hashmap *h)
{
	size_t floor = first_cap(h) < 64 ? first_cap(h) : 64;

	if (h->cap > floor && h->n * 8 < h->cap)
		resize(h, h->cap / 4 > floor ? h->cap / 4 : floor);
}

int psa_hashmap_next(const struct psa_hashmap *h, size_t *i, uint64_t *hash, void **val)
{
	for (; *i < h->cap; (*i)++)
		if (key_at(h, *i)[0]) {
			*hash = key_at(h, *i)[0];
			*val = h->vals[*i];
			(*i)++;
			return 1;
		}
	return 0;
}
