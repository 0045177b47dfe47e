/* SPDX-License-Identifier: MIT */
/*
 * The analysis' hash map: open addressing (linear probing, tombstone-free deletion by backward
 * shift) from a whole key to a pointer. A key is its probe hash, up to PSA_HKEY_WORDS 64-bit
 * words and an optional string; two keys are the same only when all three are, so keys whose
 * hashes collide are both kept (issue 20: two processes of one vpid on hosts whose names hash
 * alike were merged when only the hash was compared). The hash is the caller's (psa_key over
 * the key's parts), so the slot order, and with it the order psa_hashmap_next walks, depends
 * only on it.
 */
#ifndef PSA_HASHMAP_H
#define PSA_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PSA_HKEY_WORDS 5

struct psa_hkey {
	uint64_t hash;                /* where it is probed: 0 is taken as 1 */
	uint64_t w[PSA_HKEY_WORDS];   /* the key's parts (unused ones 0) */
	const char *s;                /* NULL, or a string part: the map keeps the pointer, so it
					 must live as long as the entry (compared with strcmp) */
};

/* A key of hash @h and parts ... (at most PSA_HKEY_WORDS). */
#define PSA_HKEY(h, ...) ((struct psa_hkey){ .hash = (h), .w = { __VA_ARGS__ } })

struct psa_hashmap {
	uint64_t *keys;        /* per slot: the hash (0 = empty slot), the key's words, its string */
	void **vals;
	size_t cap;            /* a power of two */
	size_t n;
	unsigned words;        /* the key words it keeps: 0 (all PSA_HKEY_WORDS) or fewer */
	unsigned first_cap;    /* its first table's slots (0: 64) */
};

/* A map of whole keys (zeroed memory is one too); _words: of keys with at most @words parts,
 * in slots that much smaller - a key with a part beyond them is a bug (asserted). */
void psa_hashmap_init(struct psa_hashmap *h);
void psa_hashmap_init_words(struct psa_hashmap *h, unsigned words);
/* The same, its first table of @first_cap slots (a power of two) instead of 64: for a map that
 * often stays small and whose walk is no output's (the slot order follows the table's sizes). */
void psa_hashmap_init_sized(struct psa_hashmap *h, unsigned words, unsigned first_cap);
/* Frees the table; the map stays usable, with its width. */
void psa_hashmap_fini(struct psa_hashmap *h);
/* The value of key @k, or NULL. */
void *psa_hashmap_find(const struct psa_hashmap *h, const struct psa_hkey *k);
/* Where the value of key @k is stored (to replace it in place: no growth, no failure), or NULL
 * when @k is absent. Valid until the next insert or remove. */
void **psa_hashmap_find_slot(const struct psa_hashmap *h, const struct psa_hkey *k);
/* Insert or replace. Returns 0 or -ENOMEM. */
int psa_hashmap_insert(struct psa_hashmap *h, const struct psa_hkey *k, void *val);
/* Remove @k; returns its value or NULL. */
void *psa_hashmap_remove(struct psa_hashmap *h, const struct psa_hkey *k);

/* After removals: a table used below an eighth shrinks to a quarter (a half used then), at
 * least 64 slots; when memory is short it stays as it is. The slot order changes: not for a map
 * whose walk is part of an output. The floor is the map's first size when below 64. */
void psa_hashmap_shrink(struct psa_hashmap *h);

/* Part @word of the key in slot @slot (a slot psa_hashmap_next went through: its *@i - 1). */
uint64_t psa_hashmap_key_word(const struct psa_hashmap *h, size_t slot, unsigned word);

/* Iterate: for (size_t i = 0; psa_hashmap_next(h, &i, &hash, &v); ), in slot order. */
int psa_hashmap_next(const struct psa_hashmap *h, size_t *i, uint64_t *hash, void **val);

/* Mix several values into one non-zero hash. */
static inline uint64_t psa_key(uint64_t a, uint64_t b)
{
	uint64_t k = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));

	return k ? k : 1;
}

/* The home slot of @hash in a table of @cap slots (a power of two): the map's, and that of the
 * tables that keep its order (model/live_tab.c). */
static inline size_t psa_hash_slot(uint64_t hash, size_t cap)
{
	hash ^= hash >> 33;
	hash *= 0xff51afd7ed558ccdull;
	hash ^= hash >> 33;
	return (size_t)hash & (cap - 1);
}

/* A map keyed by one non-zero 64-bit value (its whole key): find, insert and remove it. */
static inline void *psa_hashmap_get(const struct psa_hashmap *h, uint64_t key)
{
	struct psa_hkey k = PSA_HKEY(key, key);

	return psa_hashmap_find(h, &k);
}

static inline int psa_hashmap_put(struct psa_hashmap *h, uint64_t key, void *val)
{
	struct psa_hkey k = PSA_HKEY(key, key);

	return psa_hashmap_insert(h, &k, val);
}

static inline void *psa_hashmap_del(struct psa_hashmap *h, uint64_t key)
{
	struct psa_hkey k = PSA_HKEY(key, key);

	return psa_hashmap_remove(h, &k);
}

#endif /* PSA_HASHMAP_H */
