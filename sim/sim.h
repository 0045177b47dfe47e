/* SPDX-License-Identifier: MIT */
/*
 * What the simulator's units share: its log lines (through the driver's log hook, as the
 * driver's own are) and its tracepoints (the encdev provider, defined in sim_trace.c). The
 * simulator is built on the driver's public API and proxyscope/hook.h only.
 */
#ifndef ENC_SIM_H
#define ENC_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <proxyscope/hook.h>

#if ENC_WITH_LTTNG
#include "encdev_tp.h"
#endif
#include "proxyscope/trace_fire.h"

#define sim_err(...) enc_hook_log(ENC_LOG_ERROR, __VA_ARGS__)
#define sim_warn(...) enc_hook_log(ENC_LOG_WARN, __VA_ARGS__)

/*
 * The stack of a rank thread: its deepest path is a log line or a tracepoint under a few frames,
 * far below glibc's default of 8 MiB (the stack rlimit), which would reserve 32 GiB of address
 * space for 4096 ranks. (The device threads keep the default: see thread_start in device.c.)
 */
#define SIM_THREAD_STACK (256u * 1024u)

/*
 * When a process's threads crowd the CPUs (more than 4 a CPU), the waiting ones together wake
 * for nothing at most this often a second: each polls no more often than every threads / this
 * seconds. Below that crowding every poll keeps its own interval.
 */
#define SIM_IDLE_WAKES_PER_S 20000u

/* True when @threads polling threads of this process crowd the CPUs. */
static inline bool sim_crowded(uint32_t threads)
{
	/* RELAXED: racing first callers both store the same count (sysconf reads a file). */
	static long cpus;
	long n = __atomic_load_n(&cpus, __ATOMIC_RELAXED);

	if (!n) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		n = n > 0 ? n : 1;
		__atomic_store_n(&cpus, n, __ATOMIC_RELAXED);
	}
	return threads > 4u * (uint32_t)n;
}

/*
 * The longest a thread among @threads polling ones should go between two polls of a wait it
 * polls every @base_us: @base_us, or when they crowd the CPUs the interval that keeps their
 * wake-ups within SIM_IDLE_WAKES_PER_S (why: see docs/ARCHITECTURE.md, Decisions measured: the
 * simulator's polls grow with its ranks).
 */
static inline uint64_t sim_poll_max_us(uint32_t base_us, uint32_t threads)
{
	uint64_t us = (uint64_t)threads * 1000000u / SIM_IDLE_WAKES_PER_S;

	return sim_crowded(threads) && us > base_us ? us : base_us;
}

#endif /* ENC_SIM_H */
