/* SPDX-License-Identifier: MIT */
/*
 * Driver configuration: one struct, filled with defaults and then from the environment.
 * Every key is documented in README.md ("Configuration"). A malformed value is an error
 * (-EINVAL with a message naming the variable), never a silent default.
 */
#ifndef PROXYSCOPE_CONFIG_H
#define PROXYSCOPE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENC_NET_NAME_MAX 32
#define ENC_NET_PROVIDER_MAX 64

struct enc_config {
	uint32_t ranks_per_network_proxy; /* ENC_RANKS_PER_NETWORK_PROXY: gid = rank / this (>= 1) */
	bool one_thread_per_core;         /* ENC_ONE_THREAD_PER_CORE: busy-spin instead of sched_yield */
	uint32_t proxy_timeout_ms;        /* ENC_PROXY_TIMEOUT_MS: consumer watchdog (>= 1) */
	uint32_t consume_poll_us;         /* ENC_PROXY_CONSUME_POLL_US: longest wait between consumer
					   * polls (woken early when the task is done; 0: busy) */
	uint32_t consume_yield_us;        /* ENC_PROXY_CONSUME_YIELD_US: first poll this long with
					   * sched_yield() between polls, then wait (0: never) */
	bool device_wait;                 /* ENC_PROXY_DEVICE_WAIT: gate network tasks on the trigger */
	bool early_completion;            /* ENC_PROXY_EARLY_COMPLETION: skip the net stage (INIT->DONE) */
	int worker_cpu;                   /* ENC_PROXY_CPU: pin each worker to this CPU; -1 = don't */
	uint32_t worker_linger_us;        /* ENC_PROXY_WORKER_LINGER_US: with nothing left to do, the
					   * worker yields this long before it sleeps (0: never) */
	char net_backend[ENC_NET_NAME_MAX]; /* ENC_NET_BACKEND: seam backend name ("loop") */
	char net_provider[ENC_NET_PROVIDER_MAX]; /* ENC_NET_PROVIDER: the ofi backend's libfabric
						  * provider ("": its default, shm on one host) */
	uint32_t progress_ms;             /* ENC_PROXY_PROGRESS_MS: at most one progress record
					   * (encproxy:task_progress) per network task this often,
					   * while it progresses (default 100; 0: none) */
};

/* Fill @cfg with the defaults documented in README.md. */
ENC_API void enc_config_default(struct enc_config *cfg);

/*
 * Overwrite fields of @cfg from the ENC_* environment variables that are set.
 * Returns 0, or -EINVAL with a one-line reason in @err (if @err is not NULL).
 */
ENC_API int enc_config_from_env(struct enc_config *cfg, char *err, size_t errlen);

/* Same, but from a lookup function instead of getenv (for tests and embedding). */
ENC_API int enc_config_from_lookup(struct enc_config *cfg, const char *(*lookup)(const char *name),
				   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_CONFIG_H */
