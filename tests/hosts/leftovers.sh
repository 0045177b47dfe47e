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
