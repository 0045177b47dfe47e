# Sourced by the hosts tests. leftovers FILE: how many processes are in, and descriptors hold,
# the network namespaces whose inodes FILE lists (one a line).
leftovers() {
	find /proc/[0-9]*/ns/net /proc/[0-9]*/fd/ -maxdepth 1 -lname 'net:*' -printf '%l\n' \
		2>/dev/null | sed -n 's/^net:\[\([0-9]*\)\]$/\1/p' | grep -cxFf "$1"
}

# inodes_of JSON_FILE OUT: the namespaces `proxyscope hosts --json` printed.
inodes_of() {
	grep -o '"[a-z_]*netns_inode": [0-9]*' "$1" | sed 's/.*: //' >"$2"
}
