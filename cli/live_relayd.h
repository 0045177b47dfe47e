/*
 * A private lttng-relayd for `proxyscope watch` and `run --watch`: started as our child on
 * three free loopback ports (as root there is one relay daemon per machine on the default
 * ports, and a relay daemon writes the trace into its own output directory, so one of our own
 * is what keeps the trace where -o says), stopped by its pid.
 */
#ifndef PROXYSCOPE_CLI_LIVE_RELAYD_H
#define PROXYSCOPE_CLI_LIVE_RELAYD_H

#include <stddef.h>
#include <sys/types.h>

struct live_relayd {
	pid_t pid;                 /* > 0: running, ours to stop */
	unsigned ctrl, data, live; /* its ports on 127.0.0.1 */
	char session_url[64];      /* what `lttng create --set-url` takes */
	char relay_url[64];        /* what a viewer connects to: net://127.0.0.1:LIVE */
};

/*
 * Start lttng-relayd writing under @output (an absolute directory) and wait, at most 5 s,
 * until it accepts viewers. Returns 0 or a negative errno with a reason in @err.
 */
int live_relayd_start(struct live_relayd *r, const char *output, char *err, size_t errlen);

/* Stop it (SIGTERM, then SIGKILL after 5 s) and reap it. */
void live_relayd_stop(struct live_relayd *r);

/*
 * Raise the scheduling priority of @pid (0: the calling thread) to LIVE_NICE, when allowed
 * (root). For the daemons watch starts itself and its reader: a stalled job often spins (its
 * workers yield in a loop), and on a loaded machine the tracer's consumer daemon, which
 * flushes the live stream every timer period, then ran seconds late (measured: 4.7 s without
 * a packet or a beacon at a load of 25 on 2 CPUs). Returns 0 or -errno (ignored by callers:
 * the stream is only slower without it).
 */
#define LIVE_NICE (-10)
int live_boost(pid_t pid);

/* live_boost for every thread of session daemon @sessiond (one we started) and of its
 * consumer daemons, which do the live flushes: call it once the session exists. */
void live_boost_sessiond(pid_t sessiond);

/* Whether a TCP connection to 127.0.0.1:@port is accepted within @timeout_ms. */
int live_port_answers(unsigned port, unsigned timeout_ms);

#endif /* PROXYSCOPE_CLI_LIVE_RELAYD_H */
