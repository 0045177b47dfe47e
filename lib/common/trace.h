/* SPDX-License-Identifier: MIT */
/*
 * The one header lib/ includes to fire tracepoints: the driver's providers (bananaphone,
 * encnet, encproxy) and the firing macros of proxyscope/trace_fire.h. The simulator's provider
 * (encdev) is defined by the simulator (sim/sim_trace.c), not here.
 */
#ifndef ENC_COMMON_TRACE_H
#define ENC_COMMON_TRACE_H

#include "proxyscope/trace_ident.h"

#if ENC_WITH_LTTNG
#include "bananaphone_tp.h"
#include "encnet_tp.h"
#include "encproxy_tp.h"
#endif

#include "proxyscope/trace_fire.h"

#endif /* ENC_COMMON_TRACE_H */
