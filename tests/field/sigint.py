# SPDX-License-Identifier: MIT
# Ctrl-C as a terminal sends it (SIGINT to the whole process group) at a chosen point of a
# recording command, once, twice or three times; what the user sees, timed. Prints one JSON
# object: the exit status, how long after the first signal the acknowledgement and the exit
# came, the machine's own stall meanwhile (the longest overshoot of a 20 ms sleep), the lines
# of stderr, and the processes left with the command's TMPDIR in their environment afterwards.
#
#   python3 sigint.py --trace DIR --at setup|midrun --signals N --tmpdir T [--freeze] -- ARGV...
#
# --freeze: just before the first signal, stop (SIGSTOP) the session daemon the command started
# (the process named lttng-sessiond with TMPDIR=T): a daemon that no longer answers.
import argparse, glob, json, os, signal, subprocess, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--trace", required=True)
ap.add_argument("--at", choices=("setup", "midrun"), required=True)
ap.add_argument("--signals", type=int, default=1)
ap.add_argument("--tmpdir", required=True)
ap.add_argument("--freeze", action="store_true")
ap.add_argument("argv", nargs="+")
a = ap.parse_args()

stall = 0.0
done = threading.Event()


def probe():
    global stall
    while not done.is_set():
        t = time.monotonic()
        time.sleep(0.02)
        stall = max(stall, time.monotonic() - t - 0.02)


threading.Thread(target=probe, daemon=True).start()
env = dict(os.environ, TMPDIR=a.tmpdir)
p = subprocess.Popen(a.argv, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
lines = []  # (seconds since start, line)
t0 = time.monotonic()


def reader():
    for raw in iter(p.stderr.readline, b""):
        lines.append((time.monotonic() - t0, raw.decode(errors="replace").rstrip("\n")))


rd = threading.Thread(target=reader)
rd.start()


def flowing():  # DIR/ust/... for one host, DIR/HOST/SESSION/ust/... across hosts
    return any(os.path.getsize(f) > 0
               for f in glob.glob(a.trace + "/**/ust/uid/*/64-bit/*_[0-9]*", recursive=True))


def wait_until(cond, limit):
    end = time.monotonic() + limit
    while p.poll() is None and not cond() and time.monotonic() < end:
        time.sleep(0.01)
    return cond()


def seen(prefix, after=0.0):
    # ours, not CMD's: under record and watch, CMD (a `run --no-trace`) says it was
    # interrupted too, and a second signal sent on its line alone came 0.8 ms after the
    # first, before ours was taken: the two were one (a pending signal is not queued twice)
    return next((t for t, l in lines if t >= after and l.startswith(prefix) and
                 "records nothing itself" not in l), None)


# setup: the output directory exists (made before the session daemon is started) and nothing
# has been recorded yet; midrun: events are in the trace's stream files.
ready = wait_until(lambda: os.path.isdir(a.trace), 60) if a.at == "setup" else \
    wait_until(flowing, 120) and (time.sleep(0.5) or True)
def ours(comm):  # pids of the processes named comm with the command's TMPDIR
    pids = []
    for env_file in glob.glob("/proc/[0-9]*/environ"):
        try:
            with open(env_file, "rb") as f:
                if ("TMPDIR=" + a.tmpdir).encode() + b"\0" not in f.read():
                    continue
            with open(env_file[:-7] + "comm") as c:
                if c.read().strip() == comm:
                    pids.append(int(env_file.split("/")[2]))
        except (OSError, ValueError):
            pass
    return pids


result = {"ready": bool(ready) and p.poll() is None}
if result["ready"] and a.freeze:
    frozen = ours("lttng-sessiond")
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    result["frozen"] = frozen
sent = []
if result["ready"]:
    sent.append(time.monotonic() - t0)
    os.killpg(p.pid, signal.SIGINT)
    if a.signals >= 2:  # during the teardown: once it said so
        wait_until(lambda: seen("proxyscope: interrupted:") is not None, 30)
        if p.poll() is None:
            sent.append(time.monotonic() - t0)
            os.killpg(p.pid, signal.SIGINT)
    if a.signals >= 3:
        wait_until(lambda: seen("proxyscope: skipping") is not None, 30)
        if p.poll() is None:
            sent.append(time.monotonic() - t0)
            os.killpg(p.pid, signal.SIGINT)
try:
    rc = p.wait(timeout=120)
    ended = time.monotonic() - t0
except subprocess.TimeoutExpired:
    rc, ended = "hung", None
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
rd.join()
done.set()
ack = seen("proxyscope: interrupted:")


def left():
    me = []
    for env_file in glob.glob("/proc/[0-9]*/environ"):
        try:
            with open(env_file, "rb") as f:
                if ("TMPDIR=" + a.tmpdir).encode() + b"\0" in f.read():
                    with open(env_file[:-7] + "cmdline", "rb") as c:
                        me.append(c.read().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
    return me


# The daemons we started end once we are gone (a session daemon ends with its last
# application): give them a generous while.
end = time.monotonic() + 20
while left() and time.monotonic() < end:
    time.sleep(0.1)
result.update({
    "rc": rc if isinstance(rc, str) else (128 - rc if rc < 0 else rc),
    "sent": sent,
    "ack_s": None if ack is None or not sent else ack - sent[0],
    "exit_s": None if ended is None or not sent else ended - sent[0],
    "stall_s": stall,
    "left": left(),
    "stderr": [l for _, l in lines],
    "stderr_s": [round(t - sent[0], 3) if sent else None for t, _ in lines],
})
json.dump(result, sys.stdout)
