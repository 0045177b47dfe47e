# Sourced by the hosts tests. leftovers FILE: how many processes are in, and descriptors hold,
# the network namespaces whose inodes FILE lists (one a line).
leftovers() {
	n=0
	for l in /proc/[0-9]*/ns/net /proc/[0-9]*/fd/*; do
		t=$(readlink "$l" 2>/dev/null) || continue
		case $t in net:\[*\]) ;; *) continue ;; esac
		ino=${t#net:[}; ino=${ino%]}
		grep -qx "$ino" "$1" && n=$((n + 1))
	done
	echo $n
}

# inodes_of JSON_FILE OUT: the namespaces `proxyscope hosts --json` printed.
inodes_of() {
	grep -o '"[a-z_]*netns_inode": [0-9]*' "$1" | sed 's/.*: //' >"$2"
}
