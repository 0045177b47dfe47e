/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the bananaphone tests and by bp_rank: spawning ranks as separate programs
 * (fork + exec of bp_rank), collecting their "key=value" output, and counting what a process
 * holds (open fds, mappings) to prove that nothing leaks.
 */
#ifndef BP_HARNESS_H
#define BP_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Open file descriptors of the kinds bananaphone opens: pidfds, its memfd, SOCK_SEQPACKET
 * unix sockets, and /proc files. Counting only these keeps the leak checks exact when
 * something else in the process opens fds on its own schedule (LTTng-UST does, once a
 * tracing session is active).
 */
int bp_count_fds(void);
/* Lines of /proc/self/maps that contain @needle. */
int bp_count_maps(const char *needle);
/* True when an abstract unix socket "@proxyscope-bp:<job>" exists (/proc/net/unix). */
bool bp_bus_name_exists(const char *job);
/* A job name unique to this test process: "<tag>-<pid>-<n>". */
void bp_job_name(char *buf, size_t size, const char *tag);
uint64_t bp_now_ns(void);
void bp_sleep_ms(unsigned ms);

/* One bp_rank process and what it printed. */
struct bp_proc {
	pid_t pid;
	int out;         /* read end of its stdout */
	char buf[4096];
	size_t len;
	int status;      /* waitpid status */
	bool done;
};

/* Fork and exec bp_rank with @scenario, @job, @rank, @nranks, @size and NULL-terminated extra
 * "key=value" arguments. */
void bp_spawn(struct bp_proc *p, const char *scenario, const char *job, unsigned rank,
	      unsigned nranks, unsigned size, ...) __attribute__((sentinel));
/* Collect its output until a line starts with @line (true), it exits or @timeout_ms pass. */
bool bp_proc_wait_line(struct bp_proc *p, const char *line, unsigned timeout_ms);
/* Collect its output until it exits; after @timeout_ms kill it and return false. */
bool bp_proc_wait(struct bp_proc *p, unsigned timeout_ms);
/* Collect the output of all of @ps until the first one exits: its index, or -1 after
 * @timeout_ms (nobody is killed). */
int bp_proc_wait_first(struct bp_proc *const *ps, unsigned n, unsigned timeout_ms);
/* The value of the last "@key=" in its output; *found says whether there was one. */
long long bp_proc_get(const struct bp_proc *p, const char *key, bool *found);
/* The value of "@key=" on the line that starts with @line ("result", "dying"), or @dflt. */
long long bp_proc_field(const struct bp_proc *p, const char *line, const char *key,
			long long dflt);

#endif /* BP_HARNESS_H */
