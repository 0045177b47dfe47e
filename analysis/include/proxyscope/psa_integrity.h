/* SPDX-License-Identifier: MIT */
/*
 * Damaged traces, found on disk before anything is concluded from them: a stream file missing,
 * emptied, or shorter than its index says (its packets stop early), and the same trace read
 * twice under two paths (two trace directories with one trace UUID). The readers cannot tell:
 * babeltrace2 reads what is there, and a missing stream only shows as tasks that seem stuck.
 */
#ifndef PROXYSCOPE_PSA_INTEGRITY_H
#define PROXYSCOPE_PSA_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psa_integrity_kind {
	PSA_STREAM_MISSING,  /* the index lists packets of a stream file that is not there */
	PSA_STREAM_EMPTY,    /* the stream file is empty */
	PSA_STREAM_SHORT,    /* it ends before the packets its index lists */
	PSA_STREAM_PARTIAL,  /* it ends inside a packet after the ones its index lists (a
				consumer stopped mid-write): @bytes_expected whole, @bytes_found in
				all; the whole packets are read */
	PSA_TRACE_DUPLICATE, /* a trace directory with the UUID of another one read */
	PSA_TRACE_LOST,      /* a host's trace that cannot be read, or that a daemon's death cut
				(its cut marker, psa_input.h): @stream holds the sentence */
};

struct psa_integrity_issue {
	enum psa_integrity_kind kind;
	char trace[512];  /* the trace directory (the one holding `metadata`) */
	char stream[512]; /* the stream file's name; for a duplicate, the other trace directory */
	uint64_t packets; /* the packets its index lists */
	uint64_t packets_whole; /* of those, the ones whole in the stream file (read); none of a
				   stream cut inside its first packet: nothing of it is read */
	uint64_t bytes_expected, bytes_found;
};

struct psa_integrity {
	struct psa_integrity_issue *v;
	size_t n;
	size_t damaged;    /* streams missing, emptied or cut short */
	size_t duplicates; /* trace directories repeating another's UUID */
};

/* Check every CTF trace under @paths: psa_ctf_trace_facts (the reader's search and checks)
 * made into issues, in the order found. Returns 0 or -ENOMEM; what cannot be read (no index,
 * an unreadable file, a trace the reader refuses) is not an issue: the reader says so. */
int psa_integrity_check(const char *const *paths, size_t n, struct psa_integrity *out);
void psa_integrity_fini(struct psa_integrity *in);

/* One line for @issue, without a newline: "stream proxyscope_1 of 'DIR' is empty (...)". */
void psa_integrity_issue_str(const struct psa_integrity_issue *issue, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_INTEGRITY_H */
