/* SPDX-License-Identifier: MIT */
/*
 * The exporters' private interface: the object every format extends, its const ops table, and
 * the helpers they share (the time origin, JSON strings and numbers).
 *
 * Design: export.c owns everything that is the same for every format - the observer
 * trampolines, the trace-start origin every timestamp is rebased to, and the table of live
 * tasks (an entry per task from its first callback to task_end, so memory follows the live
 * tasks, never the events) - and calls the format through its ops only for what differs.
 * Single-threaded, like the model that calls it.
 */
#ifndef PSA_EXPORT_INT_H
#define PSA_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_export.h>

#include "hashmap.h"

/* What export.c keeps per live task; a format's own per-task data follows it (ops->task_size). */
struct psa_xtask {
	uint64_t seq; /* 1, 2, ... in order of first callback, over the whole export */
};

/* The format's per-task data of @xt. */
static inline void *psa__xtask_priv(struct psa_xtask *xt)
{
	return xt + 1;
}

struct psa_export_ops {
	const char *name;
	size_t size;      /* of the format's object, which starts with struct psa_export */
	size_t task_size; /* of its per-task data */

	/* Write the header. Write errors show in ferror(e->out) and are reported at finish. */
	int (*init)(struct psa_export *e);
	/* A task's first callback: its identity (proc, rank, exec, kind) is final. */
	void (*task_begin)(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt);
	void (*interval)(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			 uint32_t state, uint64_t begin, uint64_t end, bool open);
	void (*seam)(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
		     enum psa_seam which, uint32_t stream, uint32_t bb, int rc, uint64_t end,
		     uint64_t dur);
	void (*instant)(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			const struct psa_event *ev);
	/* The task's last callback; its entry is freed after this. */
	void (*task_end)(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt);
	void (*worker_end)(struct psa_export *e, const struct psa_worker *w);
	/* The trailer. Returns 0 or a negative errno (a write error is checked by export.c). */
	int (*finish)(struct psa_export *e, const struct psa_model *m);
	void (*fini)(struct psa_export *e);
};

struct psa_export {
	const struct psa_export_ops *ops;
	FILE *out;
	struct psa_hashmap tasks; /* (proc, task_id) -> struct psa_xtask * (live tasks only) */
	uint64_t task_seq;
	const struct psa_model *model; /* gives the trace start */
	uint64_t origin;    /* absolute ns that relative time 0 stands for */
	bool origin_set;
	uint64_t clamped;   /* timestamps before the origin, written as 0 */
	int err;            /* first failure of the pass (-ENOMEM): reported by finish */
	const struct psa_watchdog *verdict; /* psa_export_set_verdict (NULL: none) */
	bool interrupted;
};

extern const struct psa_export_ops psa__export_chrome_ops;
extern const struct psa_export_ops psa__export_csv_ops;
extern const struct psa_export_ops psa__export_html_ops;

/* @ts relative to the trace start (0 for a time before it, counted in e->clamped). */
uint64_t psa__export_rel(struct psa_export *e, uint64_t ts);

/* Remember the first failure of the pass. */
static inline void psa__export_fail(struct psa_export *e, int err)
{
	if (!e->err)
		e->err = err;
}

/* Everything is keyed by the traced process, so vpids reused across hosts never merge. */
static inline uint64_t psa__export_key(const struct psa_proc *p, uint64_t x)
{
	return psa_key((uint64_t)p->id + 1, x);
}

/* --- JSON (export_json.c) ------------------------------------------------------------------- */

/*
 * @s (at most @max bytes, stopping at a NUL) as a quoted JSON string. Besides the quote, the
 * backslash and control characters, '<', '>' and '&' are written as \u003c, \u003e, \u0026,
 * so the text is also safe inside an HTML <script> element, and invalid UTF-8 becomes U+FFFD
 * so the document always parses.
 */
void psa__json_strn(FILE *f, const char *s, size_t max);

static inline void psa__json_str(FILE *f, const char *s)
{
	psa__json_strn(f, s, SIZE_MAX);
}

/* @ns as microseconds with three decimals ("1234.567"): exact, never a float. */
void psa__json_us(FILE *f, uint64_t ns);

#endif /* PSA_EXPORT_INT_H */
