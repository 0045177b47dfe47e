/* Umbrella header for the proxyscope driver library. */
#ifndef PROXYSCOPE_H
#define PROXYSCOPE_H

#include <proxyscope/bananaphone.h>
#include <proxyscope/config.h>
#include <proxyscope/device.h>
#include <proxyscope/log.h>
#include <proxyscope/net.h>
#include <proxyscope/net_loop.h>
#include <proxyscope/proxy.h>
#include <proxyscope/trace.h>
#include <proxyscope/workload.h>

#endif /* PROXYSCOPE_H */
