/* SPDX-License-Identifier: MIT */
/* The fixture of the watchdog tests (see watchdog_fixture.h): cmocka asserts, call it from a
 * test. */
#include "watchdog_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

void wdfx_init(struct wdfx *f, uint64_t threshold_ns)
{
	struct psa_watchdog_opts o = { .threshold_ns = threshold_ns };
	struct psa_observer obs;

	assert_int_equal(psa_model_create(&f->m), 0);
	assert_int_equal(psa_watchdog_create(&o, &f->w), 0);
	psa_watchdog_observer(f->w, &obs);
	assert_int_equal(psa_model_add_observer(f->m, &obs), 0);
	f->now = 1000 * MS;
}

void wdfx_fini(struct wdfx *f)
{
	psa_watchdog_destroy(f->w);
	psa_model_destroy(f->m);
}

const struct psa_stall *wdfx_analyze(struct wdfx *f, size_t *n)
{
	psa_model_finish(f->m);
	assert_int_equal(psa_watchdog_analyze(f->w, f->m), 0);
	return psa_watchdog_stalls(f->w, n);
}
