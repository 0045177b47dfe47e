/* SPDX-License-Identifier: MIT */
/* bench_ofi: the proxy's ping-pong over the ofi backend against fi_pingpong (see bench_ofi.c). */
#ifndef BENCH_OFI_H
#define BENCH_OFI_H

#include <stddef.h>

struct bench_ofi_result {
	double one_way_us; /* half the mean round trip */
	double mb_per_s;   /* bytes / one-way time (fi_pingpong's MB/sec: 10^6 bytes) */
};

/* Run fi_pingpong server and client on @provider, bound to cpu[0] and cpu[1] (-1: not
 * bound); 0, or -errno / -EPROTO (unparsable). */
int bench_fi_pingpong(const char *provider, size_t bytes, unsigned iters, unsigned port,
		      const int cpu[2], struct bench_ofi_result *out);

int open_devnull(void);

/* Bind the calling process to @cpu (-1: leave it as it is); 0, or -1 with a message. */
int bench_bind_to(int cpu);

/* floor.c: one-way us of a bare two-process ping-pong, direct and through a worker thread per
 * process (yield-loop hand-offs), process p bound to cpu[p] (-1: not bound): the least a
 * thread-per-process proxy adds. 0 or -errno. */
int bench_handoff_floor(unsigned rounds, const int cpu[2], double *direct_us, double *proxied_us);

#endif /* BENCH_OFI_H */
