/* SPDX-License-Identifier: MIT */
/* cmocka checks shared by the bananaphone tests: a rank's result line, and nothing leaked. */
#ifndef BP_TEST_H
#define BP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "bp_harness.h"

#ifndef BP_WAIT_SCALE
#define BP_WAIT_SCALE 1 /* 5 under a sanitizer */
#endif
#define BP_WAIT_MS (20000 * BP_WAIT_SCALE) /* a rank still running after this hangs: it fails */

/* Wait for @p; it must exit normally with "result rc=@want_rc" and no fd or mapping leaked. */
static inline void bp_expect(struct bp_proc *p, int want_rc)
{
	bool ok = bp_proc_wait(p, BP_WAIT_MS);

	if (!ok || !WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0 ||
	    bp_proc_field(p, "result", "rc", 999) != want_rc)
		fprintf(stderr, "rank pid %d (status 0x%x) printed:\n%s", (int)p->pid, p->status,
			p->buf);
	assert_true(ok);
	assert_true(WIFEXITED(p->status));
	assert_int_equal(WEXITSTATUS(p->status), 0);
	assert_int_equal(bp_proc_field(p, "result", "rc", 999), want_rc);
	assert_int_equal(bp_proc_field(p, "result", "fd_leak", 999), 0);
	assert_int_equal(bp_proc_field(p, "result", "map_leak", 999), 0);
}

/* Wait until the bus name of @job exists (its leader listens), at most @ms. */
static inline void bp_wait_name(const char *job, unsigned ms)
{
	for (unsigned i = 0; i < ms && !bp_bus_name_exists(job); i++)
		bp_sleep_ms(1);
	assert_true(bp_bus_name_exists(job));
}

#endif /* BP_TEST_H */
