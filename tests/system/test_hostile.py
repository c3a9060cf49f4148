"""Hostile and broken input: an answer or a clear error, in bounded time and memory.

Each case runs the real command line in a child process limited to 2 GB of
address space and asserts the exit status, what stderr says (one line, no
traceback) and the wall-clock time.
"""

import os
import resource
import subprocess
import sys
import time

import pytest

from conftest import SAMPLE

MEMORY_LIMIT = 2 * 1024 ** 3
TIME_LIMIT = 30.0


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(args, stdin=None, timeout=TIME_LIMIT * 2):
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "spamnb", *map(str, args)], stdin=stdin,
                            capture_output=True, timeout=timeout, preexec_fn=limited)
    return result, time.monotonic() - started


def nested(depth):
    out = b"Subject: deep\nContent-Type: multipart/mixed; boundary=b0\n\n"
    for i in range(depth):
        out += b"--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n" % (i, i + 1)
    return out


CASES = {
    "binary junk": os.urandom(200_000),
    "nul bytes": b"Subject: a\x00b\n\nhello\x00world\x00" * 1000,
    "100 MB message": b"Subject: big\n\n" + (b"word " * 20 + b"\n") * 1_000_000,
    "10 MB line": b"Subject: long\n\n" + b"x" * 10_000_000,
    "MIME 10,000 deep": nested(10_000),
    "100,000 parts": b"Subject: parts\nContent-Type: multipart/mixed; boundary=B\n\n"
                     + b"".join(b"--B\nContent-Type: text/plain\n\npart %d\n" % i for i in range(100_000)) + b"--B--\n",
    "base64 that does not decode": b"Subject: b\nContent-Transfer-Encoding: base64\n\n!!**not base64@@\n" * 100,
    "lying charset": b"Subject: c\nContent-Type: text/plain; charset=utf-16\n\n" + "正规发票".encode("gb2312") * 1000,
    "unknown charset": b"Subject: c\nContent-Type: text/plain; charset=x-klingon\n\n\xff\xfe\xfd" * 100,
    "RFC 2047 garbage": b"Subject: =?x?Q?=ZZ=?= =?utf-8?B?====?= =?gb2312?B?\xff\xfe?=\n\nbody\n",
    "HTML 1 MB deep": b"Subject: h\nContent-Type: text/html\n\n" + b"<div>" * 1_000_000 + b"text",
    "1 MB token": b"Subject: t\n\n" + b"a" * 1_000_000,
    "4 MB of Chinese": b"Subject: zh\nContent-Type: text/plain; charset=gb2312\n\n"
                       + "我司可办理正规发票优惠".encode("gb2312") * 200_000,
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_message_still_gets_a_score(tmp_path, sample_model, name):
    path = tmp_path / "message"
    path.write_bytes(CASES[name])
    result, seconds = run(["classify", "--model", sample_model, "--format", "tsv", path])
    from spamnb.mail.sources import looks_like_mail

    # Input that is not mail (binary junk) is reported unsure, with one line
    # saying why, and the input-error status: it was not scored.
    mail = looks_like_mail(CASES[name])
    assert result.returncode == (0 if mail else 4), (name, result.stderr[-500:])
    rows = result.stdout.decode().splitlines()
    assert len(rows) == 2 and rows[1].split("\t")[1] in ("spam", "ham", "unsure")
    assert 0.0 <= float(rows[1].split("\t")[2]) <= 1.0
    said = b"" if mail else f"spamnb: {path}: not mail".encode()
    if said:
        assert result.stderr.startswith(said) and result.stderr.count(b"\n") == 1, result.stderr[-300:]
        assert rows[1].split("\t")[1:3] == ["unsure", "0.500000"]
    else:
        assert result.stderr == b"", (name, result.stderr[-300:])
    assert seconds < TIME_LIMIT, (name, seconds)


def test_size_cap_is_configurable(tmp_path, sample_model):
    # The spam words sit past the first 4 KiB: with --max-size 4096 they are not read.
    spam = (SAMPLE / "mail" / "spam" / "zh-plain-gb2312-b64-024.eml").read_bytes()
    padded = spam.replace(b"\n\n", b"\n\n" + b"hello " * 2000 + b"\n", 1)
    path = tmp_path / "padded.eml"
    path.write_bytes(padded)
    whole, _ = run(["classify", "--model", sample_model, "--format", "tsv", path])
    capped, _ = run(["classify", "--model", sample_model, "--format", "tsv", "--max-size", "4096", path])
    assert whole.returncode == capped.returncode == 0
    assert whole.stdout != capped.stdout


def test_empty_file_closed_and_terminal_stdin(tmp_path, sample_model):
    empty = tmp_path / "empty.eml"
    empty.write_bytes(b"")
    result, _ = run(["classify", "--model", sample_model, empty])
    assert result.returncode == 4 and b"empty file" in result.stderr and b"Traceback" not in result.stderr
    # A terminal on stdin: refuse at once rather than wait for typing.
    import pty
    master, slave = pty.openpty()
    try:
        result, seconds = run(["classify", "--model", sample_model], stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert result.returncode == 4 and b"standard input is a terminal" in result.stderr and seconds < TIME_LIMIT


def test_broken_mbox_and_hostile_directories(tmp_path, sample_model):
    mbox = tmp_path / "box"
    mbox.write_bytes(b"".join(b"From a@b Sat Jan  4 10:00:00 2025\nSubject: %d\n\nFrom b\n>From c\nFrom x Mon Jan  1\n" % i
                              for i in range(1000)))
    result, _ = run(["classify", "--model", sample_model, "--format", "tsv", mbox])
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 1001
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "ok.eml").write_bytes((SAMPLE / "mail" / "ham" / sorted(os.listdir(SAMPLE / "mail" / "ham"))[0]).read_bytes())
    (tree / "sub" / "loop").symlink_to(tree)
    (tree / os.fsdecode(b"caf\xe9.eml")).write_bytes(b"Subject: x\n\ny\n")
    (tree / "dangling").symlink_to(tmp_path / "nowhere")
    result, seconds = run(["classify", "--model", sample_model, "--format", "tsv", tree])
    assert result.returncode == 4 and seconds < TIME_LIMIT  # the dangling link is reported
    assert len(result.stdout.splitlines()) == 3 and b"dangling" in result.stderr
    assert b"Traceback" not in result.stderr
