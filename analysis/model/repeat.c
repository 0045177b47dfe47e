/* SPDX-License-Identifier: MIT */
/*
 * Repeated events: the same trace read twice (a directory given twice, or copied twice under
 * one path) delivers every event twice, and the muxer puts the two copies next to each other
 * on their thread (same timestamp). One thread never fires two tracepoints within the same
 * nanosecond with the same payload, so an event equal to its thread's previous one - time,
 * type and every field - is a repeat: the model drops it and counts it, and the report says
 * the trace was given twice instead of double-counting every task.
 */
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

bool psa__model_is_repeat(struct psa_model *m, const struct psa_proc *p,
			  const struct psa_event *ev)
{
	struct psa_hkey key = PSA_HKEY(psa_key((uint64_t)p->id + 1,
					       psa_key((uint64_t)ev->vtid + 1, 0x7e)),
				       p->id, ev->vtid);
	uint64_t fp = fingerprint(ev);

	if ((uint64_t)(uintptr_t)psa_hashmap_find(&m->last_event, &key) == fp) {
		m->totals.duplicates++;
		return true;
	}
	psa_hashmap_insert(&m->last_event, &key, (void *)(uintptr_t)fp);
	return false;
}
