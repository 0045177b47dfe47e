/* The analysis' hash map: linear probing over a power-of-two table, grown at 70 % load. */
#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
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

void *psa_hashmap_get(const struct psa_hashmap *h, uint64_t key)
{
	if (!h->cap)
		return NULL;
	for (size_t i = slot_of(key, h->cap);; i = (i + 1) & (h->cap - 1)) {
		if (h->keys[i] == key)
			return h->vals[i];
		if (!h->keys[i])
			return NULL;
	}
}

static int grow(struct psa_hashmap *h)
{
	struct psa_hashmap bigger = { 0 };

	bigger.cap = h->cap ? 2 * h->cap : 64;
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++)
		if (h->keys[i])
			psa_hashmap_put(&bigger, h->keys[i], h->vals[i]);
	free(h->keys);
	free(h->vals);
	*h = bigger;
	return 0;
}

int psa_hashmap_put(struct psa_hashmap *h, uint64_t key, void *val)
{
	size_t i;

	if ((h->n + 1) * 10 > h->cap * 7 && grow(h))
		return -ENOMEM;
	for (i = slot_of(key, h->cap); h->keys[i] && h->keys[i] != key; i = (i + 1) & (h->cap - 1))
		;
	if (!h->keys[i])
		h->n++;
	h->keys[i] = key;
	h->vals[i] = val;
	return 0;
}

void *psa_hashmap_del(struct psa_hashmap *h, uint64_t key)
{
	size_t i, j;
	void *val;

	if (!h->cap)
		return NULL;
	for (i = slot_of(key, h->cap); h->keys[i] != key; i = (i + 1) & (h->cap - 1))
		if (!h->keys[i])
			return NULL;
	val = h->vals[i];
	/* Backward-shift the cluster after i so lookups never need tombstones. */
	for (j = (i + 1) & (h->cap - 1); h->keys[j]; j = (j + 1) & (h->cap - 1)) {
		size_t home = slot_of(h->keys[j], h->cap);

		if (((j - home) & (h->cap - 1)) >= ((j - i) & (h->cap - 1))) {
			h->keys[i] = h->keys[j];
			h->vals[i] = h->vals[j];
			i = j;
		}
	}
	h->keys[i] = 0;
	h->vals[i] = NULL;
	h->n--;
	return val;
}

int psa_hashmap_next(const struct psa_hashmap *h, size_t *i, uint64_t *key, void **val)
{
	for (; *i < h->cap; (*i)++)
		if (h->keys[*i]) {
			*key = h->keys[*i];
			*val = h->vals[*i];
			(*i)++;
			return 1;
		}
	return 0;
}
