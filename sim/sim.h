/* SPDX-License-Identifier: MIT */
/*
 * What the simulator's units share: its log lines (through the driver's log hook, as the
 * driver's own are) and its tracepoints (the encdev provider, defined in sim_trace.c). The
 * simulator is built on the driver's public API and proxyscope/hook.h only.
 */
#ifndef ENC_SIM_H
#define ENC_SIM_H

#include <proxyscope/hook.h>

#if ENC_WITH_LTTNG
#include "encdev_tp.h"
#endif
#include "proxyscope/trace_fire.h"

#define sim_err(...) enc_hook_log(ENC_LOG_ERROR, __VA_ARGS__)
#define sim_warn(...) enc_hook_log(ENC_LOG_WARN, __VA_ARGS__)

#endif /* ENC_SIM_H */
