"""`spamnb filter` always delivers: exit 0 with the message plus one
header, or exit 75 with the message byte for byte unchanged, whatever fails;
the header lands where every parser sees it, whatever the line ends; input of
any size streams through in bounded memory.

Every case runs the real command line in a fresh process.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import os
import re
import resource
import subprocess
import sys
import threading
import time

import pytest

from conftest import SAMPLE, run_spamnb
from spamnb import _core
from spamnb.mail.headerfield import with_status_header

SPAM_FILE = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"
HEADER = b"X-Spamnb-Status"


def message() -> bytes:
    return SPAM_FILE.read_bytes()


def one_line(stderr: bytes) -> None:
    assert b"Traceback" not in stderr and len(stderr.decode().strip().splitlines()) <= 6, stderr


# -- every failure: the message back, unchanged, exit 75 ----------------------------

def _failures(tmp, model):
    """(name, args before and after `filter`, environment) of each way filter can fail."""
    bad_toml = tmp / "bad.toml"
    bad_toml.write_text("model = \n")
    misspelt = tmp / "misspelt.toml"
    misspelt.write_text("[filter]\nheadr = \"X-Verdict\"\n")
    header_cr = tmp / "header.toml"
    header_cr.write_text('[filter]\nheader = "X-Verdict\\r\\nBcc: victim@example.com"\n')
    corrupt = tmp / "corrupt.spamnb"
    corrupt.write_bytes(model.read_bytes()[:500])
    fifo = tmp / "fifo.spamnb"
    os.mkfifo(fifo)
    m = ["--model", str(model)]
    return {
        "SPAMNB_SPAM_CUTOFF=abc": ([], m, {"SPAMNB_SPAM_CUTOFF": "abc"}),
        "SPAMNB_SPAM_CUTOFF=nan": ([], m, {"SPAMNB_SPAM_CUTOFF": "nan"}),
        "a mistyped option": ([], ["--modle", str(model)], {}),
        "a mistyped global option": (["--confg", "x"], m, {}),
        "a settings file with a syntax error": ([], m, {"SPAMNB_CONFIG": str(bad_toml)}),
        "a misspelt setting": ([], m, {"SPAMNB_CONFIG": str(misspelt)}),
        "SPAMNB_CONFIG=/dev/zero": ([], m, {"SPAMNB_CONFIG": "/dev/zero"}),
        "--config of a missing file": (["--config", str(tmp / "none.toml")], m, {}),
        "--header with a line break": ([], m + ["--header", "X-A\nBcc: victim@example.com"], {}),
        "SPAMNB_HEADER with a line break": ([], m, {"SPAMNB_HEADER": "X-A\nBcc: victim@example.com"}),
        "header = in settings with CRLF": ([], m, {"SPAMNB_CONFIG": str(header_cr)}),
        "--header with a colon": ([], m + ["--header", "X-A: b"], {}),
        "--max-size 1e30": ([], m + ["--max-size", "1e30"], {}),
        "--timeout nan": ([], m + ["--timeout", "nan"], {}),
        "--help with a message on stdin": ([], m + ["--help"], {}),
        "no model": ([], ["--model", str(tmp / "missing.spamnb")], {}),
        "a corrupt model": ([], ["--model", str(corrupt)], {}),
        "a FIFO at the model path": ([], ["--model", str(fifo)], {}),
    }


FAILURES = ["SPAMNB_SPAM_CUTOFF=abc", "SPAMNB_SPAM_CUTOFF=nan", "a mistyped option", "a mistyped global option",
            "a settings file with a syntax error", "a misspelt setting", "SPAMNB_CONFIG=/dev/zero",
            "--config of a missing file", "--header with a line break", "SPAMNB_HEADER with a line break",
            "header = in settings with CRLF", "--header with a colon", "--max-size 1e30", "--timeout nan",
            "--help with a message on stdin", "no model", "a corrupt model", "a FIFO at the model path"]


@pytest.mark.parametrize("case", FAILURES)
def test_every_failure_hands_back_the_message_unchanged_with_75(tmp_path, sample_model, case):
    before, after, env = _failures(tmp_path, sample_model)[case]
    raw = message()
    started = time.monotonic()
    result = run_spamnb(*before, "filter", *after, input=raw, env=env, timeout=60)
    assert time.monotonic() - started < 20  # a FIFO or /dev/zero is refused, not waited on
    assert result.returncode == 75, (case, result.returncode, result.stderr)
    assert result.stdout == raw, case
    assert b"passed through unchanged" in result.stderr, result.stderr
    if case == "--help with a message on stdin":
        assert b"Usage: spamnb filter" in result.stderr  # help goes to stderr: stdout is the message's
    else:
        one_line(result.stderr)


def test_environment_errors_name_the_variable_not_an_option(tmp_path, sample_model):
    result = run_spamnb("filter", "--model", sample_model, input=message(), env={"SPAMNB_SPAM_CUTOFF": "abc"})
    assert b"$SPAMNB_SPAM_CUTOFF" in result.stderr and b"--spam-cutoff" not in result.stderr


def test_stdout_on_a_full_disk_is_exit_75_not_70(sample_model):
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "spamnb", "filter", "--model", str(sample_model)],
                                input=message(), stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert result.returncode == 75, result.stderr
    assert b"No space left on device" in result.stderr and b"internal error" not in result.stderr
    one_line(result.stderr)


def test_a_reader_that_goes_away_is_exit_75(sample_model):
    # stdout closed before filter writes: EPIPE reported, not death by SIGPIPE.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([sys.executable, "-m", "spamnb", "filter", "--model", str(sample_model)],
                                input=message(), stdout=write_end, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write_end)
    assert result.returncode == 75 and b"Broken pipe" in result.stderr, result.stderr


# -- input beyond the read cap: streamed through, memory bounded ----------------------

MEMORY_LIMIT = 128 * 1024 * 1024  # a filter that held the message whole would need over 150 MB


def _stream_through(args, chunks, limit=MEMORY_LIMIT, keep=1 << 20):
    """Run spamnb with `chunks` (a generator) written to its stdin, under an
    address-space limit; returns (status, first `keep` bytes of the output,
    sha256 of the rest, output size, stderr)."""
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    child = subprocess.Popen([sys.executable, "-m", "spamnb", *map(str, args)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limited)

    def feed():
        try:
            for chunk in chunks:
                child.stdin.write(chunk)
        except BrokenPipeError:
            pass
        finally:
            try:
                child.stdin.close()
            except BrokenPipeError:
                pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    head, digest, size = b"", hashlib.sha256(), 0
    while True:
        block = child.stdout.read(1 << 16)
        if not block:
            break
        size += len(block)
        if len(head) < keep:
            head += block
        else:
            digest.update(block)
    stderr = child.stderr.read()
    child.wait(timeout=120)
    feeder.join(timeout=10)
    return child.returncode, head, digest.hexdigest(), size, stderr


def _split(chunks, offset: int):
    """(the first `offset` bytes, sha256 of the rest, total size) of a generated input."""
    head, digest, size = b"", hashlib.sha256(), 0
    for block in chunks:
        size += len(block)
        if len(head) < offset:
            take = offset - len(head)
            head += block[:take]
            digest.update(block[take:])
        else:
            digest.update(block)
    return head, digest.hexdigest(), size


def fifty_mb_of_zeros():
    for _ in range(50):
        yield bytes(1 << 20)


def a_message_with_fifty_mb_body():
    yield message()
    for _ in range(50):
        yield b"A" * 76 + b"\n" + bytes(1 << 20)[:-77]


def test_50_mb_of_zeros_stream_back_unchanged_with_75_in_bounded_memory(sample_model):
    status, head, rest, size, stderr = _stream_through(["filter", "--model", sample_model], fifty_mb_of_zeros())
    assert status == 75, stderr
    assert (head, rest, size) == _split(fifty_mb_of_zeros(), len(head))
    assert b"no end of the header block" in stderr and b"MemoryError" not in stderr


def test_a_message_past_the_read_cap_is_tagged_and_streamed_in_bounded_memory(sample_model):
    status, head, rest, size, stderr = _stream_through(["filter", "--model", sample_model],
                                                       a_message_with_fifty_mb_body())
    assert status == 0, stderr
    added = re.search(rb"\nX-Spamnb-Status: Yes, [^\n]*\n", head)
    assert added is not None and added.start() < len(message())
    line = added.group()[1:]
    # The output is the input with the one line inserted, byte for byte.
    expected_head, expected_rest, expected_size = _split(a_message_with_fifty_mb_body(), len(head) - len(line))
    assert head.replace(line, b"", 1) == expected_head and rest == expected_rest
    assert size == expected_size + len(line) > 50 * 1024 * 1024


def test_stdin_that_never_ends_or_is_a_directory_is_refused_at_once(tmp_path, sample_model):
    with open("/dev/zero", "rb") as zero:
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "spamnb", "filter", "--model", str(sample_model)],
                                stdin=zero, capture_output=True, timeout=60)
    assert result.returncode == 75 and result.stdout == b"" and time.monotonic() - started < 10
    assert b"standard input is a device, not a file or pipe" in result.stderr
    one_line(result.stderr)
    # A directory on stdin.  CPython itself refuses one before any code runs
    # ("Fatal Python error: init_sys_streams"), so spamnb is given one the
    # only way it can be: replaced under a running interpreter.
    script = ("import os; os.dup2(os.open(%r, os.O_RDONLY), 0); "
              "from spamnb.app.fastpath import main; main(['filter', '--model', %r])" % (str(tmp_path), str(sample_model)))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == 75 and result.stdout == b"", result.stderr
    assert b"standard input is a directory" in result.stderr and b"Fatal" not in result.stderr
    one_line(result.stderr)
    directory = os.open(tmp_path, os.O_RDONLY)
    try:
        result = subprocess.run([sys.executable, "-m", "spamnb", "filter", "--model", str(sample_model)],
                                stdin=directory, capture_output=True, timeout=60)
    finally:
        os.close(directory)
    # The interpreter's refusal: nothing written, a failure status every
    # documented mail setup treats as "keep the message and retry".
    assert result.returncode != 0 and result.stdout == b""


def test_classify_of_an_endless_input_returns(sample_model):
    with open("/dev/zero", "rb") as zero:
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "spamnb", "classify", "--model", str(sample_model), "-"],
                                stdin=zero, capture_output=True, timeout=60)
    assert result.returncode == 4 and b"standard input is a device" in result.stderr
    assert time.monotonic() - started < 10

    def endless():
        while True:
            yield bytes(1 << 20)

    started = time.monotonic()
    status, head, _, _, stderr = _stream_through(["classify", "--model", sample_model, "--format", "tsv", "-"],
                                                 endless(), limit=512 * 1024 * 1024)
    # Zeros are not mail: unsure, said so, and the input-error status.
    assert status == 4 and head.count(b"\n") == 2 and b"-: not mail" in stderr, stderr
    assert time.monotonic() - started < 60


# -- where the header goes ------------------------------------------------------------

ENDINGS = {
    "CRLF": [b"\r\n"] * 3, "LF": [b"\n"] * 3, "CRLF then LF": [b"\r\n", b"\n", b"\n"],
    "LF then CRLF": [b"\n", b"\r\n", b"\r\n"], "bare CR": [b"\r"] * 3,
}
BLOCK_ENDS = ["empty line", "a line holding a space", "a line that is not a field", "end of message",
              "end of message without a line end"]


def generated_message(ending: str, block_end: str, stale: bool) -> tuple[bytes, bytes]:
    """A message of three fields (one folded), the header block ended as
    `block_end`, a body whose first line starts `X-Spamnb-Status`; with
    `stale`, a forged status field (folded) among the fields.  Returns the
    message and the line end the new field must take."""
    ends = ENDINGS[ending]
    fields = [b"Subject: cheap pills" + ends[0] + b"\tfolded subject line",
              b"From: a@example.com", b"To: b@example.com"]
    if stale:
        fields.insert(1, b"X-Spamnb-Status: No, score=0.0000" + ends[1] + b"\tforged")
    lines = [field + ends[min(i, 2)] for i, field in enumerate(fields)]
    last_end = ends[2]
    body = b"X-Spamnb-Status: this is a body line" + last_end + b"buy now" + last_end
    if block_end == "empty line":
        return b"".join(lines) + last_end + body, last_end
    if block_end == "a line holding a space":
        return b"".join(lines) + b" " + last_end + body, last_end
    if block_end == "a line that is not a field":
        return b"".join(lines) + b"buy now, not a field" + last_end + body, last_end
    if block_end == "end of message":
        return b"".join(lines), last_end
    return b"".join(lines)[:-len(last_end)], ends[0]


def _parsed(raw: bytes):
    return email.message_from_bytes(raw, policy=email.policy.compat32)


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("block_end", BLOCK_ENDS)
@pytest.mark.parametrize("stale", [False, True], ids=["fresh", "forged copy"])
def test_the_header_goes_where_every_parser_sees_it(ending, block_end, stale):
    raw, newline = generated_message(ending, block_end, stale)
    out = with_status_header(raw, "Yes, score=0.9999, log-odds=9.00, model=m")
    added = b"X-Spamnb-Status: Yes, score=0.9999, log-odds=9.00, model=m" + newline
    assert out.count(added) == 1
    # Nothing but the added line and the forged field changed, byte for byte.
    forged = re.compile(rb"X-Spamnb-Status: No, score=0\.0000(?:\r\n|\n|\r)\tforged(?:\r\n|\n|\r)")
    original = forged.sub(b"", raw, count=1)
    if block_end == "end of message without a line end":
        original += newline  # the last field gets the line end it lacked
    assert out.replace(added, b"", 1) == original
    # The strictest reader (Python's email, which splits lines on CR, LF and
    # CRLF and ends the header block at the first line that is not a field)
    # sees the new status field first, and the body unchanged.  (It reads a
    # line holding a space as a fold, so the body's look-alike line is a
    # second field to it; a body is never edited, so that line stays.)
    seen = _parsed(out).get_all("X-Spamnb-Status")
    assert seen and seen[0] == "Yes, score=0.9999, log-odds=9.00, model=m", seen  # no fold taken in
    assert len(seen) == (2 if block_end == "a line holding a space" else 1), seen
    assert _parsed(out).get_payload() == _parsed(forged.sub(b"", raw, count=1)).get_payload()
    # A reader that ends the block at the first empty line or blank line
    # (procmail, RFC 5322) sees it there too.
    lines = re.split(rb"\r\n|\n" if ending != "bare CR" else rb"\r", out)
    header_lines = lines[:next((i for i, line in enumerate(lines) if not line.strip()), len(lines))]
    assert added.rstrip(b"\r\n") in header_lines
    # The body line that starts like the field is still there.
    if block_end not in ("end of message", "end of message without a line end"):
        assert b"X-Spamnb-Status: this is a body line" in out


@pytest.mark.parametrize("ending", ["LF", "CRLF"])
def test_a_line_holding_a_space_after_the_header_stays_the_fold_it_was(sample_model, ending):
    # Readers that take the blank line for a fold must not fold it into the
    # status field; readers that take it for the end of the header still
    # find the field above it.
    eol = ending.replace("CRLF", "\r\n").replace("LF", "\n").encode()
    raw = eol.join([b"From: Pat <pat@mail.example>", b"Subject: lunch on friday", b" ",
                    b"see you at noon", b""])
    result = run_spamnb("filter", "--model", sample_model, input=raw)
    assert result.returncode == 0, result.stderr
    added = re.search(rb"X-Spamnb-Status: (?:Yes|No|Unsure), score=[^\r\n]*", result.stdout).group()
    assert result.stdout.replace(added + eol, b"", 1) == raw
    value = added.split(b": ", 1)[1].decode()
    for policy in (email.policy.compat32, email.policy.default):
        parsed = email.message_from_bytes(result.stdout, policy=policy)
        assert parsed.get_all("X-Spamnb-Status") == [value], policy
        assert parsed["Subject"].strip() == "lunch on friday"
    fields, _, _ = _core.read_headers(result.stdout, 0, len(result.stdout))
    assert ("x-spamnb-status", added.split(b": ", 1)[1]) in fields
    header_lines = result.stdout.split(eol)[:result.stdout.split(eol).index(b" ")]
    assert added in header_lines


@pytest.mark.parametrize("ending", ["CRLF then LF", "LF then CRLF", "bare CR"])
def test_mixed_line_ends_through_the_command_line(sample_model, ending):
    raw, newline = generated_message(ending, "empty line", stale=True)
    result = run_spamnb("filter", "--model", sample_model, input=raw)
    assert result.returncode == 0, result.stderr
    added = re.search(rb"X-Spamnb-Status: (?:Yes|No|Unsure), score=[^\r\n]*" + re.escape(newline), result.stdout)
    assert added is not None
    forged = re.compile(rb"X-Spamnb-Status: No, score=0\.0000(?:\r\n|\n|\r)\tforged(?:\r\n|\n|\r)")
    assert result.stdout.replace(added.group(), b"", 1) == forged.sub(b"", raw, count=1)
    assert b"X-Spamnb-Status: this is a body line" in result.stdout


def test_header_names_from_every_source_are_checked_by_every_command(tmp_path, sample_model):
    # Not only filter: a setting that would inject header lines is refused
    # wherever it is read, one line naming its source, exit 64.
    config = tmp_path / "c.toml"
    config.write_text('[filter]\nheader = "X-A\\nBcc: victim@example.com"\n')
    for env, source in (({"SPAMNB_HEADER": "X-A\nBcc: x"}, b"$SPAMNB_HEADER"),
                        ({"SPAMNB_CONFIG": str(config)}, b"[filter] header")):
        result = run_spamnb("inspect", "--model", sample_model, env=env)
        assert result.returncode == 64 and source in result.stderr, result.stderr
        assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
    result = run_spamnb("filter", "--model", sample_model, "--header", "X-Verdict", input=message())
    assert result.returncode == 0 and b"\nX-Verdict: Yes" in result.stdout
