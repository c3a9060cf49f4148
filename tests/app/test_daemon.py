"""`spamnb serve` under hostile and slow clients: real daemons on real sockets.

The daemon runs from an entry point that makes chosen messages misbehave
inside the real scoring code (a Subject says how) and, through
SPAMNB_TEST_LIMITS, shortens the daemon's limits so the tests need not wait
a minute for an idle connection to be closed.
"""

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from spamnb.app.server import HEADER, Client

ENTRY_POINT = """
import json, os, signal, sys
import spamnb.app.daemon
import spamnb.model.scorer

for name, value in json.loads(os.environ.get("SPAMNB_TEST_LIMITS", "{}")).items():
    setattr(spamnb.app.daemon, name, value)
real = spamnb.model.scorer.Scorer.score_message


def misbehaving(self, raw, *args, **kwargs):
    if b"\\nSubject: stall\\n" in raw:
        while True:  # never returns, never checks a clock: the alarm stops it
            pass
    if b"\\nSubject: stall deaf\\n" in raw:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        while True:  # the alarm cannot reach it: only the watchdog can
            pass
    if b"\\nSubject: crash\\n" in raw:
        os._exit(3)
    return real(self, raw, *args, **kwargs)


spamnb.model.scorer.Scorer.score_message = misbehaving
from spamnb.app.fastpath import main
main(sys.argv[1:])
"""

MESSAGE = (b"From: a@example.com\nSubject: hello\n\n"  # words enough for a verdict (scoring.MIN_EVIDENCE)
           b"Buy cheap pills now, free money. Pay only $1 per pill, full refund, no fee, claim it today.\n")


def misbehaving(kind: str) -> bytes:
    return MESSAGE.replace(b"Subject: hello", b"Subject: " + kind.encode())


class Daemon:
    """A `spamnb serve` subprocess running ENTRY_POINT."""

    def __init__(self, model: Path, *args, limits: dict | None = None) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="spamnb-daemon-"))
        self.socket = self.directory / "serve.sock"
        self.log_path = self.directory / "serve.log"
        env = dict(os.environ, SPAMNB_TEST_LIMITS=json.dumps(limits or {}))
        env.pop("SPAMNB_MODEL", None)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", ENTRY_POINT, "serve", "--model", str(model), "--socket", str(self.socket),
                 *map(str, args)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env)
        deadline = time.monotonic() + 60
        while "serving " not in self.log():
            assert self.process.poll() is None, f"serve exited: {self.log()}"
            assert time.monotonic() < deadline, "serve did not start in time"
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, text: str, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.log():
            assert time.monotonic() < deadline, f"no {text!r} in the log: {self.log()}"
            time.sleep(0.02)

    def children(self) -> list[int]:
        pid = self.process.pid
        found = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as file:
                found += [int(child) for child in file.read().split()]
        return found

    def workers(self, count: int = 2, seconds: float = 10) -> list[int]:
        """The worker processes, once `count` are up: "serving" is logged
        before run() forks them, so under load a count taken at that line
        can see one (2 failures in 7 runs of this file on a loaded machine)."""
        deadline = time.monotonic() + seconds
        while len(found := self.children()) < count:
            assert time.monotonic() < deadline, f"{len(found)} workers after {seconds} s: {self.log()}"
            time.sleep(0.02)
        return found

    def status(self, field: str) -> int:
        """A /proc/PID/status figure of the main process, in kB."""
        with open(f"/proc/{self.process.pid}/status") as file:
            for line in file:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise AssertionError(field)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def daemon_factory(sample_model):
    started = []

    def start(*args, limits=None):
        daemon = Daemon(sample_model, *args, limits=limits)
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        daemon.stop()


def connect(path, timeout: float = 30) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(str(path))
    return sock


def send(sock: socket.socket, raw: bytes) -> None:
    sock.sendall(HEADER.pack(len(raw)) + raw)


def read_reply(sock: socket.socket) -> dict:
    line = b""
    while not line.endswith(b"\n"):
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError(f"closed after {line!r}")
        line += chunk
    return json.loads(line)


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as file:
            return "State:\tZ" in file.read()
    except FileNotFoundError:
        return True


