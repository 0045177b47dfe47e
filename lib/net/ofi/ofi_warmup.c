/* SPDX-License-Identifier: MIT */
/*
 * The warm-up during open: one small message to and from every other rank, driven to completion
 * before the comm is handed out. tcp;ofi_rxm connects lazily and its connection manager runs only
 * every FI_OFI_RXM_CM_PROGRESS_INTERVAL (10 ms) of completion-queue reads, so without this the
 * first exec would pay a few such intervals per new peer (why: see docs/ARCHITECTURE.md, Decisions
 * measured: the ofi open warms every connection up). Every rank of the job is in its own open at
 * the same time (the meeting ended for all together), so each one's progress serves the others.
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdlib.h>

#include "common/log.h"
#include "enc/time.h"

static int warm_state(const struct enc_net_comm *nc, const struct ofi_xfer *x, uint32_t *q)
{
	for (uint32_t i = 0; i < 2 * nc->nranks; i++) {
		if (i % nc->nranks == nc->rank)
			continue;
		if (x[i].state == OFI_XFER_DONE && x[i].result) {
			*q = i % nc->nranks;
			return x[i].result;
		}
		if (x[i].state != OFI_XFER_DONE) {
			*q = i % nc->nranks;
			return 1;
		}
	}
	return 0;
}

int enc__ofi_warmup(struct enc_net_comm *nc, uint32_t timeout_ms)
{
	uint64_t deadline = enc_now_ns() + (uint64_t)timeout_ms * 1000000u;
	uint32_t n = nc->nranks, next = 0, q = 0;
	struct ofi_xfer *x;  /* [0, n): receives, [n, 2n): sends */
	uint64_t *buf;       /* [0, n): receive buffers, [n]: what the sends carry */
	int rc = 0;

	if (n == 1)
		return 0;
	x = calloc(2 * (size_t)n, sizeof(*x));
	buf = calloc((size_t)n + 1, sizeof(*buf));
	if (!x || !buf) {
		free(x);
		free(buf);
		return -ENOMEM;
	}
	buf[n] = nc->rank;
	for (;;) {
		/* post the receives first, then the sends, retrying what the provider refused */
		rc = 0;
		for (; next < 2 * n; next++) {
			uint32_t p = next % n;
			bool send = next >= n;

			if (p == nc->rank)
				continue;
			rc = enc__ofi_post(nc, &x[next], send, p,
					   ofi_tag(OFI_TAG_WARMUP, send ? nc->rank : p, 0),
					   send ? &buf[n] : &buf[p], sizeof(uint64_t));
			if (rc)
				break;
		}
		if (rc && rc != -EAGAIN)
			break;
		rc = enc__ofi_cq_drain(nc);
		if (rc < 0)
			break;
		rc = next == 2 * n ? warm_state(nc, x, &q) : 1;
		if (rc <= 0)
			break;
		if (enc_now_ns() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
	}
	if (rc) {
		enc_err("ofi: rank %u: warming up the connection with rank %u failed: %s", nc->rank,
			q, rc == -ETIMEDOUT ? "no answer in time" : "see above");
		for (uint32_t i = 0; i < 2 * n; i++)
			enc__ofi_cancel(nc, &x[i]);
		enc__ofi_job_bury(nc->job, x); /* the provider may own them until the close */
		enc__ofi_job_bury(nc->job, buf);
		return rc;
	}
	free(x);
	free(buf);
	return 0;
}
