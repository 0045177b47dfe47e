/* SPDX-License-Identifier: MIT */
/* Umbrella header for the proxyscope driver library (the simulator's device.h and workload.h
 * are not part of it: sim/). */
#ifndef PROXYSCOPE_H
#define PROXYSCOPE_H

#include <proxyscope/bananaphone.h>
#include <proxyscope/config.h>
#include <proxyscope/log.h>
#include <proxyscope/net.h>
#include <proxyscope/net_loop.h>
#include <proxyscope/proxy.h>
#include <proxyscope/trace.h>

#endif /* PROXYSCOPE_H */
