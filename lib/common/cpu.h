/* What the calling thread may run on. */
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

#endif /* ENC_COMMON_CPU_H */