def test_a_slow_message_and_64_idle_connections_do_not_delay_another_client(daemon_factory):
    daemon = daemon_factory("--timeout", "20")
    idle = [connect(daemon.socket) for _ in range(64)]
    with Client(str(daemon.socket)) as client:
        ordinary = client.score(MESSAGE)
        stalled = connect(daemon.socket)
        send(stalled, misbehaving("stall"))
        time.sleep(0.3)  # a worker is now deep in the stalled message
        waits = []
        for _ in range(21):
            asked = time.monotonic()
            assert client.score(MESSAGE) == ordinary
            waits.append(time.monotonic() - asked)
    assert statistics.median(waits) <= 0.05, waits
    assert daemon.process.poll() is None
    for sock in idle + [stalled]:
        sock.close()


def test_the_deadline_answers_unsure_and_the_worker_goes_on(daemon_factory):
    daemon = daemon_factory("--timeout", "0.5", "--workers", "1")
    with connect(daemon.socket) as sock:
        send(sock, misbehaving("stall"))
        reply = read_reply(sock)
        assert reply["label"] == "unsure" and reply["reason"] == "not scored within 0.5 s (--timeout); marked unsure"
        send(sock, MESSAGE)
        assert "reason" not in read_reply(sock)
    assert "killed" not in daemon.log()  # the alarm sufficed


def test_a_worker_deaf_to_the_alarm_is_killed_and_replaced(daemon_factory):
    daemon = daemon_factory("--timeout", "0.5", "--workers", "1")
    workers = set(daemon.workers(1))
    with connect(daemon.socket) as sock:
        asked = time.monotonic()
        send(sock, misbehaving("stall deaf"))
        reply = read_reply(sock)
        waited = time.monotonic() - asked
        assert reply["label"] == "unsure" and "not scored within 0.5 s" in reply["reason"]
        assert waited < 0.5 + 1.0 + 1.0, waited  # the deadline, the watchdog's grace, a tick or two
        daemon.wait_for_log("did not stop at the deadline; killed it")
        send(sock, MESSAGE)
        assert read_reply(sock)["label"] in ("spam", "ham", "unsure")
    # SIGKILL is sent, not waited for: a process's teardown (its mappings
    # given back) can take a moment on a loaded machine before it is a zombie.
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in workers):
        assert time.monotonic() < deadline, "the deaf worker is still running"
        time.sleep(0.05)
    assert set(daemon.children()) - workers  # a new worker took its place


def test_a_crashing_worker_is_an_error_for_its_client_only(daemon_factory):
    daemon = daemon_factory("--workers", "1")
    with connect(daemon.socket) as sock:
        send(sock, misbehaving("crash"))
        assert read_reply(sock) == {"error": "the message could not be scored: the worker scoring it died"}
        send(sock, MESSAGE)
        assert read_reply(sock)["label"] in ("spam", "ham", "unsure")
    assert "died" in daemon.log()


def test_half_sent_big_requests_are_held_within_a_budget(daemon_factory):
    daemon = daemon_factory()
    senders = []
    chunk = b"x" * (1 << 20)
    for _ in range(64):
        sock = connect(daemon.socket)
        sock.sendall(HEADER.pack(10 << 20))
        sock.setblocking(False)
        senders.append(sock)
    # Each pushes its 10 MiB as far as the daemon lets it; none finishes.
    pushed = [0] * len(senders)
    ends = time.monotonic() + 4
    while time.monotonic() < ends:
        progress = False
        for index, sock in enumerate(senders):
            if pushed[index] >= (10 << 20) - len(chunk):
                continue
            try:
                pushed[index] += sock.send(chunk)
                progress = True
            except BlockingIOError:
                pass
        if not progress:
            time.sleep(0.05)
    with Client(str(daemon.socket)) as client:  # an ordinary message still gets through
        assert client.score(MESSAGE)["label"] in ("spam", "ham", "unsure")
    peak_mb = daemon.status("VmHWM") / 1024
    assert peak_mb <= 200, (peak_mb, sum(pushed))
    # The clients did fill the budget (32 MiB), and were then held back, not served.
    assert 32 << 20 < sum(pushed) < 128 << 20, sum(pushed)
    for sock in senders:
        sock.close()


def test_idle_connections_are_closed_and_the_idlest_makes_room(daemon_factory):
    daemon = daemon_factory(limits={"IDLE_SECONDS": 1.5, "MAX_CONNECTIONS": 8})
    idle = []
    for _ in range(8):
        idle.append(connect(daemon.socket, timeout=5))
        time.sleep(0.02)  # so that the first is the idlest
    with Client(str(daemon.socket)) as client:
        assert client.score(MESSAGE)["label"]
    assert idle[0].recv(1) == b""  # closed to make room
    time.sleep(2.5)
    for sock in idle[1:]:
        assert sock.recv(1) == b""  # closed once idle
        sock.close()


