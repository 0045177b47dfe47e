/* SPDX-License-Identifier: MIT */
/*
 * tail_shadow TRACE_DIR WINDOW_NS SHADOW: the tail-first read's shadow directory of one CTF
 * trace directory (its set-up packets and the packets ending in the last WINDOW_NS clock
 * cycles; analysis/read/ctf/tail/tail_pick.h), for comparing a verdict read from it with the
 * full read's by hand or from a test. Prints "kept BYTES of BYTES"; exit 3 when the trace has no
 * usable index, 1 on any other failure. Then one line per loss in the skipped packets:
 * "loss STREAM events|packets COUNT BEGIN END" (clock cycles).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "read/ctf/tail/tail_pick.h"

int main(int argc, char **argv)
{
	struct psa_tail_pick p;
	char err[512] = "";
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: tail_shadow TRACE_DIR WINDOW_NS SHADOW\n");
		return 1;
	}
	rc = psa__tail_pick(argv[1], strtoull(argv[2], NULL, 10), &p, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[1], rc == -ENOENT ? "no usable index" : err);
		psa__tail_pick_fini(&p);
		return rc == -ENOENT ? 3 : 1;
	}
	rc = psa__tail_shadow(argv[1], &p, argv[3], err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	else
		printf("kept %" PRIu64 " of %" PRIu64 "\n", p.bytes_kept, p.bytes_total);
	for (size_t i = 0; !rc && i < p.n; i++) /* the skipped packets' losses, from the index */
		for (size_t j = 0; j < p.s[i].loss_n; j++)
			printf("loss %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", p.s[i].name,
			       p.s[i].loss[j].packets ? "packets" : "events", p.s[i].loss[j].count,
			       p.s[i].loss[j].begin, p.s[i].loss[j].end);
	psa__tail_pick_fini(&p);
	return rc ? 1 : 0;
}
