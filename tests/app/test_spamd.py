"""`spamnb serve --spamd`: SpamAssassin's own client, `spamc`, against a real daemon."""

import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import SAMPLE, run_spamnb

SPAMC = shutil.which("spamc")
SPAM_FILE = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"
HAM_FILE = SAMPLE / "maildir" / "ham" / "cur" / "1739174744.M1P4101.sample:2,S"

needs_spamc = pytest.mark.skipif(SPAMC is None, reason="spamc is not installed (apt-get install spamc)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SpamdServer:
    def __init__(self, model: Path, *args) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="spamnb-spamd-"))
        self.port = free_port()
        self.log_path = self.directory / "serve.log"
        env = dict(os.environ)
        env.pop("SPAMNB_MODEL", None)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "spamnb", "serve", "--model", str(model),
                 "--socket", str(self.directory / "serve.sock"), *map(str, args)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env)
        deadline = time.monotonic() + 60
        while "serving " not in self.log():
            assert self.process.poll() is None, self.log()
            assert time.monotonic() < deadline
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def model(tmp_path, sample_model) -> Path:
    path = tmp_path / "model.spamnb"
    shutil.copyfile(sample_model, path)
    return path


@pytest.fixture
def spamd(model):
    port = free_port()
    server = SpamdServer(model, "--spamd", f"127.0.0.1:{port}", "--spamd-learn")
    server.port = port
    yield server
    server.stop()


def spamc(server, *args, message: Path | bytes = HAM_FILE) -> subprocess.CompletedProcess:
    data = message if isinstance(message, bytes) else message.read_bytes()
    return subprocess.run([SPAMC, "-d", "127.0.0.1", "-p", str(server.port), *args], input=data,
                          capture_output=True, timeout=60)


def local(model: Path, message: Path) -> dict:
    result = run_spamnb("classify", "--model", model, "--format", "jsonl", message)
    return json.loads(result.stdout)


def raw_request(port: int, data: bytes, shut: bool = False) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(data)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def expected_points(model: Path, message: Path) -> float:
    verdict = local(model, message)
    spam_cutoff = json.loads(run_spamnb("inspect", "--model", model, "--format", "json").stdout)["summary"]["cutoffs"]["spam"]
    return round(5.0 + verdict["log_odds"] - math.log(spam_cutoff / (1 - spam_cutoff)), 1)


@needs_spamc
def test_check_says_what_classify_says_on_spamassassin_s_scale(spamd, model):
    for message, status in ((SPAM_FILE, 1), (HAM_FILE, 0)):
        result = spamc(spamd, "-c", message=message)
        assert result.returncode == status, result
        points, threshold = result.stdout.decode().strip().split("/")
        assert threshold == "5.0"
        assert local(model, message)["label"] == ("spam" if status else "ham")
        # One point per unit of log-odds, the spam cutoff at 5.0 (log-odds printed to 0.01).
        assert abs(float(points) - expected_points(model, message)) <= 0.11


@needs_spamc
def test_process_adds_spamassassin_headers_and_keeps_the_body(spamd):
    original = SPAM_FILE.read_bytes()
    forged = b"X-Spam-Flag: NO\n" + original  # a spammer's own verdict must not survive
    result = spamc(spamd, message=forged)
    assert result.returncode == 0
    head, _, body = result.stdout.partition(b"\n\n")
    assert body == original.partition(b"\n\n")[2]
    fields = [line for line in head.split(b"\n") if line.startswith(b"X-Spam-")]
    assert fields[0] == b"X-Spam-Flag: YES" and len(fields) == 3
    assert fields[2].startswith(b"X-Spam-Status: Yes, score=") and b"required=5.0 tests=SPAMNB_SPAM" in fields[2]
    assert head.split(b"\n")[-3:] == fields  # at the end of the header block


@needs_spamc
def test_report_symbols_and_ping(spamd):
    report = spamc(spamd, "-R", message=SPAM_FILE)
    assert report.returncode == 0  # spamc's -R exits 0 whatever the verdict (only -c and -E say)
    assert b"spamnb: spam, " in report.stdout and b"tokens known" in report.stdout
    symbols = spamc(spamd, "-y", message=SPAM_FILE)
    assert symbols.stdout.strip() == b"SPAMNB_SPAM"
    assert spamc(spamd, "-K").returncode == 0


