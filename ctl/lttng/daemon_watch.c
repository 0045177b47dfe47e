/* SPDX-License-Identifier: MIT */
/*
 * The daemons of a recording watched for their death (daemon_watch.h).
 *
 * Design choice: /proc/PID/stat, read once a poll per daemon, rather than a pidfd each: the
 * daemons are not our children (kill(pid, 0) succeeds on a zombie and on a reused pid), the
 * state and start time say both, and the headers of this Debian may lack pidfd_open.
 */
#include "daemon_watch.h"
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The state and start time of @pid; false when there is no such process. */
static bool proc_stat(pid_t pid, char *state, unsigned long long *start, char *comm,
		      size_t commlen)
{
	char path[64], buf[1024], *open, *close;
	unsigned long long v;
	size_t len;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* "PID (COMM) S ..." where COMM may hold spaces and parentheses: up to the last ')' */
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return false;
	if (comm)
		snprintf(comm, commlen, "%.*s", (int)(close - open - 1), open + 1);
	*state = close[2];
	/* starttime is field 22; the state is field 3 */
	field = 3;
	for (char *p = close + 2; *p && field < 22; p++)
		if (*p == ' ')
			field++, open = p + 1;
	if (field != 22 || sscanf(open, "%llu", &v) != 1)
		return false;
	*start = v;
	return true;
}

static bool alive(const struct daemon_watched *d)
{
	unsigned long long start;
	char state;

	return proc_stat(d->pid, &state, &start, NULL, 0) && state != 'Z' && state != 'X' &&
	       start == d->start;
}

static bool watched(const struct daemon_watch *w, pid_t pid)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].pid == pid)
			return true;
	return false;
}

int daemon_watch_add(struct daemon_watch *w, pid_t pid, int owner, const char *what)
{
	struct daemon_watched *d;
	char state;

	if (w->n == DAEMON_WATCH_MAX)
		return -ENOSPC;
	d = &w->v[w->n];
	memset(d, 0, sizeof(*d));
	if (pid <= 0 || !proc_stat(pid, &state, &d->start, NULL, 0) || state == 'Z')
		return -ESRCH;
	d->pid = pid;
	d->owner = owner;
	snprintf(d->what, sizeof(d->what), "%s", what);
	w->n++;
	return 0;
}

size_t daemon_watch_add_children(struct daemon_watch *w, pid_t parent, const char *comm,
				 int owner)
{
	pid_t child[DAEMON_WATCH_MAX];
	size_t n = ctl_children_of(parent, child, DAEMON_WATCH_MAX), added = 0;
	unsigned long long start;
	char name[64], state;

	for (size_t i = 0; i < n; i++)
		if (!watched(w, child[i]) &&
		    proc_stat(child[i], &state, &start, name, sizeof(name)) && !strcmp(name, comm) &&
		    !daemon_watch_add(w, child[i], owner, comm))
			added++;
	return added;
}

bool daemon_watch_has(const struct daemon_watch *w, int owner, const char *what)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].owner == owner && !strcmp(w->v[i].what, what))
			return true;
	return false;
}

size_t daemon_watch_poll(struct daemon_watch *w,
			 void (*each)(void *arg, const struct daemon_watched *d), void *arg)
{
	size_t dead = 0;

	for (size_t i = 0; i < w->n; i++) {
		struct daemon_watched *d = &w->v[i];
		struct timespec now;

		if (d->dead || alive(d))
			continue;
		clock_gettime(CLOCK_REALTIME, &now);
		d->dead = true;
		d->dead_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
		dead++;
		if (each)
			each(arg, d);
	}
	return dead;
}
