/* SPDX-License-Identifier: MIT */
/*
 * Posting tagged sends and receives, and draining a rank's completion queue.
 *
 * Manual progress: nothing moves unless someone reads the queue, so every caller that waits for
 * an xfer (B2, the barrier, the warm-up) drains it first. A completion marks its xfer DONE and
 * gives back the peer's credit; an error entry does the same with the error as the result, and
 * its provider text goes to the log and to encnet:error. An xfer of a stopped block (a zombie)
 * hands its completion to the block, which is freed with its last one.
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/trace.h"

#define OFI_CQ_BATCH 32

int enc__ofi_post(struct enc_net_comm *nc, struct ofi_xfer *x, bool send, uint32_t peer,
		  uint64_t tag, void *buf, size_t len)
{
	struct ofi_ep *e = nc->ep;
	ssize_t rc;
	int pid;

	x->peer = peer;
	if (peer != nc->rank && enc__ofi_job_peer_gone(nc->job, peer, &pid)) {
		enc_err("ofi: rank %u: no %s rank %u: rank %u's process (pid %d) died", nc->rank,
			send ? "send to" : "receive from", peer, peer, pid);
		enc_tp(encnet, error, nc->rank, peer, -ESRCH, 0, ENC_OFI_PEER_DIED);
		return -ESRCH;
	}
	if (send)
		rc = fi_tsend(e->ep, buf, len, NULL, e->addrs[peer], tag, &x->ctx);
	else
		rc = fi_trecv(e->ep, buf, len, NULL, FI_ADDR_UNSPEC, tag, 0, &x->ctx);
	if (rc == -FI_EAGAIN)
		return -EAGAIN;
	if (rc) {
		enc_err("ofi: rank %u: %s rank %u failed: %s", nc->rank,
			send ? "fi_tsend to" : "fi_trecv from", peer, enc__fi_strerror((int)-rc));
		enc_tp(encnet, error, nc->rank, peer, (int)rc, 0, enc__fi_strerror((int)-rc));
		return (int)rc;
	}
	x->state = OFI_XFER_POSTED;
	x->result = 0;
	if (x->data)
		nc->inflight[peer]++;
	return 0;
}

static void xfer_complete(struct enc_net_comm *nc, struct ofi_xfer *x, int result)
{
	x->state = OFI_XFER_DONE;
	x->result = result;
	if (x->data && nc->inflight[x->peer])
		nc->inflight[x->peer]--;
	if (x->req)
		enc__ofi_req_xfer_done(nc, x->req);
}

/* One error entry; returns 1 when it was read, 0 when there was none after all. */
static int read_error(struct enc_net_comm *nc)
{
	struct fi_cq_err_entry ee;
	char text[160];
	struct ofi_xfer *x;
	ssize_t rc;
	int err;

	memset(&ee, 0, sizeof(ee)); /* the provider fills err_data only when err_data_size is 0 */
	rc = fi_cq_readerr(nc->ep->cq, &ee, 0);
	if (rc == -FI_EAGAIN || rc == 0)
		return 0;
	if (rc < 0)
		return (int)rc;
	x = ee.op_context;
	err = ee.err ? ee.err : EIO;
	if (err == FI_ECANCELED) {
		/* our own cancel of a stopped block or a closing comm: no news */
		if (x)
			xfer_complete(nc, x, -ECANCELED);
		return 1;
	}
	snprintf(text, sizeof(text), "%s",
		 fi_cq_strerror(nc->ep->cq, ee.prov_errno, ee.err_data, NULL, 0));
	enc_err("ofi: rank %u: %s with rank %u failed: %s (provider error %d: %s)", nc->rank,
		x && x->data ? "an op" : "a control message", x ? x->peer : 0, enc__fi_strerror(err),
		ee.prov_errno, text);
	enc_tp(encnet, error, nc->rank, x ? x->peer : UINT32_MAX, -err, ee.prov_errno, text);
	if (x)
		xfer_complete(nc, x, -err);
	return 1;
}

int enc__ofi_cq_drain(struct enc_net_comm *nc)
{
	struct fi_cq_tagged_entry ce[OFI_CQ_BATCH];
	int total = 0;

	for (;;) {
		ssize_t n = fi_cq_read(nc->ep->cq, ce, OFI_CQ_BATCH);

		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				xfer_complete(nc, ce[i].op_context, 0);
			total += (int)n;
			continue;
		}
		if (n == -FI_EAGAIN)
			return total;
		if (n == -FI_EAVAIL) {
			int rc = read_error(nc);

			if (rc < 0)
				return rc;
			if (rc == 0)
				return total; /* the entry is not readable yet: next drain */
			total++;
			continue;
		}
		enc_err("ofi: rank %u: fi_cq_read failed: %s", nc->rank, enc__fi_strerror((int)-n));
		return (int)n;
	}
}

void enc__ofi_cancel(struct enc_net_comm *nc, struct ofi_xfer *x)
{
	if (x->state == OFI_XFER_POSTED)
		fi_cancel(&nc->ep->ep->fid, &x->ctx);
}
