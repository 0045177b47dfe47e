/* SPDX-License-Identifier: MIT */
/*
 * Jobs across hosts: what a PMIx launcher (`mpirun`, `srun --mpi=pmix`) tells a process, and the
 * bootstrap across hosts that the network backends use.
 *
 * The bananaphone bus stays the host-local rendezvous. Across hosts, the local leader of each
 * host (local rank 0) publishes its host's table through PMIx (PMIx_Put, Commit, Fence, Get)
 * and hands the gathered tables to its local ranks over the bus. A process started without a
 * PMIx launcher (no PMIX_NAMESPACE in its environment), or a library built without PMIx
 * (-DWITH_PMIX=OFF), has no bootstrap across hosts: every rank must then be on this host.
 */
#ifndef PROXYSCOPE_LAUNCHER_H
#define PROXYSCOPE_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct enc_launcher {
	bool pmix;            /* started by a PMIx launcher; the fields below are valid */
	uint32_t rank;        /* this process among the job's processes */
	uint32_t size;        /* the job's processes, on every host */
	uint32_t local_rank;  /* this process among those of its host */
	uint32_t local_size;  /* the job's processes on this host */
	char host[64];        /* the launcher's name for this host */
};

/*
 * Ask the launcher. Returns 0 with l->pmix false when there is none (or PMIx is not built in),
 * 0 with the fields filled when there is, or a negative errno when PMIx fails to answer.
 */
ENC_API int enc_launcher_get(struct enc_launcher *l);

/*
 * The bootstrap across hosts, as the network backend sees it (enc_net_open_args.xhost).
 * allgather: every process of the job calls it, in the same order. The host's leader passes its
 * host's table in @mine (@len bytes) and gets in *@out every host's table, in the order of the
 * leaders' launcher ranks, each as a uint32_t length followed by that many bytes (*@out_len in
 * all; malloc'd, the caller frees); the other processes pass @mine NULL and get *@out NULL.
 * Returns 0 or a negative errno.
 */
struct enc_xhost_ops {
	int (*allgather)(void *ctx, const void *mine, size_t len, void **out, size_t *out_len);
};

struct enc_xhost {
	const struct enc_xhost_ops *ops;
	void *ctx;
};

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_LAUNCHER_H */
