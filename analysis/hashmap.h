/* An open-addressing hash map from a non-zero 64-bit key to a pointer (linear probing,
 * tombstone-free deletion by backward shift). */
#ifndef PSA_HASHMAP_H
#define PSA_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct psa_hashmap {
	uint64_t *keys; /* 0 = empty slot */
	void **vals;
	size_t cap;     /* a power of two */
	size_t n;
};

void psa_hashmap_init(struct psa_hashmap *h);
void psa_hashmap_fini(struct psa_hashmap *h);
void *psa_hashmap_get(const struct psa_hashmap *h, uint64_t key);
/* Insert or replace. Returns 0 or -ENOMEM. @key must not be 0. */
int psa_hashmap_put(struct psa_hashmap *h, uint64_t key, void *val);
/* Remove @key; returns its value or NULL. */
void *psa_hashmap_del(struct psa_hashmap *h, uint64_t key);

/* Iterate: for (size_t i = 0; psa_hashmap_next(h, &i, &k, &v); ) */
int psa_hashmap_next(const struct psa_hashmap *h, size_t *i, uint64_t *key, void **val);

/* Mix several values into one non-zero key. */
static inline uint64_t psa_key(uint64_t a, uint64_t b)
{
	uint64_t k = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));

	return k ? k : 1;
}

#endif /* PSA_HASHMAP_H */
