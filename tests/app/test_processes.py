"""Worker pools end with their parent: `spamnb classify DIR | head
-1` (SIGPIPE), a SIGTERM, or the parent killed outright (a crash) leave no
worker process running.  Real processes; children are found in /proc."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import SAMPLE

GONE_WITHIN = 5.0


def children(pid: int) -> set[int]:
    """The live child processes of `pid`, from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != b"Z":
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def many_messages(tmp_path_factory):
    """1,240 message files: enough for a pool, and for more output than a pipe holds."""
    folder = tmp_path_factory.mktemp("many")
    sources = sorted(p for p in (SAMPLE / "mail").rglob("*") if p.is_file())
    for copy in range(10):
        for number, source in enumerate(sources):
            shutil.copyfile(source, folder / f"{copy:02d}-{number:03d}.eml")
    return folder


def start(args):
    return subprocess.Popen([sys.executable, "-m", "spamnb", *map(str, args)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def workers_of(parent: subprocess.Popen, wanted: int = 1, within: float = 60.0) -> set[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = children(parent.pid)
        if len(found) >= wanted:
            return found
        if parent.poll() is not None:
            break
        time.sleep(0.05)
    pytest.fail(f"no worker processes appeared (parent status {parent.poll()})")


def assert_all_end(workers: set[int]) -> float:
    started = time.monotonic()
    while time.monotonic() - started < GONE_WITHIN:
        if not any(alive(pid) for pid in workers):
            return time.monotonic() - started
        time.sleep(0.05)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # ours to clean up: they would otherwise run for ever
        os.kill(pid, signal.SIGKILL)
    pytest.fail(f"worker processes {left} outlived their parent")


@pytest.mark.parametrize("ending", ["SIGPIPE (| head -1)", "SIGTERM", "SIGKILL (a crash)"])
def test_classify_workers_end_with_their_parent(sample_model, many_messages, ending):
    parent = start(["classify", "-j", "2", "--model", sample_model, many_messages])
    try:
        first = parent.stdout.readline()  # the pool is running once a result is out
        assert first.startswith((b"spam", b"ham", b"unsure")), parent.stderr.read()
        workers = workers_of(parent, 2)
        if ending.startswith("SIGPIPE"):
            parent.stdout.close()  # as head does after one line; the next write gets SIGPIPE
        else:
            parent.send_signal(signal.SIGTERM if ending == "SIGTERM" else signal.SIGKILL)
        parent.wait(timeout=60)
        assert parent.returncode < 0  # it died of the signal
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert_all_end(workers)


def test_training_workers_end_with_their_parent(tmp_path, many_messages):
    # train FOLDER wants spam/ and ham/: two links to the same messages do.
    (tmp_path / "mail").mkdir()
    for label in ("spam", "ham"):
        os.symlink(many_messages, tmp_path / "mail" / label)
    parent = start(["train", tmp_path / "mail", "-j", "2", "-q", "--model", tmp_path / "m.spamnb"])
    try:
        workers = workers_of(parent, 2)
        time.sleep(0.3)
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=60)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert_all_end(workers)
