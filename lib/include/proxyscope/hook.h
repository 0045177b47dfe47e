/* SPDX-License-Identifier: MIT */
/*
 * The driver's hook for code built on it that is not an application: the simulator
 * (libproxyscope-sim: the simulated devices and the workload harness) and the tests. It is
 * all such code may use beyond the public API; nothing here is needed to drive collectives.
 *
 *   enc_hook_freeze()  the kill fault's safe point: see below
 *   enc_hook_log()     report through the application's log hook (proxyscope/log.h), as the
 *                      driver's own messages do
 */
#ifndef PROXYSCOPE_HOOK_H
#define PROXYSCOPE_HOOK_H

#include <proxyscope/export.h>
#include <proxyscope/log.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * For a process about to die on purpose (the workload's kill fault): stop every proxy worker
 * of this process between two calls into its network backend, and keep them stopped. Takes
 * the driver's locks and never releases them, so the caller must not call into the driver
 * again; it returns once no worker is inside a backend call. A process killed inside
 * libfabric's shm provider can leave a lock of a region it shares with its peers held for good.
 */
ENC_API void enc_hook_freeze(void);

/* Deliver one printf-style message at @level through the log hook (filtered like the driver's). */
ENC_API void enc_hook_log(enum enc_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_HOOK_H */