def test_a_request_that_does_not_arrive_whole_in_time_is_cut_off(daemon_factory):
    daemon = daemon_factory(limits={"READ_SECONDS": 1.0})
    with connect(daemon.socket, timeout=10) as sock:
        sock.sendall(HEADER.pack(1000) + b"Subject: slow\n")
        started = time.monotonic()
        assert read_reply(sock) == {"error": "the request did not arrive whole within 1 s"}
        assert 0.9 < time.monotonic() - started < 4
        assert sock.recv(1) == b""
    with Client(str(daemon.socket)) as client:
        assert client.score(MESSAGE)["label"]


def test_sigterm_ends_the_daemon_within_a_second_with_a_message_in_flight(daemon_factory):
    daemon = daemon_factory("--timeout", "60")
    workers = daemon.workers()
    with connect(daemon.socket) as sock:
        send(sock, misbehaving("stall"))
        time.sleep(0.3)
        asked = time.monotonic()
        daemon.process.send_signal(signal.SIGTERM)
        assert daemon.process.wait(timeout=5) == 0
        assert time.monotonic() - asked <= 1.0
    assert not daemon.socket.exists()
    assert all(gone(pid) for pid in workers)
    assert "Traceback" not in daemon.log()


def test_workers_die_with_a_killed_daemon(daemon_factory):
    daemon = daemon_factory("--timeout", "60")
    workers = daemon.workers()
    with connect(daemon.socket) as sock:
        send(sock, misbehaving("stall"))  # one busy, one idle
        time.sleep(0.3)
        daemon.process.kill()
        daemon.process.wait()
    ends = time.monotonic() + 5
    while not all(gone(pid) for pid in workers):
        assert time.monotonic() < ends, [pid for pid in workers if not gone(pid)]
        time.sleep(0.05)


def test_a_fifo_at_the_model_path_is_not_opened(tmp_path, sample_model):
    model = tmp_path / "model.spamnb"
    model.write_bytes(sample_model.read_bytes())
    daemon = Daemon(model)
    try:
        with Client(str(daemon.socket)) as client:
            before = client.score(MESSAGE)
            fifo = tmp_path / "fifo"
            os.mkfifo(fifo)
            os.replace(fifo, model)
            asked = time.monotonic()
            assert client.score(MESSAGE) == before  # the loaded model keeps serving, at once
            assert client.score(MESSAGE) == before
            assert time.monotonic() - asked < 2
        daemon.wait_for_log("is not a regular file; still serving the one loaded")
        assert daemon.log().count("is not a regular file") == 1
    finally:
        daemon.stop()


def test_a_client_that_takes_no_replies_is_closed_and_others_are_served(daemon_factory, tmp_path):
    # Such a client must not keep its slot and its replies for ever.
    spamd_path = tmp_path / "spamd" / "spamd.sock"
    spamd_path.parent.mkdir(mode=0o700)
    daemon = daemon_factory("--spamd", spamd_path, limits={"READ_SECONDS": 1.0, "MAX_CONNECTIONS": 3})
    body = MESSAGE + b"x" * 4_000_000  # PROCESS answers with the whole message
    hoarder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hoarder.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    hoarder.connect(str(spamd_path))
    hoarder.sendall(f"PROCESS SPAMC/1.5\r\nContent-length: {len(body)}\r\n\r\n".encode() + body)
    daemon.wait_for_log("took no reply bytes for 1 s; closed", seconds=30)
    with Client(str(daemon.socket)) as client:
        assert client.score(MESSAGE)["label"]
    hoarder.close()


def test_the_last_slot_is_not_emptied_when_nobody_waits(daemon_factory):
    # Reaching the cap must not close the idlest connection at once.
    daemon = daemon_factory(limits={"MAX_CONNECTIONS": 3})
    idle = [connect(daemon.socket, timeout=0.5) for _ in range(3)]
    time.sleep(0.5)
    for sock in idle:
        with pytest.raises(TimeoutError):
            sock.recv(1)  # still open: nothing to read, no end of file
    for sock in idle:
        sock.close()
