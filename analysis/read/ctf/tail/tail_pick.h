/* SPDX-License-Identifier: MIT */
/*
 * The tail-first read's packet choice (issue 23): per data stream of one CTF trace directory,
 * from its LTTng index (index/<stream>.idx: each packet's offset, size and time range), the
 * set-up packets (the first: comms, groups and workers are registered at a stream's start) and
 * the packets of a final window, and a shadow directory whose stream files hold only those
 * packets - babeltrace2 2.0.4 cannot skip packets itself (a seek decodes from the start).
 */
#ifndef PROXYSCOPE_ANALYSIS_TAIL_PICK_H
#define PROXYSCOPE_ANALYSIS_TAIL_PICK_H

#include <stddef.h>
#include <stdint.h>

/*
 * A loss in the packets the tail read skips, as babeltrace2 would have reported it reading them
 * (from the index's cumulative discarded-events counter and packet sequence number): the
 * reader reports these instead of what babeltrace2 says at the seam, where the skipped packets
 * look lost.
 */
struct psa_tail_loss {
	uint64_t begin, end; /* clock cycles */
	uint64_t count;
	int packets;         /* packets (else events) */
};

struct psa_tail_stream {
	char *name;        /* the stream file's name in the trace directory */
	uint64_t packets;  /* packets its index lists */
	uint64_t setup_end; /* bytes [0, setup_end) kept: the set-up packet(s) */
	uint64_t tail_off; /* bytes [tail_off, size) kept: the window (tail_off <= setup_end: all) */
	uint64_t size;     /* bytes the index spans */
	uint64_t seam_ts;  /* the set-up packet's last timestamp (clock cycles): where babeltrace2
			    * reports the skipped packets as lost (with tail_off) */
	struct psa_tail_loss *loss; /* in the packets skipped and the first one after them */
	size_t loss_n;
};

struct psa_tail_pick {
	struct psa_tail_stream *s;
	size_t n;
	uint64_t begin, end;     /* the trace's first and last timestamps (clock cycles) */
	uint64_t cut;            /* where the window begins: every event at or after it is read,
				  * the window asked for rounded out to the packets kept (0: no
				  * stream was cut) */
	uint64_t bytes_total;    /* bytes the indexes span */
	uint64_t bytes_kept;     /* bytes the chosen packets hold */
};

/*
 * Choose in trace directory @dir the packets ending at or after end - @window (clock cycles;
 * UINT64_MAX: every packet) plus each stream's first. 0; -ENOENT when a stream has no usable
 * index (read the trace whole); -ENOMEM. psa__tail_pick_fini after either.
 */
int psa__tail_pick(const char *dir, uint64_t window, struct psa_tail_pick *p, char *err,
		   size_t errlen);
void psa__tail_pick_fini(struct psa_tail_pick *p);

/* Every packet kept: the window reaches the start of every stream. */
int psa__tail_pick_whole(const struct psa_tail_pick *p);

/*
 * Make directory @shadow (absent before) holding a symbolic link to @dir's metadata and, per
 * stream of @p, a file with only the chosen packets (no index/: babeltrace2 indexes them).
 * 0 or a negative errno with the reason in @err; the caller removes @shadow (psa__tail_unshadow).
 */
int psa__tail_shadow(const char *dir, const struct psa_tail_pick *p, const char *shadow,
		     char *err, size_t errlen);
void psa__tail_unshadow(const char *shadow, const struct psa_tail_pick *p);

#endif /* PROXYSCOPE_ANALYSIS_TAIL_PICK_H */
