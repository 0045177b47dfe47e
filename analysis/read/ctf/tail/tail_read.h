/* SPDX-License-Identifier: MIT */
/*
 * The tail-first read around one read of a set of traces (tail_read.c): each trace that can be
 * cut is replaced, for babeltrace2, by a shadow of its set-up packets and final window.
 */
#ifndef PROXYSCOPE_ANALYSIS_TAIL_READ_H
#define PROXYSCOPE_ANALYSIS_TAIL_READ_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "read/ctf/ctf_int.h"
#include "read/ctf/tail/tail_pick.h"

struct psa_tail_read {
	uint64_t window_ns;
	uint64_t inner_ns;
	char root[PATH_MAX];        /* the shadows' directory under $TMPDIR ("" none) */
	struct psa_tail_pick *pick; /* [dirs->n] */
	bool *made;                 /* [dirs->n]: trace i is read through its shadow */
};

/*
 * Before a read of @dirs: with @window_ns (0: read everything), cut each trace not @hide[i] to
 * its final @window_ns (LTTng's clock counts ns) and its set-up packets: dirs->open[i] and
 * dirs->seam[i] set. @st gets bytes_read, bytes_total, window_ns (the window read, from the
 * start of the packets kept on every stream to the end; 0 when no trace was cut) and
 * skipped_losses; a trace read whole counts @bytes[i], its stream files' bytes as its check
 * found them (@bytes NULL: its directory is walked for them). With @inner_ns (shorter than
 * @window_ns, 0: none), a trace cut is cut to its inner window too (dirs->tail_inner_cut[i],
 * st->inner_window_ns) and its window holds at least one packet more than that. 0 or -ENOMEM;
 * psa__tail_read_end after either.
 */
int psa__tail_read_begin(struct psa_trace_dirs *dirs, const bool *hide,
			 const uint64_t *bytes, uint64_t window_ns, uint64_t inner_ns,
			 struct psa_tail_read *t, struct psa_read_stats *st);
/* After the read: the shadows removed, dirs->open and dirs->seam back to the traces'. */
void psa__tail_read_end(struct psa_trace_dirs *dirs, struct psa_tail_read *t);

/* The sink's side (tail_sink.c): a loss of @trace beginning at @begin is at a seam. */
bool psa__tail_sink_at_seam(const struct psa_ctf_sink *s, const bt_trace *trace,
			    const bt_clock_snapshot *begin);
/* What the sink marks event @msg, of catalogue type @type, with (tail_cut set): a task's event
 * before its trace's window PSA_EV_BEFORE_WINDOW and PSA_EV_BEFORE_INNER, one before its inner
 * window only PSA_EV_BEFORE_INNER; else 0. */
uint64_t psa__tail_sink_before(struct psa_ctf_sink *s, const bt_message *msg, uint32_t type);

#endif /* PROXYSCOPE_ANALYSIS_TAIL_READ_H */
