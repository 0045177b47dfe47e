# SPDX-License-Identifier: MIT
# Sourced by the hosts tests.

# check NAME CONDITION...: count a check in $passed/$failed; on failure show $tmp/out, $tmp/err.
passed=0
failed=0
check() {
	name=$1; shift
	if "$@"; then echo "ok: $name"; passed=$((passed + 1));
	else echo "FAIL: $name"; cat "$tmp/out" "$tmp/err"; failed=$((failed + 1)); fi
}

# The hosts' runtime directories there are now.
hosts_dirs() { ls -d /tmp/proxyscope-hosts.* 2>/dev/null | sort; }

# note_namespaces PID: the namespaces of the hosts of a run in the background (pid PID), noted
# while it runs from the pid files of its holders (its children) in its runtime directory, into
# $tmp/inodes, and that directory into $tmp/dirs (another job's hosts at the same time are not
# noted).
note_namespaces() {
	: >"$tmp/inodes"
	: >"$tmp/dirs"
	while kill -0 "$1" 2>/dev/null; do
		for d in $(hosts_dirs); do
			for f in "$d"/*.pid; do
				p=$(cat "$f" 2>/dev/null) || continue
				[ "$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)" = "$1" ] || continue
				echo "$d" >>"$tmp/dirs"
				readlink "/proc/$p/ns/net" 2>/dev/null |
					sed -n 's/^net:\[\([0-9]*\)\]$/\1/p' >>"$tmp/inodes"
			done
		done
		sleep 0.2
	done
	sort -u -o "$tmp/inodes" "$tmp/inodes"
	sort -u -o "$tmp/dirs" "$tmp/dirs"
}

# The run's runtime directory (noted by note_namespaces) is gone.
dirs_gone() {
	[ -s "$tmp/dirs" ] || return 1
	while read -r d; do
		[ ! -e "$d" ] || { echo "left: $d" >&2; return 1; }
	done <"$tmp/dirs"
}

# run_noted CMD...: run CMD (output in $tmp/out, $tmp/err; exit status in $rc), noting the
# namespaces of the hosts it builds (note_namespaces) for nothing_left.
run_noted() {
	"$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	note_namespaces $pid
	wait $pid
	rc=$?
}

# Nothing of the hosts of the last run_noted is left: no process in, and no descriptor on,
# their namespaces, and their runtime directory removed; what is left is shown.
nothing_left() {
	for i in $(cat "$tmp/inodes"); do
		find /proc/[0-9]*/ns/net /proc/[0-9]*/fd/ -maxdepth 1 -lname "net:\[$i\]" 2>/dev/null
	done | sed 's/^/left: /' >&2
	[ -s "$tmp/inodes" ] && [ "$(leftovers "$tmp/inodes")" -eq 0 ] && dirs_gone
}

# leftovers FILE: how many processes are in, and descriptors hold,
# the network namespaces whose inodes FILE lists (one a line).
leftovers() {
	find /proc/[0-9]*/ns/net /proc/[0-9]*/fd/ -maxdepth 1 -lname 'net:*' -printf '%l\n' \
		2>/dev/null | sed -n 's/^net:\[\([0-9]*\)\]$/\1/p' | grep -cxFf "$1"
}

# inodes_of JSON_FILE OUT: the namespaces `proxyscope hosts --json` printed.
inodes_of() {
	grep -o '"[a-z_]*netns_inode": [0-9]*' "$1" | sed 's/.*: //' >"$2"
}

# run OUT ARGS...: a 2-host run of 8 ranks into OUT (run_noted).
run() {
	out=$1; shift
	run_noted "$bin" run --hosts 2 --procs 4 --ranks 8 --ranks-per-proxy 1 --backend ofi \
		--provider tcp --ops 20 --bytes 16k -o "$out" "$@"
}

# traces_per_host DIR: one trace per host in the relay daemon's tree DIR, under the host's name.
traces_per_host() {
	find "$1" -name metadata -type f | sed "s|^$1/||; s|/.*||" | sort >"$tmp/trace-hosts"
	printf 'host0\nhost1\n' | cmp -s - "$tmp/trace-hosts"
}