@needs_spamc
def test_tell_learns_and_forgets_exactly(spamd, model):
    before = local(model, HAM_FILE)
    learned = spamc(spamd, "-L", "spam")
    assert learned.returncode == 0 and b"successfully" in learned.stdout
    after = local(model, HAM_FILE)
    assert after["log_odds"] > before["log_odds"]
    # The daemon reloads the model it changed: its own score moves too.
    assert float(spamc(spamd, "-c").stdout.split(b"/")[0]) > expected_points(model, HAM_FILE) - 0.11 - 10
    forgot = spamc(spamd, "-L", "forget")
    assert forgot.returncode == 0
    assert local(model, HAM_FILE)["log_odds"] == before["log_odds"]
    assert "learned a message" in spamd.log() and "forgot a message" in spamd.log()


@needs_spamc
def test_tell_that_changes_nothing_is_reported_so(spamd, model):
    # As spamd: DidSet / DidRemove only when the model changed, so that spamc
    # says "already" for a message learned twice or forgotten twice.
    first, again = spamc(spamd, "-L", "spam"), spamc(spamd, "-L", "spam")
    assert first.stdout.strip() == b"Message successfully un/learned"
    assert again.returncode == 0 and again.stdout.strip() == b"Message was already un/learned"
    learned = model.read_bytes()
    forgot, again = spamc(spamd, "-L", "forget"), spamc(spamd, "-L", "forget")
    assert forgot.stdout.strip() == b"Message successfully un/learned"
    assert again.returncode == 0 and again.stdout.strip() == b"Message was already un/learned"
    assert model.read_bytes() != learned
    assert spamd.log().count("left the model unchanged") == 2


def test_points_stay_on_the_side_of_the_threshold_the_verdict_is():
    from spamnb.app.spamd import points
    from spamnb.model.scoring import Cutoffs, Score, logit

    cutoffs = Cutoffs(spam=0.99, ham=0.01)
    edge = logit(0.99)
    # 4.96 points would round up to 5.0, where a client comparing points with the threshold says spam.
    just_under = Score(log_odds=edge - 0.04, probability=0.9896, label="unsure")
    assert points(just_under, cutoffs) == 4.9
    assert points(Score(log_odds=edge, probability=0.99, label="spam"), cutoffs) == 5.0
    assert points(Score(log_odds=edge + 1.0, probability=0.997, label="spam"), cutoffs) == 6.0
    assert points(Score(log_odds=-edge, probability=0.01, label="ham"), cutoffs) == round(5.0 - 2 * edge, 1)
    # Not scored (log-odds 0) under a spam cutoff below 0.5: unsure, so under 5.0.
    not_scored = Score(log_odds=0.0, probability=0.5, label="unsure", reason="not mail")
    assert points(not_scored, Cutoffs(spam=0.35, ham=0.35)) == 4.9


def test_tell_is_refused_unless_learning_is_allowed(model):
    port = free_port()
    server = SpamdServer(model, "--spamd", f"127.0.0.1:{port}")
    try:
        body = HAM_FILE.read_bytes()
        answer = raw_request(port, b"TELL SPAMC/1.5\r\nMessage-class: spam\r\nSet: local\r\n"
                             + f"Content-length: {len(body)}\r\n\r\n".encode() + body)
        assert answer.startswith(b"SPAMD/1.5 64 EX_USAGE this server does not learn")
        assert model.read_bytes() == Path(model).read_bytes()
    finally:
        server.stop()


