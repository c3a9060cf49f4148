"""`spamnb serve` and `classify --server`: real processes on real Unix sockets."""

import json
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
from spamnb.errors import ServerError
from spamnb.app.server import HEADER, Client
from spamnb.mail.sources import MAX_MESSAGE_BYTES

HAM_FILE = SAMPLE / "maildir" / "ham" / "cur" / "1739174744.M1P4101.sample:2,S"


class Server:
    """A `spamnb serve` subprocess with its socket and its stderr log."""

    def __init__(self, model: Path, socket_path: Path) -> None:
        self.socket = socket_path
        self.log_path = socket_path.parent / "serve.log"
        env = dict(os.environ)
        env.pop("SPAMNB_MODEL", None)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "spamnb", "serve", "--model", str(model), "--socket", str(socket_path)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env)
        deadline = time.monotonic() + 60
        # The first line is logged once the socket listens (and a stale one was replaced).
        while "serving " not in self.log():
            assert self.process.poll() is None, f"serve exited: {self.log()}"
            assert time.monotonic() < deadline, "serve did not start in time"
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, text: str, count: int = 1, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while self.log().count(text) < count:
            assert time.monotonic() < deadline, f"no {text!r} in the log: {self.log()}"
            time.sleep(0.05)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


@pytest.fixture(scope="module")
def server(sample_model):
    # In /tmp itself, not pytest's 0700 tree, so the other-user test can reach the socket.
    directory = Path(tempfile.mkdtemp(prefix="spamnb-serve-test-"))
    running = Server(sample_model, directory / "serve.sock")
    yield running
    running.stop()
    shutil.rmtree(directory, ignore_errors=True)


