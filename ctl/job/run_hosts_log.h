/* SPDX-License-Identifier: MIT */
/*
 * The library's messages of a large run across hosts, digested as one: each process of the job
 * appends its messages to one file in the run's directory (a line per message, written whole
 * by one write(2) on O_APPEND, so lines of processes on other hosts never interleave), and the
 * parent reads that file while mpirun runs and passes each line through the digest
 * (log_digest.h). Digested in each process instead, 64 processes printed the first of each
 * shape 64 times.
 */
#ifndef PROXYSCOPE_CTL_RUN_HOSTS_LOG_H
#define PROXYSCOPE_CTL_RUN_HOSTS_LOG_H

#include <stdbool.h>
#include <stddef.h>

/* In a process of the job: send the library's warnings to the run directory @dir's log.
 * 0, or a negative errno (the messages then stay on stderr). */
int run_hosts_log_child(const char *dir);

/* In that process, once the workload ended: the messages go to stderr again. */
void run_hosts_log_child_end(void);

/* The parent's reading of the log. */
struct run_hosts_log {
	char path[4096];
	int fd;            /* made empty by run_hosts_log_open; -1: it could not be */
	bool digesting;    /* a line was passed to the digest */
	size_t len;        /* bytes of an unfinished line in @buf */
	char buf[4096];
};

void run_hosts_log_open(struct run_hosts_log *l, const char *dir);

/* Pass the lines written since the last call to the digest (at most @max_bytes read). */
void run_hosts_log_pump(struct run_hosts_log *l, size_t max_bytes);

/* Read the rest, say how many messages of each shape were left out, close. */
void run_hosts_log_close(struct run_hosts_log *l);

#endif /* PROXYSCOPE_CTL_RUN_HOSTS_LOG_H */
