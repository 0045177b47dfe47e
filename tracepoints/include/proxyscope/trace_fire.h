/* SPDX-License-Identifier: MIT */
/*
 * How lib/ and sim/ fire their tracepoints. A unit includes its provider headers first (with
 * LTTng, ENC_WITH_LTTNG: the dynamic-linkage layout, no link-time liblttng-ust), then this;
 * without LTTng every macro compiles to nothing while still "using" its arguments, so call
 * sites need no #if.
 *
 *   enc_tp(provider, event, args...)        fire if enabled (the cheap, common form)
 *   enc_tp_enabled(provider, event)         guard work done only for the event ...
 *   enc_tp_do(provider, event, args...)     ... then fire it (never enc_tp inside the guard)
 */
#ifndef PROXYSCOPE_TRACE_FIRE_H
#define PROXYSCOPE_TRACE_FIRE_H

#include <stdbool.h>

#if ENC_WITH_LTTNG

#define enc_tp(provider, event, ...) lttng_ust_tracepoint(provider, event, __VA_ARGS__)
#define enc_tp_enabled(provider, event) lttng_ust_tracepoint_enabled(provider, event)
#define enc_tp_do(provider, event, ...) lttng_ust_do_tracepoint(provider, event, __VA_ARGS__)

#else

static inline void enc__tp_unused(int unused, ...)
{
	(void)unused;
}

#define enc_tp(provider, event, ...)                         \
	do {                                                 \
		if (0)                                       \
			enc__tp_unused(0, __VA_ARGS__);      \
	} while (0)
#define enc_tp_enabled(provider, event) false
#define enc_tp_do(provider, event, ...) enc_tp(provider, event, __VA_ARGS__)

#endif /* ENC_WITH_LTTNG */

#endif /* PROXYSCOPE_TRACE_FIRE_H */
