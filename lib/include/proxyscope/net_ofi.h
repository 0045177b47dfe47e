/* SPDX-License-Identifier: MIT */
/*
 * The libfabric ("ofi") seam backend: ranks in one or several processes of a host exchange their
 * blocks' data as RDM tagged messages over a libfabric provider, with manual progress driven by
 * the seam calls (nothing moves between two B2 calls of a rank).
 *
 * Setup (open) is collective: the ranks of the job that this process opens meet, then the job's
 * processes on this host exchange their endpoint names over the bananaphone bus (the comm's
 * local_rank / local_nranks), and every pair of ranks exchanges one warm-up message. Alone on
 * the host, one process must open every rank of the job.
 *
 * Provider: enc_config.net_provider (ENC_NET_PROVIDER), e.g. "shm" (the default: every rank is on
 * this host), "tcp" (on libfabric 1.17: the tcp;ofi_rxm stack), "net", "udp". Every process must
 * ask for the same one and resolve it to the same stack; a provider that does not exist, or a
 * mismatch, fails the setup in every process with a message naming it.
 *
 * libfabric is loaded at run time, by the first open (or enc_net_check) of this backend: a
 * process that never uses it never loads libfabric, nor what libfabric loads (libinfinipath's
 * constructor costs 0.2 s and installs signal handlers; the dispositions from before the load
 * are put back). Without libfabric, open and enc_net_check return -ENODEV and the dlopen error
 * is logged (and given as enc_net_check's reason).
 *
 * Limits: an op's tag fits in 40 bits; at most 65536 ranks; a provider that needs local memory
 * registration (FI_MR_LOCAL) is not supported.
 *
 * Errors in B2 and the barrier: a completion error ends the block with the provider's error
 * (its text goes to the log and to encnet:error); once a process of the job died (the bus's
 * pidfd liveness), the unfinished ops and barriers fail with -ESRCH, naming the dead rank and
 * pid - those with a live peer too, as the job can no longer finish a collective - and nothing
 * is posted to a peer known dead.
 *
 * A process that dies *inside* a libfabric call can leave the shm provider's lock of a shared
 * region held for good; a peer that then sends to it (or progresses a region that process was
 * writing to) spins inside libfabric forever. No check outside libfabric can rule that out:
 * choose "tcp" where processes may die mid-call. (The workload's kill fault stops the process's
 * workers between two calls before it dies, so it does not hit this.)
 */
#ifndef PROXYSCOPE_NET_OFI_H
#define PROXYSCOPE_NET_OFI_H

#include <proxyscope/export.h>
#include <proxyscope/net.h>

#ifdef __cplusplus
extern "C" {
#endif

ENC_API extern const struct enc_net_ops enc_net_ofi_ops;

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_NET_OFI_H */
