/* SPDX-License-Identifier: MIT */
/*
 * Repeated events: the same trace read twice (a directory given twice, or copied twice under
 * one path) delivers every event twice, and the muxer puts the two copies next to each other
 * on their thread (same timestamp). One thread never fires two tracepoints within the same
 * nanosecond with the same payload, so an event equal to its thread's previous one - time,
 * type and every field - is a repeat: the model drops it and counts it, and the report says
 * the trace was given twice instead of double-counting every task.
 *
 * One fingerprint per thread, in a table of its own: (process, thread) packs into one word,
 * and 16-byte slots hold the thousands of threads of a 4096-rank process in a quarter of what
 * the general map's would (issue 22: the model's memory per live task).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

static uint64_t fingerprint(const struct psa_event *ev)
{
	uint64_t h = psa_key(ev->ts_ns, ((uint64_t)ev->type << 32) ^ ev->cpu);

	h = psa_key(h, ev->present);
	for (int i = 0; i < PSA_F_NR; i++)
		if (psa_ev_has(ev, (enum psa_field)i))
			h = psa_key(h, (uint64_t)ev->f[i]);
	for (size_t i = 0; i < sizeof(ev->text) && ev->text[i]; i++)
		h = psa_key(h, (unsigned char)ev->text[i]);
	return h ? h : 1;
}

static size_t slot_of(const struct psa_fp_table *t, uint64_t key)
{
	return (size_t)psa_key(key, 0x7e) & (t->cap - 1);
}

/* The slot of @key, or the empty one where it would go (fp 0: fingerprints never are). */
static struct psa_fp_slot *fp_slot(const struct psa_fp_table *t, uint64_t key)
{
	size_t i = slot_of(t, key);

	while (t->v[i].fp && t->v[i].key != key)
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

static int fp_grow(struct psa_fp_table *t)
{
	struct psa_fp_table g = { .cap = t->cap ? 2 * t->cap : 16, .n = t->n };

	g.v = calloc(g.cap, sizeof(*g.v));
	if (!g.v)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].fp)
			*fp_slot(&g, t->v[i].key) = t->v[i];
	free(t->v);
	*t = g;
	return 0;
}

void psa__fp_table_fini(struct psa_fp_table *t)
{
	free(t->v);
	*t = (struct psa_fp_table){ 0 };
}

bool psa__model_is_repeat(struct psa_model *m, const struct psa_proc *p,
			  const struct psa_event *ev)
{
	struct psa_fp_table *t = &m->last_event;
	uint64_t key = (uint64_t)p->id << 32 | ev->vtid, fp = fingerprint(ev);
	struct psa_fp_slot *s = t->cap ? fp_slot(t, key) : NULL;

	if (s && s->fp == fp) {
		m->totals.duplicates++;
		return true;
	}
	/* a thread not seen yet: the table grows only then (out of memory: it is not noted, a
	 * thread already seen is still compared) */
	if (!s || !s->fp) {
		if ((t->n + 1) * 10 > t->cap * 7) {
			if (fp_grow(t))
				return false;
			s = fp_slot(t, key);
		}
		t->n++;
	}
	*s = (struct psa_fp_slot){ .key = key, .fp = fp };
	return false;
}
