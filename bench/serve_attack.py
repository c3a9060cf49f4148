"""`spamnb serve` under attack: what an ordinary client sees while others misbehave.

Measures, against one real `spamnb serve` (the model from sample_data unless
--model is given):

  latency   an ordinary message's round trip over a kept connection, median
            and 95th percentile of --requests, while 64 idle connections are
            open and the costliest real message shape known (6 MB of random
            rare Han characters, RELIABILITY.md) is kept in flight by another
            client, resent as soon as it is answered;
  memory    the daemon's peak resident set (VmHWM, main process) and its
            process tree's proportional set size after 64 clients each sent
            the length of a 10 MiB request and pushed its bytes for 4 s,
            none finishing;
  stop      seconds from SIGTERM to exit with the slow message in flight.

Usage:  .venv/bin/python bench/serve_attack.py [--model M] [--requests 201]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spamnb.app.server import HEADER, Client  # noqa: E402

ORDINARY = b"From: a@example.com\nSubject: hello\n\nBuy cheap pills now, free money.\n"


def slow_message() -> bytes:
    rng = random.Random(7)
    body = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(2_000_000)).encode()
    return b"Subject: x\nContent-Type: text/plain; charset=utf-8\n\n" + body


def start(model: str, directory: str) -> tuple[subprocess.Popen, str]:
    path = os.path.join(directory, "serve.sock")
    log = open(os.path.join(directory, "serve.log"), "wb")
    process = subprocess.Popen([sys.executable, "-m", "spamnb", "serve", "--model", model, "--socket", path],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    ends = time.monotonic() + 60
    while b"serving " not in Path(log.name).read_bytes():
        if process.poll() is not None or time.monotonic() > ends:
            sys.exit(f"serve did not start: {Path(log.name).read_text()}")
        time.sleep(0.05)
    return process, path


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def tree_pss_kb(pid: int) -> int:
    pids = [pid]
    for task in os.listdir(f"/proc/{pid}/task"):
        pids += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    total = 0
    for each in pids:
        for line in Path(f"/proc/{each}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                total += int(line.split()[1])
    return total


def keep_in_flight(path: str, raw: bytes, stop: threading.Event, seconds: list) -> None:
    from spamnb.errors import ServerError

    with Client(path, timeout=120) as client:
        while not stop.is_set():
            began = time.monotonic()
            try:
                client.score(raw)
            except ServerError:
                return  # the daemon was stopped under it, as the bench means it to be
            seconds.append(time.monotonic() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a model file (default: trained on sample_data here)")
    parser.add_argument("--requests", type=int, default=201)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="spamnb-serve-attack-")
    model = args.model
    if model is None:
        model = os.path.join(directory, "model.spamnb")
        subprocess.run([sys.executable, "-m", "spamnb", "train", str(ROOT / "sample_data" / "mail"),
                        "--model", model, "-q"], check=True)
    slow = slow_message()

    process, path = start(model, directory)
    idle = []
    for _ in range(64):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        idle.append(sock)
    stop, slow_seconds = threading.Event(), []
    sender = threading.Thread(target=keep_in_flight, args=(path, slow, stop, slow_seconds), daemon=True)
    sender.start()
    time.sleep(0.5)
    waits = []
    with Client(path) as client:
        client.score(ORDINARY)
        for _ in range(args.requests):
            began = time.monotonic()
            client.score(ORDINARY)
            waits.append(time.monotonic() - began)
    waits.sort()
    print(f"latency: {args.requests} ordinary messages with 64 idle connections and a "
          f"{len(slow):,}-byte message in flight: median {statistics.median(waits) * 1000:.2f} ms, "
          f"95th percentile {waits[int(0.95 * len(waits))] * 1000:.2f} ms")
    began = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    print(f"stop: SIGTERM with the slow message in flight ended the daemon in "
          f"{time.monotonic() - began:.2f} s (exit {process.returncode})")
    stop.set()
    for sock in idle:
        sock.close()
    if slow_seconds:
        print(f"(the slow message took {statistics.median(slow_seconds):.2f} s a time when answered)")

    process, path = start(model, directory)
    senders, pushed, chunk = [], 0, b"x" * (1 << 20)
    for _ in range(64):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        sock.sendall(HEADER.pack(10 << 20))
        sock.setblocking(False)
        senders.append(sock)
    ends = time.monotonic() + 4
    while time.monotonic() < ends:
        for sock in senders:
            try:
                pushed += sock.send(chunk)
            except BlockingIOError:
                pass
        time.sleep(0.01)
    with Client(path) as client:
        began = time.monotonic()
        client.score(ORDINARY)
        answered = time.monotonic() - began
    print(f"memory: 64 half-sent 10 MiB requests ({pushed / 2**20:.0f} MiB taken in): daemon peak "
          f"{status_kb(process.pid, 'VmHWM') / 1024:.0f} MB (main process), process tree PSS "
          f"{tree_pss_kb(process.pid) / 1024:.0f} MB; an ordinary message meanwhile: {answered * 1000:.1f} ms")
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    for sock in senders:
        sock.close()


if __name__ == "__main__":
    main()
