#!/bin/sh
# private_lttng.sh CMD ARGS...: run CMD with a session daemon of its own. As root there is one
# session daemon per machine (/run/lttng), so two test runs at once (two checkouts, or a user's
# own session) would record each other's processes. In a new mount namespace with an empty
# /run/lttng no daemon answers: the test's `proxyscope record` starts one there, seen only by
# the processes of that namespace, and stops it. Without the right to make a mount namespace
# (not root), CMD runs as it is, against the machine's daemon.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	exec unshare -m --propagation private sh -c \
		'mount -t tmpfs -o mode=0755 proxyscope-lttng /run/lttng && exec "$@"' sh "$@"
fi
exec "$@"
