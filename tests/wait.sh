# SPDX-License-Identifier: MIT
# Waiting in the shell tests (sourced, POSIX sh): a test waits for the condition it needs, with a
# deadline, never for a fixed time that guesses how fast the machine is. wait_for is the loop;
# the predicates below are the conditions several tests wait for.

# wait_for SECONDS CMD...: run CMD until it succeeds (return 0), or return 1 once SECONDS of
# wall-clock time have passed without it. The deadline is on the clock, not a count of tries, so
# a loaded machine that runs the loop slowly gets the whole time and no more.
wait_for() {
	_wf_end=$(($(date +%s) + $1))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$_wf_end" ] || { "$@"; return; }
		sleep 0.1
	done
}

# blocked_reading_pipe PID: PID is asleep in a read of a pipe or FIFO (the kernel function it
# waits in, /proc/PID/wchan, is pipe_read or anon_pipe_read, depending on the kernel).
blocked_reading_pipe() {
	case $(cat "/proc/$1/wchan" 2>/dev/null) in
	*pipe_read*) return 0 ;;
	esac
	return 1
}

# catches_sigint PID: PID has a handler installed for SIGINT (bit 2 of SigCgt in
# /proc/PID/status), so a Ctrl-C now reaches its code instead of the default action.
catches_sigint() {
	_wf_mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$_wf_mask" ] || return 1
	[ $((0x${_wf_mask#"${_wf_mask%??}"} & 2)) -ne 0 ]
}

# has_thread PID NAME: a thread of PID is named NAME (/proc/PID/task/*/comm).
has_thread() {
	grep -qx "$2" /proc/"$1"/task/*/comm 2>/dev/null
}

# sessiond_answers: a session daemon answers the lttng client (in this mount namespace).
sessiond_answers() {
	lttng list >/dev/null 2>&1
}
