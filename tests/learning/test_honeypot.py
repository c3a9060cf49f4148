"""What a cron job over a honeypot Maildir needs from `learn`:
only what is new (--since-stamp), a bounded wait for the lock (--lock-wait)."""

import os
import shutil
import time

from conftest import SAMPLE, run_spamnb
from spamnb.model.modelstore import locked

SPAM = sorted((SAMPLE / "mail" / "spam").iterdir())


def test_since_stamp_reads_only_what_came_after_the_last_run(tmp_path, sample_model):
    model = tmp_path / "model.spamnb"
    shutil.copyfile(sample_model, model)
    honeypot = tmp_path / "honeypot" / "new"
    honeypot.mkdir(parents=True)
    (tmp_path / "honeypot" / "cur").mkdir()
    (tmp_path / "honeypot" / "tmp").mkdir()
    past = time.time() - 3600
    for index, message in enumerate(SPAM[:3]):
        target = honeypot / f"{index}.eml"
        target.write_bytes(message.read_bytes() + b"\nhoneypot copy\n")
        os.utime(target, (past, past))
    stamp = tmp_path / "cache" / "spamnb" / "honeypot.stamp"  # its folder made on first use, as mkdir -p
    first = run_spamnb("learn", "--spam", tmp_path / "honeypot", "--since-stamp", stamp, "--model", model)
    assert first.returncode == 0, first.stderr
    assert first.stdout.decode().splitlines()[0] == "learned 3 spam + 0 ham"
    assert stamp.exists() and abs(stamp.stat().st_mtime - time.time()) < 120
    assert stamp.parent.stat().st_mode & 0o777 == 0o700
    newer = honeypot / "3.eml"
    newer.write_bytes(SPAM[3].read_bytes() + b"\nhoneypot copy\n")
    arrived = stamp.stat().st_mtime + 0.1  # after the first run began, before the second
    time.sleep(0.2)
    os.utime(newer, (arrived, arrived))
    second = run_spamnb("learn", "--spam", tmp_path / "honeypot", "--since-stamp", stamp, "--model", model)
    # The three old ones are not even read (no "already learned"), the new one is learned.
    assert second.stdout.decode().splitlines()[0] == "learned 1 spam + 0 ham"
    third = run_spamnb("learn", "--spam", tmp_path / "honeypot", "--since-stamp", stamp, "--model", model)
    assert third.stdout.decode().splitlines() == ["learned 0 spam + 0 ham", f"model unchanged: {model}"]


def test_lock_wait_gives_up_with_75_while_another_writer_holds_the_model(tmp_path, sample_model):
    model = tmp_path / "model.spamnb"
    shutil.copyfile(sample_model, model)
    with locked(model):
        started = time.monotonic()
        result = run_spamnb("learn", "--spam", SPAM[0], "--lock-wait", "0.5", "--model", model)
        waited = time.monotonic() - started
    assert result.returncode == 75
    assert b"is locked by another writer (waited 0.5 s, --lock-wait)" in result.stderr
    assert 0.5 <= waited < 30
    after = run_spamnb("learn", "--spam", SPAM[0], "--lock-wait", "0.5", "--model", model)
    assert after.returncode == 0, after.stderr


def test_learn_waits_for_the_writer_before_it_and_a_signal_ends_the_wait(tmp_path, sample_model):
    """With no --lock-wait, learn waits as long as another writer holds the model,
    then learns; a signal while it waits ends it at once, one line, no traceback."""
    import signal
    import subprocess
    import sys

    model = tmp_path / "model.spamnb"
    shutil.copyfile(sample_model, model)
    fresh = tmp_path / "fresh.eml"
    fresh.write_bytes(SPAM[1].read_bytes() + b"\nnot learned before: qqzx\n")
    argv = [sys.executable, "-m", "spamnb", "learn", "--spam", str(fresh), "--model", str(model)]
    with locked(model):
        waiting = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        interrupted = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.5)
        assert waiting.poll() is None and interrupted.poll() is None  # both still waiting for the lock
        interrupted.send_signal(signal.SIGINT)
        _, stopped = interrupted.communicate(timeout=30)
        assert interrupted.returncode == 130 and stopped.count(b"\n") <= 1 and b"Traceback" not in stopped
        assert waiting.poll() is None
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    assert out.decode().splitlines()[0] == "learned 1 spam + 0 ham"
