/* SPDX-License-Identifier: MIT */
/*
 * The probe provider: libproxyscope-tp.so, the only object that links liblttng-ust.
 * libproxyscope loads it at start-up when it is present (or it is LD_PRELOADed); without it the
 * driver's tracepoints stay disabled and cost one predicted branch each.
 *
 * The reference table below names the tracepoint of every event in the catalogue
 * (proxyscope/trace_events.h): an event missing from a provider header fails the build here.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "bananaphone_tp.h"
#include "encdev_tp.h"
#include "encnet_tp.h"
#include "encproxy_tp.h"

/* The event descriptor CREATE_PROBES generated for each catalogue entry. */
#define ENC_TP_REF(provider, event, level) &lttng_ust__event_desc___##provider##_##event,

const struct lttng_ust_event_desc *const enc_tp_catalogue[] = { ENC_TP_ALL_EVENTS(ENC_TP_REF) };
