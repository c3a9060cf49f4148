"""The per-message deadline (`--timeout`) of classify, filter and serve.

A message whose Subject is "stall" makes scoring spin in a pure-Python loop
that never ends and never looks at a clock: the deadline must stop it
without the slow code's help.  The child processes run the real entry point
(spamnb.app.fastpath.main, which hands other command lines to the click CLI)
with that one function replaced.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import SAMPLE
from spamnb.app.fastpath import parse_classify
from spamnb.app.server import HEADER

STALLING_ENTRY_POINT = """
import sys
import spamnb.model.scorer

real = spamnb.model.scorer.Scorer.score_message


def stalling(self, raw, *args, **kwargs):
    if b"\\nSubject: stall\\n" in raw:
        while True:  # never returns, never checks a clock
            pass
    return real(self, raw, *args, **kwargs)


spamnb.model.scorer.Scorer.score_message = stalling
from spamnb.app.fastpath import main
main(sys.argv[1:])
"""

MESSAGE = (b"From: a@example.com\nSubject: hello\n\n"  # words enough for a verdict (scoring.MIN_EVIDENCE)
           b"Buy cheap pills now, free money. Pay only $1 per pill, full refund, no fee, claim it today.\n")
STALLED = MESSAGE.replace(b"Subject: hello", b"Subject: stall")


def spamnb(*args, input: bytes | None = None, timeout: float = 60):
    env = dict(os.environ)
    env.pop("SPAMNB_MODEL", None)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", STALLING_ENTRY_POINT, *map(str, args)], input=input,
                            capture_output=True, env=env, timeout=timeout,
                            stdin=None if input is not None else subprocess.DEVNULL)
    return result, time.monotonic() - started


def test_filter_delivers_a_stalled_message_unsure_within_the_deadline(sample_model):
    normal, normal_seconds = spamnb("filter", "--model", sample_model, "--timeout", "1", input=MESSAGE)
    stalled, stalled_seconds = spamnb("filter", "--model", sample_model, "--timeout", "1", input=STALLED)
    assert normal.returncode == 0 and b"X-Spamnb-Status: Unsure, score=0.5000" not in normal.stdout
    assert stalled.returncode == 0, stalled.stderr
    head, _, body = stalled.stdout.partition(b"\n\n")
    assert body == STALLED.partition(b"\n\n")[2]  # delivered, body untouched
    status = head.splitlines()[-1].decode()
    assert status == ('X-Spamnb-Status: Unsure, score=0.5000, log-odds=0.00, model=sample.spamnb, '
                      'reason="not scored within 1 s (--timeout); marked unsure"')
    assert stalled.stderr.decode().strip() == "spamnb: not scored within 1 s (--timeout); marked unsure"
    # The deadline, not the (endless) scoring, decides when it ends: one
    # second past an ordinary run, give or take a loaded machine.
    assert stalled_seconds < normal_seconds + 1 + 5, (stalled_seconds, normal_seconds)
    exit_code, _ = spamnb("filter", "--model", sample_model, "--timeout", "0.5", "--exit-code", input=STALLED)
    assert exit_code.returncode == 2  # bogofilter's unsure


@pytest.mark.parametrize("extra", [[], ["--max-size", "100000"]], ids=["fast path", "click"])
def test_classify_reports_a_stalled_message_unsure(sample_model, tmp_path, extra):
    (tmp_path / "a.eml").write_bytes(MESSAGE)
    (tmp_path / "b.eml").write_bytes(STALLED)
    result, _ = spamnb("classify", "--model", sample_model, "--timeout", "0.5", "--format", "tsv", *extra,
                       tmp_path / "a.eml", tmp_path / "b.eml")
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.decode().splitlines()[1:]]
    assert rows[1][1:] == ["unsure", "0.500000", "0.0000"] and rows[0][0].endswith("a.eml")
    assert result.stderr.decode().splitlines() == [
        f"spamnb: {tmp_path / 'b.eml'}: not scored within 0.5 s (--timeout); marked unsure"]


def test_classify_with_workers_stops_a_stalled_message_too(sample_model, tmp_path):
    for index in range(70):  # more than a batch, so a pool of workers is started
        (tmp_path / f"{index:03}.eml").write_bytes(STALLED if index == 5 else MESSAGE)
    result, _ = spamnb("classify", "--model", sample_model, "--timeout", "0.5", "-j", "2", "--format", "tsv",
                       tmp_path)
    assert result.returncode == 0, result.stderr
    labels = [line.split("\t")[1] for line in result.stdout.decode().splitlines()[1:]]
    assert len(labels) == 70 and labels[5] == "unsure"
    assert b"005.eml: not scored within 0.5 s" in result.stderr


def test_timeout_option_on_the_fast_path():
    assert parse_classify(["classify", "--timeout", "2.5", "a.eml"])["timeout"] == 2.5
    assert parse_classify(["classify", "--timeout=0", "a.eml"])["timeout"] == 0.0
    for bad in ("-1", "x", "nan", "inf", "1e10"):
        assert parse_classify(["classify", "--timeout", bad, "a.eml"]) is None, bad


def test_a_slow_real_message_is_stopped_by_the_deadline(sample_model):
    # No stand-in this time: the real scoring code on the costliest shape
    # known (6 MB of random rare Han characters), with a deadline well below
    # what it costs.
    rng = random.Random(7)
    body = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(2_000_000)).encode()
    raw = b"Subject: x\nContent-Type: text/plain; charset=utf-8\n\n" + body
    result, _ = spamnb("filter", "--model", sample_model, "--timeout", "0.05", input=raw)
    assert result.returncode == 0 and result.stdout.endswith(body)
    assert b'reason="not scored within 0.05 s (--timeout); marked unsure"' in result.stdout[:1000]


def _request(sock, raw):
    sock.sendall(HEADER.pack(len(raw)) + raw)


def _connect(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(str(path))
    return sock, sock.makefile("rb")


def test_serve_answers_unsure_and_keeps_serving_others(sample_model):
    directory = Path(tempfile.mkdtemp(prefix="spamnb-deadline-"))
    path = directory / "serve.sock"
    log_path = directory / "serve.log"
    env = dict(os.environ)
    env.pop("SPAMNB_MODEL", None)
    with open(log_path, "wb") as log:
        server = subprocess.Popen([sys.executable, "-c", STALLING_ENTRY_POINT, "serve", "--model", str(sample_model),
                                   "--socket", str(path), "--timeout", "1"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env)
    try:
        started = time.monotonic()
        while b"serving " not in log_path.read_bytes():
            assert server.poll() is None and time.monotonic() < started + 60, log_path.read_text()
            time.sleep(0.05)
        first, first_replies = _connect(path)
        second, second_replies = _connect(path)
        _request(second, MESSAGE)  # a warm-up answer, to time an ordinary one
        before = time.monotonic()
        ordinary = json.loads(second_replies.readline())
        ordinary_seconds = time.monotonic() - before
        _request(first, STALLED)
        time.sleep(0.2)  # the stalled message is being scored
        asked = time.monotonic()
        _request(second, MESSAGE)
        answer = json.loads(second_replies.readline())  # the second client is answered...
        waited = time.monotonic() - asked
        stalled = json.loads(first_replies.readline())  # ...and the first is told why
        assert answer == ordinary and "reason" not in answer
        assert stalled["label"] == "unsure" and stalled["reason"] == "not scored within 1 s (--timeout); marked unsure"
        # Another worker answers meanwhile: no waiting for the stalled one's deadline.
        assert waited < ordinary_seconds + 0.5, (waited, ordinary_seconds)
        _request(first, MESSAGE)  # the connection that stalled goes on too
        assert json.loads(first_replies.readline()) == ordinary
        assert server.poll() is None
        first.close()
        second.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "not scored within 1 s" in log_path.read_text()
