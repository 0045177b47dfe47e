#!/bin/sh
# SPDX-License-Identifier: MIT
# watch_attach_job.sh PROXYSCOPE DIR: run on the collector by `proxyscope hosts --hosts 2`
# (test_run_hosts_watch.sh). A relay daemon on the collector, a live session on each host
# (made with that host's own session daemon), a healthy run on host0 and a run with a device
# stall on host1 (each recorded by its host's session), and `proxyscope watch URL URL`
# following both sessions at once. Leaves DIR/list (watch --list), DIR/watch.out, DIR/watch.rc.
set -u
bin=$1
out=$2
relay=198.18.0.254
lttng-relayd -C tcp://$relay:5342 -D tcp://$relay:5343 -L tcp://$relay:5344 -o "$out/relay" \
	>"$out/relayd.log" 2>&1 &
relayd=$!
trap 'kill $relayd 2>/dev/null' EXIT
for i in $(seq 1 50); do grep -q ':14E0 .* 0A ' /proc/net/tcp && break; sleep 0.1; done
on() { h=$1; shift; "$PROXYSCOPE_AGENT" "$h" "$@"; }
for h in host0 host1; do
	# as proxyscope's own sessions: one channel of 8 x 1 MiB per CPU, the providers at info
	on $h lttng create "w-$h" --live=100000 --set-url=net://$relay >/dev/null &&
	on $h lttng enable-channel -u -s "w-$h" --subbuf-size=1M --num-subbuf=8 c >/dev/null &&
	for p in encproxy encdev encnet bananaphone; do
		on $h lttng enable-event -u -s "w-$h" -c c "'$p:*'" --loglevel=TRACE_INFO >/dev/null ||
			exit 1
	done &&
	on $h lttng add-context -u -s "w-$h" -c c -t vpid -t vtid -t procname >/dev/null &&
	on $h lttng start "w-$h" >/dev/null || { echo "watch_attach_job: no session on $h"; exit 1; }
done
# the runs load the probes (--no-trace) and are recorded by their host's session
# the stall comes ~5 s into host1's run (exec 250 of 20 ms each), after the viewer attached
# (as in test_watch: a first attach took seconds on a loaded machine)
on host0 "$bin" run --no-trace --ranks 2 --ops 600 --compute 20ms >"$out/host0.run" 2>&1 &
r0=$!
on host1 "$bin" run --no-trace --ops 400 --compute 20ms --timeout 10s \
	--inject device-stall:rank=1,exec=250 >"$out/host1.run" 2>&1 &
r1=$!
for i in $(seq 1 300); do
	"$bin" watch --list net://$relay >"$out/list" 2>/dev/null
	[ "$(grep -c ' [1-9][0-9]* streams' "$out/list")" -eq 2 ] && break
	sleep 0.1
done
"$bin" watch --threshold 500ms $(cut -d' ' -f1 "$out/list") >"$out/watch.out" 2>"$out/watch.err" &
w=$!
wait $r0 $r1
for h in host0 host1; do on $h lttng destroy "w-$h" >/dev/null; done
wait $w
echo $? >"$out/watch.rc"
