/* SPDX-License-Identifier: MIT */
/* How a thread spins on its CPU. */
#ifndef ENC_UTIL_CPU_H
#define ENC_UTIL_CPU_H

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

#endif /* ENC_UTIL_CPU_H */