def run_together(*commands) -> list[subprocess.CompletedProcess]:
    """Like conftest.run_spamnb for each command, run side by side to halve the wait."""
    env = dict(os.environ)
    env.pop("SPAMNB_MODEL", None)
    processes = [subprocess.Popen([sys.executable, "-m", "spamnb", *map(str, args)], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for args in commands]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results


def request(sock: socket.socket, raw: bytes) -> None:
    sock.sendall(HEADER.pack(len(raw)) + raw)


def replies(sock: socket.socket, count: int) -> list[dict]:
    stream = sock.makefile("rb")
    return [json.loads(stream.readline()) for _ in range(count)]


def connect(path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    sock.connect(str(path))
    return sock


@pytest.mark.parametrize("args", [
    ["--format", "jsonl", SAMPLE / "mail"],
    ["--format", "text", SAMPLE / "mail"],
    ["--format", "tsv", SAMPLE / "mbox"],
    ["--format", "json", SAMPLE / "mbox"],
    ["--spam-cutoff", "0.6", "--ham-cutoff", "0.4", "--exit-code", SAMPLE / "maildir" / "ham"],
    # Under the model's ham cutoff (0.2): the ham cutoff comes down with it, on both sides.
    ["--spam-cutoff", "0.1", "--format", "tsv", SAMPLE / "maildir" / "ham"],
], ids=["jsonl", "text", "tsv", "json", "cutoffs-exit-code", "spam-cutoff-alone"])
def test_server_output_is_the_local_output(server, sample_model, args):
    local, remote = run_together(["classify", "--model", sample_model, *args],
                                 ["classify", "--server", server.socket, *args])
    assert local.returncode in (0, 1, 2), local.stderr.decode()
    assert remote.stdout.decode().splitlines() == local.stdout.decode().splitlines()
    assert remote.returncode == local.returncode
    assert remote.stderr == local.stderr == b""
    assert len(local.stdout.splitlines()) > 1


def test_stdin_through_the_server(server, sample_model):
    data = HAM_FILE.read_bytes()
    local = run_spamnb("classify", "--model", sample_model, "--format", "tsv", "-", input=data)
    remote = run_spamnb("classify", "--server", server.socket, "--format", "tsv", "-", input=data)
    assert (remote.returncode, remote.stdout) == (local.returncode, local.stdout) == (0, local.stdout)


def test_no_server_is_exit_75_with_one_line(tmp_path):
    result = run_spamnb("classify", "--server", tmp_path / "nothing.sock", SAMPLE / "mail")
    assert result.returncode == 75
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert lines == [f"spamnb: no spamnb server at {tmp_path / 'nothing.sock'} (start one with `spamnb serve`)"]


def test_options_that_need_the_model_here_are_refused(server, sample_model):
    for result in run_together(["classify", "--server", server.socket, "--explain", HAM_FILE],
                               ["classify", "--server", server.socket, "--model", sample_model, HAM_FILE]):
        assert result.returncode == 64, result.stderr
        assert b"does not go with --server" in result.stderr


def test_garbage_and_oversized_requests_get_an_error_and_the_server_goes_on(server):
    # Not the protocol at all: "GET " read as a length is over a gigabyte.
    with connect(server.socket) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: spamnb\r\n\r\n")
        [reply] = replies(sock, 1)
        assert "over the limit" in reply["error"]
        assert sock.recv(10) == b""  # and hung up
    with connect(server.socket) as sock:
        sock.sendall(HEADER.pack(MAX_MESSAGE_BYTES + 1) + b"x" * 1000)
        [reply] = replies(sock, 1)
        assert "over the limit" in reply["error"]
    with connect(server.socket) as sock:
        sock.sendall(b"\x00\x00")  # half a length, then gone
    # Random bytes are a message like any other; several requests on one
    # connection, sent before any reply is read, are answered in order.
    ham = HAM_FILE.read_bytes()
    with connect(server.socket) as sock:
        for raw in (os.urandom(5000), b"", ham, b"\xff" * 100_000):
            request(sock, raw)
        answers = replies(sock, 4)
        assert all(a["label"] in ("spam", "ham", "unsure") for a in answers), answers
        assert answers[1]["tokens_distinct"] == 0
    with Client(str(server.socket)) as client:
        assert client.score(ham) == answers[2]
    assert server.process.poll() is None


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user (CI runs as root)")
def test_another_user_is_refused_by_peer_credentials(server):
    # Open the file modes wide, so only the SO_PEERCRED check stands in the way.
    os.chmod(server.socket.parent, 0o711)
    os.chmod(server.socket, 0o666)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become nobody, connect, report what the server said
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            sock = connect(server.socket)
            try:
                request(sock, b"Subject: hello\n\nhello\n")
            except OSError:
                pass
            os.write(write_end, b"reply " + sock.makefile("rb").readline())
        except BaseException as error:  # noqa: BLE001 -- reported to the parent
            os.write(write_end, f"failed {type(error).__name__}: {error}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        said = pipe.read()
    os.waitpid(pid, 0)
    assert said.startswith(b"reply {"), said
    assert json.loads(said[len(b"reply "):]) == {
        "error": "refused: this server serves only the user who started it"}
    server.wait_for_log("refused a connection from uid 65534")
    with Client(str(server.socket)) as client:  # its own user is still served
        assert client.score(HAM_FILE.read_bytes())["label"] in ("ham", "unsure", "spam")


def test_a_second_server_on_the_same_socket_is_refused(server, sample_model):
    result = run_spamnb("serve", "--model", sample_model, "--socket", server.socket)
    assert result.returncode == 64
    assert result.stderr.decode().startswith("spamnb: another spamnb serve is already running on ")


def test_a_directory_others_can_write_is_refused(tmp_path, sample_model):
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    os.chmod(open_dir, 0o777)
    result = run_spamnb("serve", "--model", sample_model, "--socket", open_dir / "serve.sock")
    assert result.returncode == 64
    assert b"others can write to it" in result.stderr
    assert not (open_dir / "serve.sock").exists()


def test_sigterm_stops_cleanly_and_a_stale_socket_is_replaced(tmp_path, sample_model):
    path = tmp_path / "run" / "serve.sock"
    path.parent.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # a server that died: the file stays, nothing listens
    stale.close()
    running = Server(sample_model, path)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"
    with Client(str(path)) as client:
        assert client.score(HAM_FILE.read_bytes())["label"]
        started = time.monotonic()
        running.process.send_signal(signal.SIGTERM)
        assert running.process.wait(timeout=5) == 0
    assert time.monotonic() - started < 2
    assert not path.exists()
    assert "stopped (SIGTERM); 1 messages scored" in running.log()
    assert "Traceback" not in running.log()


def test_reloads_after_learn_and_keeps_the_old_model_when_the_new_is_broken(tmp_path, sample_model):
    model = tmp_path / "model.spamnb"
    shutil.copyfile(sample_model, model)
    running = Server(model, tmp_path / "serve.sock")
    try:
        ham = HAM_FILE.read_bytes()
        with Client(str(running.socket)) as client:
            before = client.score(ham)
            learned = run_spamnb("learn", "--spam", HAM_FILE, "--model", model, "-q")
            assert learned.returncode == 0, learned.stderr
            after = client.score(ham)  # the same connection sees the new model
            assert after["exact"]["log_odds"] > before["exact"]["log_odds"]
            local = run_spamnb("classify", "--model", model, "--format", "jsonl", HAM_FILE)
            expected = json.loads(local.stdout)
            assert {k: after[k] for k in expected if k != "path"} == {k: v for k, v in expected.items()
                                                                      if k != "path"}
            assert "reloaded" not in running.log()  # a journal append is caught up, not loaded whole

            good = model.read_bytes()
            broken = tmp_path / "broken"
            broken.write_bytes(b"not a model at all")
            os.replace(broken, model)
            assert client.score(ham) == after
            running.wait_for_log("failed")
            assert client.score(ham) == after  # logged once, not at every request
            assert running.log().count("failed") == 1

            # Put a good model back; SIGHUP reloads with no request needed.
            broken.write_bytes(good)
            os.replace(broken, model)
            running.process.send_signal(signal.SIGHUP)
            running.wait_for_log("reloaded")
            assert client.score(ham) == after
    finally:
        assert running.stop() == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user (CI runs as root)")
def test_the_client_refuses_a_server_of_another_user():
    # Someone else listening where our server should be must not get our mail.
    directory = Path(tempfile.mkdtemp(dir="/tmp"))  # not under pytest's 0700 tmp: nobody must reach it
    os.chmod(directory, 0o777)
    path = directory / "impostor.sock"
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the impostor: nobody, answering "ham" to anything
        try:
            os.close(ready_read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(path))
            os.chmod(path, 0o666)
            listener.listen(1)
            os.write(ready_write, b"listening")
            connection, _ = listener.accept()
            connection.recv(65536)
            connection.sendall(b'{"label": "ham"}\n')
            connection.close()
        except BaseException as error:  # noqa: BLE001 -- reported to the parent
            os.write(ready_write, f"failed {error}".encode())
        finally:
            os._exit(0)
    os.close(ready_write)
    try:
        said = os.read(ready_read, 200)
        assert said == b"listening", said
        with pytest.raises(ServerError, match="runs as uid 65534, not as you"):
            Client(str(path))
    finally:
        os.close(ready_read)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        shutil.rmtree(directory, ignore_errors=True)