def test_garbage_and_truncated_requests_get_an_error_and_the_server_goes_on(spamd):
    assert raw_request(spamd.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"SPAMD/1.5 76 EX_PROTOCOL")
    assert raw_request(spamd.port, b"CHECK SPAMC/1.5\r\n\r\n").startswith(
        b"SPAMD/1.5 76 EX_PROTOCOL Content-length is required")
    assert raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nContent-length: 999\r\n\r\nSubject: x\n", shut=True) \
        .startswith(b"SPAMD/1.5 76 EX_PROTOCOL the message ended after 11 of 999 bytes")
    assert raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nContent-length: 99999999999\r\n\r\n").startswith(
        b"SPAMD/1.5 65 EX_DATAERR")
    assert raw_request(spamd.port, b"X" * 20000).startswith(b"SPAMD/1.5 76 EX_PROTOCOL no end of the request head")
    assert raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nCompress: zlib\r\nContent-length: 5\r\n\r\nnope!") \
        .startswith(b"SPAMD/1.5 65 EX_DATAERR the zlib body does not inflate")
    # A compressed message that would inflate past the size cap is refused, not inflated.
    import zlib

    bomb = zlib.compress(b"\0" * (64 << 20), 9)
    answer = raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nCompress: zlib\r\n"
                         + f"Content-length: {len(bomb)}\r\n\r\n".encode() + bomb)
    assert answer.startswith(b"SPAMD/1.5 65 EX_DATAERR the message inflates past")
    ping = raw_request(spamd.port, b"PING SPAMC/1.5\r\n\r\n")
    assert ping == b"SPAMD/1.5 0 PONG\r\n\r\n"
    body = HAM_FILE.read_bytes()
    ok = raw_request(spamd.port, f"CHECK SPAMC/1.5\r\nContent-length: {len(body)}\r\n\r\n".encode() + body)
    assert ok.startswith(b"SPAMD/1.5 0 EX_OK\r\nSpam: False ; ")
    assert spamd.process.poll() is None


def test_only_allowed_networks_are_served(model):
    port = free_port()
    server = SpamdServer(model, "--spamd", f"127.0.0.1:{port}", "--spamd-allow", "192.0.2.0/24")
    try:
        try:  # told why, or (TCP closing on a request it never read) reset
            answer = raw_request(port, b"PING SPAMC/1.5\r\n\r\n")
        except ConnectionResetError:
            answer = b"SPAMD/1.5 76 EX_PROTOCOL refused (reset)"
        assert answer.startswith(b"SPAMD/1.5 76 EX_PROTOCOL refused")
        assert "not in --spamd-allow" in server.log()
    finally:
        server.stop()


@needs_spamc
def test_spamd_on_a_unix_socket(model, tmp_path):
    path = tmp_path / "spamd" / "spamd.sock"
    path.parent.mkdir(mode=0o700)
    server = SpamdServer(model, "--spamd", path)
    try:
        result = subprocess.run([SPAMC, "-U", str(path), "-c"], input=SPAM_FILE.read_bytes(),
                                capture_output=True, timeout=60)
        assert result.returncode == 1 and result.stdout.strip().endswith(b"/5.0")
    finally:
        server.stop()
    assert not path.exists()


def test_malformed_spamd_requests_are_answered_with_an_error_and_the_daemon_goes_on(spamd, tmp_path):
    # A length too long to parse, an unknown compression, a reset half-way
    # through a head and a cut zlib stream: each is answered (or dropped)
    # and the next client is served.
    huge = raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nContent-length: " + b"1" * 5000 + b"\r\n\r\n")
    assert huge.startswith(b"SPAMD/1.5 65 EX_DATAERR")
    odd = raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nContent-length: 1\r\nCompress: \xff\r\n\r\nx")
    assert odd.startswith(b"SPAMD/1.5 76 EX_PROTOCOL unknown Compress")
    with socket.create_connection(("127.0.0.1", spamd.port), timeout=20) as sock:
        sock.sendall(b"CHECK SPAMC/1.5\r\n")  # half a head, then gone with a reset
        time.sleep(0.3)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, __import__("struct").pack("ii", 1, 0))
    import zlib

    cut = zlib.compress(HAM_FILE.read_bytes())[:-8]
    truncated = raw_request(spamd.port, b"CHECK SPAMC/1.5\r\nCompress: zlib\r\n"
                            + f"Content-length: {len(cut)}\r\n\r\n".encode() + cut)
    assert truncated.startswith(b"SPAMD/1.5 65 EX_DATAERR the zlib body ends before its stream does")
    time.sleep(0.3)
    assert spamd.process.poll() is None, spamd.log()
    assert raw_request(spamd.port, b"PING SPAMC/1.5\r\n\r\n") == b"SPAMD/1.5 0 PONG\r\n\r\n"
