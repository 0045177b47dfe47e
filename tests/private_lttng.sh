#!/bin/sh
# SPDX-License-Identifier: MIT
# private_lttng.sh CMD ARGS...: run CMD with a session daemon of its own. As root there is one
# session daemon per machine (/run/lttng), so two test runs at once (two checkouts, or a user's
# own session) would record each other's processes. In a new mount namespace with an empty
# /run/lttng no daemon answers: the test's `proxyscope record` starts one there, seen only by
# the processes of that namespace, and stops it. Without the right to make a mount namespace
# (not root), CMD runs as it is, against the machine's daemon.
#
# A test killed before it stops its daemon (ctest kills a timed-out test's process tree; the
# daemon, detached, is no longer in it) would leave the daemon running in the namespace. A
# sweeper, detached from the start, waits for CMD's end and then kills whatever still runs in
# the namespace.
#
# /run/lttng exists only once a session daemon has run since boot (no package makes it; a
# container or a machine without an init system has none), and a tmpfs needs a directory to be
# mounted on. The empty directory is made first where it is missing: the same directory, with the
# same mode, that the machine's own session daemon makes when it starts, in /run (a tmpfs, gone at
# the next boot). Nothing is ever written into it outside the namespace: everything the test's
# daemon writes lands in the namespace's tmpfs, which vanishes with the namespace. It is not
# removed afterwards: another test's namespace may still have its tmpfs mounted on it.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	exec unshare -m --propagation private sh -c '
		mkdir -p -m 0755 /run/lttng || exit 1
		mount -t tmpfs -o mode=0755 proxyscope-lttng /run/lttng || exit 1
		ns=$(readlink /proc/self/ns/mnt)
		cmd=$$
		(setsid sh -c "
			while kill -0 $cmd 2>/dev/null; do sleep 1; done
			for p in /proc/[0-9]*; do
				p=\${p#/proc/}
				[ \"\$p\" != \$\$ ] && [ \"\$(readlink /proc/\$p/ns/mnt 2>/dev/null)\" = \"$ns\" ] &&
					kill -KILL \$p 2>/dev/null
			done" </dev/null >/dev/null 2>&1 &)
		exec "$@"' sh "$@"
fi
exec "$@"
