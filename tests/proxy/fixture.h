/* SPDX-License-Identifier: MIT */
/* Shared helpers for the driver tests: a captured log, thread counting, a context builder. */
#ifndef TEST_PROXY_FIXTURE_H
#define TEST_PROXY_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/proxy.h>

/* Capture every library message (any level) into a buffer the tests can search. */
void fx_log_capture(void);
bool fx_log_contains(const char *needle);
void fx_log_clear(void);

/* Number of threads of this process whose name starts with "proxy-". */
int fx_count_proxy_threads(void);

/* Poll @pred (every 100 us) until it holds or @ms milliseconds passed; its last answer. */
bool fx_wait_until(bool (*pred)(void *), void *arg, unsigned ms);

/* A config using the fake backend (registered on first use). */
void fx_fake_config(struct enc_config *cfg, uint32_t ranks_per_proxy);

/* A context with one basic block of one send op on stream 0 (no real buffer needed by the fake),
 * one trigger word (*trigger, set to not-ready) and the device-wait policy as given. */
struct fx_ctx {
	struct enc_context ctx;
	struct enc_bb bb;
	struct enc_net_op op;
	void *src[1];
	void *dst[1];
	char buf[8];
	uint32_t trigger;
	uint64_t sema;
};
void fx_ctx_init(struct fx_ctx *f, struct enc_comm *comm, uint64_t exec_id, bool device_wait);

#endif /* TEST_PROXY_FIXTURE_H */
