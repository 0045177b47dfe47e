/* SPDX-License-Identifier: MIT */
/*
 * Sweeping what the simulated hosts leave (hosts.h): the processes in their network namespaces,
 * and the keeper, a process outside the CLI's tree that sweeps them when the CLI goes away
 * without tearing down. The calls go one way (hosts.c -> hosts_sweep.c): nothing here knows
 * struct hosts, so the sweep is usable on its own (the tests' leak checks).
 */
#ifndef PROXYSCOPE_CTL_HOSTS_SWEEP_H
#define PROXYSCOPE_CTL_HOSTS_SWEEP_H

#include <stdint.h>

/* The namespaces the keeper keeps: every host's, the collector's and one spare (hosts.c checks
 * it against HOSTS_MAX). */
#define HOSTS_SWEEP_MAX 66

/*
 * The processes whose network namespace is one of @inos[0..n-1]: their number (>= 0), killed
 * with @sig when @sig != 0. Used by the teardown, the keeper and the tests' leak checks.
 */
int hosts_sweep(const uint64_t *inos, unsigned n, int sig);

/* Kill them all: SIGTERM, a grace of @grace_ms, then SIGKILL until none is left (bounded). */
void hosts_sweep_all(const uint64_t *inos, unsigned n, unsigned grace_ms);

/* Open file descriptors on one of the namespaces @inos in any process (a namespace kept alive). */
int hosts_ns_refs(const uint64_t *inos, unsigned n);

/* Start the keeper for the runtime directory @dir (removed by it at the end): *@keeper_fd is
 * the pipe to tell it the namespaces, *@done_fd reaches end of file once it is done. Returns 0
 * or -errno. */
int hosts__keeper_start(const char *dir, int *keeper_fd, int *done_fd);
/* Tell the keeper (@keeper_fd < 0: none) about one more namespace to sweep. */
void hosts__keeper_note(int keeper_fd, uint64_t ino);
/* Remove the runtime directory @dir and everything in it (mpirun's session tree too). */
void hosts__dir_remove(const char *dir);

#endif /* PROXYSCOPE_CTL_HOSTS_SWEEP_H */
