/* SPDX-License-Identifier: MIT */
/*
 * The simulator's tracepoint definitions (the encdev provider), in the dynamic-linkage layout
 * as the driver's are in lib/common/trace.c. The probes are in libproxyscope-tp.so, which the
 * driver loads; the simulator only defines its call sites.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE

#include "sim.h"
