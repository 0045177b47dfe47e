/* What the calling thread may run on, and how it spins on it. */
#ifndef ENC_COMMON_CPU_H
#define ENC_COMMON_CPU_H

#include <sched.h>
#include <stdbool.h>

/*
 * Whether this thread may run on more than one CPU (its affinity, read once per thread). A
 * thread that yields to wait for another only gains when the other can run meanwhile on a
 * second CPU; alone on one, every yield is one more switch.
 */
static inline bool enc_thread_may_run_elsewhere(void)
{
	static _Thread_local int cpus; /* 0: not read yet */

	if (!cpus) {
		cpu_set_t set;

		cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
		if (cpus < 1)
			cpus = 1;
	}
	return cpus > 1;
}

/* One iteration of a spin-wait: tells the CPU (or its SMT sibling) that this thread waits. */
static inline void enc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* ENC_COMMON_CPU_H */
