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

# The namespaces of the hosts of a run in the background (pid $1), noted while it runs from the
# holders' pid files in its new runtime directory, into $tmp/inodes. Only holders that are the
# run's own children count: another job's hosts may come and go meanwhile on a shared machine.
note_namespaces() {
	: >"$tmp/inodes"
	: >"$tmp/run-dir"
	while kill -0 "$1" 2>/dev/null; do
		for d in $(hosts_dirs | comm -13 "$tmp/dirs-before" -); do
			for f in "$d"/*.pid; do
				p=$(cat "$f" 2>/dev/null) || continue
				[ "$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)" = "$1" ] ||
					continue
				echo "$d" >"$tmp/run-dir"
				readlink "/proc/$p/ns/net" 2>/dev/null |
					sed -n 's/^net:\[\([0-9]*\)\]$/\1/p' >>"$tmp/inodes"
			done
		done
		sleep 0.2
	done
	sort -u -o "$tmp/inodes" "$tmp/inodes"
}

# run OUT ARGS...: a 2-host run of 8 ranks into OUT in the background, its namespaces noted;
# its exit status in $rc, its stdout and stderr in $tmp/out and $tmp/err.
run() {
	out=$1; shift
	hosts_dirs >"$tmp/dirs-before"
	"$bin" run --hosts 2 --procs 4 --ranks 8 --ranks-per-proxy 1 --backend ofi --provider tcp \
		--ops 20 --bytes 16k -o "$out" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	note_namespaces $pid
	wait $pid
	rc=$?
}
# Nothing of the last run is left: no process in (or descriptor on) its namespaces, no runtime
# directory; what is left is shown.
nothing_left() {
	for i in $(cat "$tmp/inodes"); do
		find /proc/[0-9]*/ns/net /proc/[0-9]*/fd/ -maxdepth 1 -lname "net:\[$i\]" 2>/dev/null
	done | sed 's/^/left: /' >&2
	[ -s "$tmp/inodes" ] && [ "$(leftovers "$tmp/inodes")" -eq 0 ] && ! run_dir_left
}
# Whether the run's runtime directory (the one that held the noted namespaces' holders) is left.
run_dir_left() {
	d=$(cat "$tmp/run-dir" 2>/dev/null)
	[ -n "$d" ] && [ -e "$d" ] && echo "left: $d" >&2
}

# traces_per_host DIR: one trace per host in the relay daemon's tree DIR, under the host's name.
traces_per_host() {
	find "$1" -name metadata -type f | sed "s|^$1/||; s|/.*||" | sort >"$tmp/trace-hosts"
	printf 'host0\nhost1\n' | cmp -s - "$tmp/trace-hosts"
}
