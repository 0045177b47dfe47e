/* SPDX-License-Identifier: MIT */
/*
 * Simulated hosts: holders of namespaces, the bridge and the veth links made with `ip`, a
 * session daemon per host, and the teardown. See hosts.h for the design.
 */
#include "hosts.h"
#include "hosts_sweep.h"
#include "spawn.h"
#include "spawn_ready.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

_Static_assert(HOSTS_MAX + 2 <= HOSTS_SWEEP_MAX, "the keeper keeps every host's namespace");

static const char *const ns_names[HOSTS_NS_NR] = { "net", "uts", "mnt" };
static const int ns_types[HOSTS_NS_NR] = { CLONE_NEWNET, CLONE_NEWUTS, CLONE_NEWNS };

static int file_write(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);
	int e = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		e = errno ? -errno : -EIO;
	if (close(fd) < 0 && !e)
		e = -errno;
	return e;
}

/* The holder: make the namespaces, set them up, report, then sleep until killed. */
static void holder_main(const struct host *host, bool mounts, const char *hosts_file, int wfd,
			pid_t parent)
{
	int e = 0;

	if (getppid() != parent) /* we died before PR_SET_PDEATHSIG was set (ctl_spawn) */
		_exit(1);
	if (unshare(CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWNS) < 0)
		e = errno;
	else if (sethostname(host->name, strlen(host->name)) < 0)
		e = errno;
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		e = errno;
	else if (mounts) {
		mkdir("/run/lttng", 0755);
		if (mount("proxyscope-host", "/run/lttng", "tmpfs", 0, "mode=0755") < 0 ||
		    mount(hosts_file, "/etc/hosts", NULL, MS_BIND, NULL) < 0)
			e = errno;
	}
	if (write(wfd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(1);
	close(wfd);
	if (e)
		_exit(1);
	for (;;)
		pause();
}

struct holder_arg {
	const struct host *host;
	bool mounts;
	const char *hosts_file;
	int *p;
	pid_t parent;
};

static void holder_child(void *arg)
{
	struct holder_arg *a = arg;

	close(a->p[0]);
	holder_main(a->host, a->mounts, a->hosts_file, a->p[1], a->parent);
}

static int holder_start(struct hosts *h, struct host *host, bool mounts, char *err,
			size_t errlen)
{
	struct holder_arg ha;
	char hosts_file[96], path[64];
	pid_t parent = getpid(), pid;
	struct stat st;
	int p[2], e = 0;

	snprintf(hosts_file, sizeof(hosts_file), "%s/hosts", h->dir);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	ha = (struct holder_arg){ host, mounts, hosts_file, p, parent };
	e = ctl_spawn(&(struct ctl_spawn_opts){ .main = holder_child, .arg = &ha,
						.pdeathsig = SIGKILL, .ignore_int_quit = true }, &pid);
	if (e) {
		close(p[0]);
		close(p[1]);
		return e;
	}
	close(p[1]);
	host->holder = pid;
	if (read(p[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = EIO;
	close(p[0]);
	if (e) {
		snprintf(err, errlen, "cannot make the namespaces of host '%s': %s", host->name,
			 strerror(e));
		return -e;
	}
	for (int i = 0; i < HOSTS_NS_NR; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns_names[i]);
		host->ns_fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (host->ns_fd[i] < 0) {
			e = -errno;
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-e));
			return e;
		}
	}
	if (fstat(host->ns_fd[HOSTS_NS_NET], &st) < 0)
		return -errno;
	host->netns_ino = (uint64_t)st.st_ino;
	hosts__keeper_note(h->keeper_fd, host->netns_ino);
	return 0;
}

int host_enter(const struct host *host)
{
	char cwd[PATH_MAX];
	bool have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;

	for (int i = 0; i < HOSTS_NS_NR; i++)
		if (setns(host->ns_fd[i], ns_types[i]) < 0)
			return -errno;
	/* Entering a mount namespace moves to its root; the paths are the same in there. */
	if (have_cwd && chdir(cwd) < 0)
		return -errno;
	return 0;
}

/*
 * Through nsenter(1) rather than setns in the forked child: entering a mount namespace needs a
 * single-threaded caller, and a child of a sanitized (ThreadSanitizer) build is not one - its
 * runtime starts a thread in every forked child.
 */
void host_nsenter(const struct host *host, struct host_nsenter *ns)
{
	snprintf(ns->target, sizeof(ns->target), "%d", (int)host->holder);
	snprintf(ns->wd, sizeof(ns->wd), "--wd=");
	if (getcwd(ns->wd + 5, sizeof(ns->wd) - 5) == NULL)
		snprintf(ns->wd, sizeof(ns->wd), "--wd=/");
	ns->argv[0] = "nsenter";
	ns->argv[1] = "-t";
	ns->argv[2] = ns->target;
	ns->argv[3] = "-n";
	ns->argv[4] = "-u";
	ns->argv[5] = "-m";
	ns->argv[6] = ns->wd;
	ns->argv[7] = "--";
	ns->argv[HOSTS_NSENTER_ARGC] = NULL;
}

int host_spawn(const struct host *host, char *const argv[], const char *stdin_path, pid_t *out)
{
	struct host_nsenter ns;
	size_t n = 0;
	char **v;
	pid_t pid;
	int e;

	while (argv[n])
		n++;
	v = calloc(n + HOSTS_NSENTER_ARGC + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	host_nsenter(host, &ns);
	memcpy(v, ns.argv, HOSTS_NSENTER_ARGC * sizeof(*v));
	memcpy(&v[HOSTS_NSENTER_ARGC], argv, (n + 1) * sizeof(*v));
	e = ctl_spawn(&(struct ctl_spawn_opts){ .argv = v, .stdin_path = stdin_path,
						.default_int_quit = true }, &pid);
	free(v);
	if (e)
		return e;
	*out = pid;
	return 0;
}

int host_run(const struct host *host, char *const argv[], const char *stdin_path)
{
	int st, e;
	pid_t pid;

	e = host_spawn(host, argv, stdin_path, &pid);
	if (e < 0)
		return e;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* Run @text as an `ip -batch` file on @host. */
static int ip_batch(struct hosts *h, const struct host *host, const char *text, char *err,
		    size_t errlen)
{
	char path[128];
	char *argv[] = { "ip", "-batch", path, NULL };
	int rc;

	snprintf(path, sizeof(path), "%s/ip-%s", h->dir, host->name);
	rc = file_write(path, text, 0644);
	if (rc == 0)
		rc = host_run(host, argv, NULL);
	unlink(path);
	if (rc != 0) {
		snprintf(err, errlen, "cannot set up the network of '%s': ip -batch exited %d",
			 host->name, rc);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

static void host_names(struct hosts *h)
{
	for (unsigned i = 0; i < h->n; i++) {
		struct host *s = &h->host[i];

		snprintf(s->name, sizeof(s->name), "host%u", i);
		snprintf(s->addr, sizeof(s->addr), HOSTS_NET ".%u", i + 1);
		snprintf(s->link, sizeof(s->link), "vh%u", i);
	}
	snprintf(h->collector.name, sizeof(h->collector.name), HOSTS_COLLECTOR);
	snprintf(h->collector.addr, sizeof(h->collector.addr), HOSTS_NET ".254");
	snprintf(h->collector.link, sizeof(h->collector.link), "vc");
	snprintf(h->sw.name, sizeof(h->sw.name), "switch");
}

/* Every host on the bridge: the simulated ones, then the collector. */
static struct host *bridged(struct hosts *h, unsigned i)
{
	return i < h->n ? &h->host[i] : &h->collector;
}

/* /etc/hosts of every host, mpirun's hostfile and its launch agent. */
static int runtime_files(struct hosts *h)
{
	char text[HOSTS_MAX * 48 + 512], path[128];
	size_t len;
	int e;

	len = (size_t)snprintf(text, sizeof(text), "127.0.0.1\tlocalhost\n");
	for (unsigned i = 0; i <= h->n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\t%s\n",
					bridged(h, i)->addr, bridged(h, i)->name);
	snprintf(path, sizeof(path), "%s/hosts", h->dir);
	e = file_write(path, text, 0644);
	if (e)
		return e;

	len = 0;
	for (unsigned i = 0; i < h->n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s slots=%d\n",
					h->host[i].name, 256);
	snprintf(h->hostfile, sizeof(h->hostfile), "%s/hostfile", h->dir);
	e = file_write(h->hostfile, text, 0644);
	if (e)
		return e;

	/* mpirun calls its rsh agent as ssh: options, the host, then a command line for a shell. */
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "# `agent [OPTIONS] HOST CMD...` runs CMD with sh -c on simulated host HOST,\n"
		 "# as ssh would: the launch agent of mpirun (plm_rsh_agent) for proxyscope's hosts.\n"
		 "while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done\n"
		 "host=$1; shift\n"
		 "pid=$(cat \"%s/$host.pid\") || exit 255\n"
		 "exec nsenter -t \"$pid\" -n -u -m -- sh -c \"$*\"\n",
		 h->dir);
	snprintf(h->agent, sizeof(h->agent), "%s/agent", h->dir);
	return file_write(h->agent, text, 0755);
}

static int pid_files(struct hosts *h)
{
	char path[128], text[32];

	for (unsigned i = 0; i <= h->n; i++) {
		int e;

		snprintf(path, sizeof(path), "%s/%s.pid", h->dir, bridged(h, i)->name);
		snprintf(text, sizeof(text), "%d\n", (int)bridged(h, i)->holder);
		e = file_write(path, text, 0644);
		if (e)
			return e;
	}
	return 0;
}

static int network_up(struct hosts *h, char *err, size_t errlen)
{
	char text[HOSTS_MAX * 128 + 256];
	size_t len;
	int e;

	len = (size_t)snprintf(text, sizeof(text),
			       "link set lo up\nlink add br0 type bridge\nlink set br0 up\n");
	for (unsigned i = 0; i <= h->n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"link add %s type veth peer name " HOSTS_IFNAME " netns %d\n"
					"link set %s master br0 up\n",
					bridged(h, i)->link, (int)bridged(h, i)->holder,
					bridged(h, i)->link);
	e = ip_batch(h, &h->sw, text, err, errlen);
	for (unsigned i = 0; !e && i <= h->n; i++) {
		snprintf(text, sizeof(text),
			 "link set lo up\naddr add %s/24 dev " HOSTS_IFNAME "\nlink set " HOSTS_IFNAME
			 " up\n",
			 bridged(h, i)->addr);
		e = ip_batch(h, bridged(h, i), text, err, errlen);
	}
	return e;
}

/* How long a host's session daemon may take to answer: seconds on a loaded machine. */
#define SESSIOND_READY_MS 30000u

/* Does @arg's (a host's) session daemon answer? Its client socket, seen through the holder's
 * root (the host's mount namespace), accepts a connection - what liblttng-ctl asks too. */
static bool sessiond_answers(void *arg)
{
	const struct host *host = arg;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	bool ok;
	int fd;

	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/%d/root/run/lttng/client-lttng-sessiond",
		 (int)host->holder);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ok = connect(fd, (const struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/*
 * The host's lttng-sessiond, in the foreground as our child (through nsenter, which execs it):
 * not --daemonize, whose setsid() puts it and its consumer daemons in a scheduling autogroup of
 * their own. The job's orted and ranks stay in our session; beside them, spinning in a stall,
 * a daemonized host's consumer starved and its live stream fell seconds behind (a partition was
 * named 5.2 s after it, bound 3 s; docs/decisions.md, "a session daemon we start stays in our
 * session"). A process group of its own: the terminal's Ctrl-C is ours to handle. Not owned
 * (ctl_signals_own): after a third Ctrl-C the keeper sweeps the hosts.
 */
static int sessiond_start(struct host *host, char *err, size_t errlen)
{
	struct ctl_spawn_ready w = { .ready = sessiond_answers, .arg = host,
				     .timeout_ms = SESSIOND_READY_MS };
	char *argv[HOSTS_NSENTER_ARGC + 3];
	struct host_nsenter ns;
	int rc;

	host_nsenter(host, &ns);
	memcpy(argv, ns.argv, HOSTS_NSENTER_ARGC * sizeof(*argv));
	argv[HOSTS_NSENTER_ARGC] = "lttng-sessiond";
	argv[HOSTS_NSENTER_ARGC + 1] = "--no-kernel"; /* as root it would load kernel modules */
	argv[HOSTS_NSENTER_ARGC + 2] = NULL;
	rc = ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv, .own_group = true,
						      .empty_mask = true,
						      .say_exec_error_short = true },
			     &w);
	host->sessiond = w.pid;
	if (rc == -ECHILD)
		snprintf(err, errlen, "cannot start lttng-sessiond on '%s': %s", host->name, w.said);
	else if (rc == -EINTR)
		snprintf(err, errlen, "interrupted while lttng-sessiond started on '%s'", host->name);
	else if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "lttng-sessiond on '%s' started but does not answer within %u s",
			 host->name, SESSIOND_READY_MS / 1000);
	else if (rc)
		snprintf(err, errlen, "cannot start lttng-sessiond on '%s': %s", host->name,
			 strerror(-rc));
	return rc;
}

static void host_init(struct host *host)
{
	host->holder = 0;
	host->sessiond = 0;
	host->netns_ino = 0;
	for (int i = 0; i < HOSTS_NS_NR; i++)
		host->ns_fd[i] = -1;
}

int hosts_create(const struct hosts_opts *o, struct hosts **out, char *err, size_t errlen)
{
	struct hosts *h;
	int e;

	*out = NULL;
	if (geteuid() != 0) {
		snprintf(err, errlen, "simulated hosts need root (network, UTS and mount "
				      "namespaces); run as root");
		return -EPERM;
	}
	if (o->n < 1 || o->n > HOSTS_MAX) {
		snprintf(err, errlen, "hosts: %u is not in 1..%d", o->n, HOSTS_MAX);
		return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->n = o->n;
	h->keeper_fd = -1;
	h->keeper_done_fd = -1;
	host_init(&h->sw);
	host_init(&h->collector);
	for (unsigned i = 0; i < h->n; i++)
		host_init(&h->host[i]);
	host_names(h);
	snprintf(h->dir, sizeof(h->dir), "/tmp/proxyscope-hosts.XXXXXX");
	if (!mkdtemp(h->dir)) {
		e = -errno;
		snprintf(err, errlen, "cannot make a runtime directory: %s", strerror(-e));
		h->dir[0] = '\0';
		goto out_destroy;
	}
	e = runtime_files(h);
	if (!e)
		e = hosts__keeper_start(h->dir, &h->keeper_fd, &h->keeper_done_fd);
	if (e) {
		snprintf(err, errlen, "cannot prepare '%s': %s", h->dir, strerror(-e));
		goto out_destroy;
	}
	e = holder_start(h, &h->sw, false, err, errlen);
	for (unsigned i = 0; !e && i <= h->n; i++)
		e = holder_start(h, bridged(h, i), true, err, errlen);
	if (!e && (e = pid_files(h)))
		snprintf(err, errlen, "cannot write into '%s': %s", h->dir, strerror(-e));
	if (!e)
		e = network_up(h, err, errlen);
	for (unsigned i = 0; !e && o->sessiond && i < h->n; i++)
		e = sessiond_start(&h->host[i], err, errlen);
	if (e)
		goto out_destroy;
	*out = h;
	return 0;

out_destroy:
	hosts_destroy(h);
	return e;
}

static void host_release(struct host *host)
{
	for (int i = 0; i < HOSTS_NS_NR; i++)
		if (host->ns_fd[i] >= 0) {
			close(host->ns_fd[i]);
			host->ns_fd[i] = -1;
		}
	if (host->holder > 0) {
		kill(host->holder, SIGKILL);
		while (waitpid(host->holder, NULL, 0) < 0 && errno == EINTR)
			;
		host->holder = 0;
	}
}

/* The session daemon we started on @host, once the sweep ended it: reaped (a zombie of ours
 * otherwise, to the end of the CLI). */
static void sessiond_reap(struct host *host)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (host->sessiond <= 0)
		return;
	for (int i = 0; i < 300 && !ctl_child_gone(host->sessiond); i++) {
		if (i == 100)
			kill(host->sessiond, SIGKILL);
		nanosleep(&tick, NULL);
	}
	host->sessiond = 0;
}

void hosts_destroy(struct hosts *h)
{
	uint64_t inos[HOSTS_MAX + 2];
	unsigned n = 0;

	if (!h)
		return;
	for (unsigned i = 0; i <= h->n; i++)
		if (bridged(h, i)->netns_ino)
			inos[n++] = bridged(h, i)->netns_ino;
	if (h->sw.netns_ino)
		inos[n++] = h->sw.netns_ino;
	/* The daemons and whatever else runs inside first (SIGTERM: they stop cleanly), then the
	 * holders; the namespaces, their links and mounts go with their last process. */
	hosts_sweep_all(inos, n, 3000);
	for (unsigned i = 0; i < h->n; i++)
		sessiond_reap(&h->host[i]);
	for (unsigned i = 0; i <= h->n; i++)
		host_release(bridged(h, i));
	host_release(&h->sw);
	if (h->keeper_done_fd >= 0) {
		char c;

		/* End of file on its pipe: the keeper sweeps what is left and exits, closing ours. */
		close(h->keeper_fd);
		for (;;) {
			ssize_t r = read(h->keeper_done_fd, &c, 1);

			if (r == 0 || (r < 0 && errno != EINTR))
				break;
		}
		close(h->keeper_done_fd);
	} else {
		hosts__dir_remove(h->dir);
	}
	free(h);
}

int hosts_link_set(struct hosts *h, const struct host *host, bool up)
{
	char *argv[] = { "ip", "link", "set", (char *)host->link, up ? "up" : "down", NULL };
	int rc = host_run(&h->sw, argv, NULL);

	return rc == 0 ? 0 : rc < 0 ? rc : -EIO;
}

int host_link_down_here(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), e = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", HOSTS_IFNAME);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		e = -errno;
	} else {
		ifr.ifr_flags &= (short)~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			e = -errno;
	}
	close(fd);
	return e;
}

int hosts_links_heal(struct hosts *h)
{
	char *argv[] = { "ip", "link", "set", HOSTS_IFNAME, "up", NULL };
	int first = 0;

	for (unsigned i = 0; i < h->n; i++) {
		int rc = host_run(&h->host[i], argv, NULL);

		if (rc && !first)
			first = rc < 0 ? rc : -EIO;
	}
	return first;
}

struct host *hosts_find(struct hosts *h, const char *name)
{
	if (!strcmp(name, h->collector.name))
		return &h->collector;
	for (unsigned i = 0; i < h->n; i++)
		if (!strcmp(name, h->host[i].name))
			return &h->host[i];
	return NULL;
}

int hosts_env_export(const struct hosts *h)
{
	char names[HOSTS_MAX * 8 + 8] = "", addrs[HOSTS_MAX * 16 + 8] = "";
	size_t nl = 0, al = 0;

	for (unsigned i = 0; i < h->n; i++) {
		nl += (size_t)snprintf(names + nl, sizeof(names) - nl, "%s%s", i ? " " : "",
				       h->host[i].name);
		al += (size_t)snprintf(addrs + al, sizeof(addrs) - al, "%s%s", i ? " " : "",
				       h->host[i].addr);
	}
	if (setenv("PROXYSCOPE_HOSTS", names, 1) || setenv("PROXYSCOPE_HOST_ADDRS", addrs, 1) ||
	    setenv("PROXYSCOPE_HOSTFILE", h->hostfile, 1) || setenv("PROXYSCOPE_AGENT", h->agent, 1))
		return -errno;
	return hosts_launcher_env();
}

int hosts_launcher_env(void)
{
	/* PMIx's shared-memory data store lost a local peer's data after a fence here; its hash
	 * store did not in the same runs. Not forced over a value the caller chose. */
	if (setenv("PMIX_MCA_gds", "hash", 0))
		return -errno;
	return 0;
}
