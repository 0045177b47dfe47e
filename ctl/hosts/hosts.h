/* SPDX-License-Identifier: MIT */
/*
 * Simulated hosts on this machine, for jobs across hosts (`proxyscope hosts`, `run --hosts`).
 *
 * Each host is a set of namespaces held by one sleeping "holder" process: its own network
 * namespace (one veth link, its address in 198.18.0.0/24, the RFC 2544 benchmarking range, which
 * exists only inside these namespaces), its own hostname (UTS namespace) and its own mounts (a
 * mount namespace with an empty tmpfs on /run/lttng, so each host has its own lttng-sessiond, and
 * a generated /etc/hosts naming every host). The other ends of the veth links meet on a bridge
 * that lives in a namespace of its own (the "switch"), so nothing is ever added to the machine's
 * own network namespace and two jobs at once never see each other. Host `collector` is one more
 * host on the bridge, for the relay daemon and the launcher.
 *
 * The links and addresses are made by running `ip` (iproute2) inside the namespaces, one batch
 * per namespace: it is the tool every administrator reads, it already speaks every netlink
 * message needed (bridge, veth with its peer in another namespace, addresses), and one fork per
 * namespace costs nothing next to starting a session daemon.
 *
 * Teardown kills every process whose network namespace is one of ours (the session daemons and
 * anything started inside a host, found by scanning /proc), then the holders: a namespace goes
 * with its last process, and its veth link and mounts with it. A keeper process (forked first,
 * immune to Ctrl-C, and no descendant of the CLI) does the same sweep when the CLI dies without tearing down - on a signal, a
 * crash or SIGKILL: it reads the namespaces from a pipe and sweeps at end of file.
 */
#ifndef PROXYSCOPE_CTL_HOSTS_H
#define PROXYSCOPE_CTL_HOSTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hosts_sweep.h" /* hosts_sweep, hosts_sweep_all, hosts_ns_refs */

#define HOSTS_MAX 64
#define HOSTS_ERR_MAX 512
#define HOSTS_NET "198.18.0"       /* host i is HOSTS_NET.(i+1), the collector .254 */
#define HOSTS_COLLECTOR "collector"
#define HOSTS_IFNAME "eth0"        /* a host's end of its link, inside its namespace */

enum hosts_ns {
	HOSTS_NS_NET,
	HOSTS_NS_UTS,
	HOSTS_NS_MNT,
	HOSTS_NS_NR
};

struct host {
	char name[32];              /* hostname inside: "host0".., or "collector" */
	char addr[24];              /* its address on the bridge */
	char link[16];              /* its veth end on the switch: "vh0".., "vc" */
	pid_t holder;               /* the process holding its namespaces */
	int ns_fd[HOSTS_NS_NR];     /* the holder's namespaces, for setns */
	uint64_t netns_ino;         /* its network namespace, for the sweep */
	pid_t sessiond;             /* > 0: its lttng-sessiond */
};

struct hosts {
	unsigned n;                     /* simulated hosts, host[0..n-1] */
	struct host host[HOSTS_MAX];
	struct host collector;          /* on the bridge too */
	struct host sw;                 /* the switch: the bridge "br0" and the switch ends */
	char dir[64];                   /* runtime files: hosts, hostfile, agent */
	char hostfile[96];              /* one line per simulated host, for mpirun */
	char agent[96];                /* `agent HOST CMD...` runs CMD on HOST (mpirun's rsh) */
	int keeper_fd;                  /* write end of the keeper's pipe */
	int keeper_done_fd;             /* read end of a pipe the keeper holds until it exits */
};

struct hosts_opts {
	unsigned n;          /* 1..HOSTS_MAX */
	bool sessiond;       /* start an lttng-sessiond on every host (not the collector) */
};

/*
 * Build the hosts. Needs root (else -EPERM and a reason). On failure everything made so far is
 * torn down. Returns 0 or a negative errno with a one-line reason in @err.
 */
int hosts_create(const struct hosts_opts *o, struct hosts **out, char *err, size_t errlen);

/* Tear every host down (processes, links, mounts, runtime files) and free @h. NULL is a no-op. */
void hosts_destroy(struct hosts *h);

/*
 * In a freshly forked child: enter @host's namespaces (network, hostname, mounts). The caller
 * must be single-threaded (entering a mount namespace requires it). Returns 0 or -errno.
 */
int host_enter(const struct host *host);

/*
 * The command prefix that runs a command on @host, as host_spawn does: `nsenter -t HOLDER -n -u
 * -m --wd=CWD --` in @ns->argv (NULL-terminated), for a caller that execs on its own (the lttng
 * client of a host's session, lttng_ctl.h).
 */
#define HOSTS_NSENTER_ARGC 8
struct host_nsenter {
	char target[16];
	char wd[PATH_MAX + 8];
	char *argv[HOSTS_NSENTER_ARGC + 1];
};
void host_nsenter(const struct host *host, struct host_nsenter *ns);

/*
 * Start @argv (PATH searched) on @host with the environment of this process and its working
 * directory, through nsenter(1); its pid in *@pid.
 * @stdin_path: NULL to inherit stdin, else a file opened as stdin. Returns 0 or -errno.
 */
int host_spawn(const struct host *host, char *const argv[], const char *stdin_path, pid_t *pid);

/* host_spawn and wait: the exit status (0..255), 128+signal, or -errno. */
int host_run(const struct host *host, char *const argv[], const char *stdin_path);

/* Bring @host's link on the switch up or down. Returns 0 or -errno. */
int hosts_link_set(struct hosts *h, const struct host *host, bool up);

/*
 * In a process on a simulated host (the partition fault): take the host's own end of its link
 * down (`ip link set eth0 down` in its network namespace, as one ioctl). The other hosts'
 * packets to it are dropped from then on. Returns 0 or -errno.
 */
int host_link_down_here(void);

/*
 * In a process on a simulated host (the slow-link fault): limit what the host sends to the
 * hosts @hosts[0..n) (their indexes: host i is HOSTS_NET.(i+1)) to @kbit kbit/s, its other
 * traffic unlimited (hosts_link.c); @kbit 0 (the net-break fault): reset this host's TCP
 * connections with them instead. Returns 0, or -errno (-EIO: `tc` or `ss` failed).
 */
int host_link_slow_here(const uint32_t *hosts, size_t n, uint32_t kbit);

/* Bring every simulated host's own end of its link up again (the partition healed), so that
 * what its daemons still hold (mpirun's, the tracer's) reaches the collector. 0 or -errno. */
int hosts_links_heal(struct hosts *h);

/*
 * Export PROXYSCOPE_HOSTS (names), PROXYSCOPE_HOST_ADDRS (addresses, same order),
 * PROXYSCOPE_HOSTFILE and PROXYSCOPE_AGENT into this process's environment, for what runs on
 * the hosts. Returns 0 or -errno.
 */
int hosts_env_export(const struct hosts *h);

/* What mpirun and its processes need on these hosts (PMIX_MCA_gds=hash unless set; see
 * hosts.c); hosts_env_export sets it too. Returns 0 or -errno. */
int hosts_launcher_env(void);

/* The host named @name (a simulated host or the collector), or NULL. */
struct host *hosts_find(struct hosts *h, const char *name);

#endif /* PROXYSCOPE_CTL_HOSTS_H */
