/* SPDX-License-Identifier: MIT */
/*
 * What the model's files share below the dispatch (model.c), the task lifecycle (task.c) and
 * the queries (query.c): growable vectors, a worker's time accounting and the index of the
 * transport errors. A leaf: it calls none of them, so the calls between the model's files go
 * one way (model.c -> task.c -> here; query.c -> task.c, here).
 */
#include <errno.h>
#include <stdlib.h>

#include "model/model_int.h"

int psa__vec_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 4;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*v, c * elem);
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

void psa__worker_account(struct psa_worker *w, uint64_t ts)
{
	uint64_t d;

	if (ts <= w->mode_since)
		return;
	d = ts - w->mode_since;
	if (w->mode == 0)
		w->active_ns += d;
	else if (w->mode == 1)
		w->idle_ns += d;
	else
		w->sleep_ns += d;
	w->mode_since = ts;
}

const struct psa_net_error *psa__net_error_last(const struct psa_model *m,
						const struct psa_proc *p, uint32_t rank)
{
	struct psa_hkey key = psa__net_err_key(p, rank, 0);
	size_t idx = (size_t)(uintptr_t)psa_hashmap_find(&m->net_err_last, &key);

	return idx ? &m->net_errors.v[idx - 1] : NULL;
}
