/* SPDX-License-Identifier: MIT */
/*
 * A fake seam backend for the driver's unit tests, registered as "fake". Every block reports
 * idle for `idle_ticks` progress calls, then done; calls are counted; a test can make the next
 * start or progress call block until it releases it, and can make calls fail.
 */
#ifndef TEST_FAKE_NET_H
#define TEST_FAKE_NET_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/net.h>

struct fake_net_counts {
	uint64_t opens, closes, starts, progresses, stops, barriers;
	uint64_t live_reqs; /* started, not stopped */
};

void fake_net_register(void);
void fake_net_reset(void);
void fake_net_set_idle_ticks(unsigned ticks);
void fake_net_set_progress_error(int rc);  /* next progress calls return rc (0 = none) */
void fake_net_set_start_error(int rc);
void fake_net_counts(struct fake_net_counts *out);

/* The next progress call (any rank) blocks until fake_net_release(); wait until it is blocked. */
void fake_net_arm_progress_block(void);
void fake_net_arm_start_block(void);
void fake_net_wait_blocked(void);
void fake_net_release(void);

#endif /* TEST_FAKE_NET_H */
