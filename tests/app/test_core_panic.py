"""A panic of the Rust core (a bug; no message should cause one) never takes
a process down: classify answers unsure with the reason, filter hands the
message back untouched with status 75, as for any other failure."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from spamnb import _core

PANICKING_ENTRY_POINT = """
import sys
import spamnb.model.scorer
from spamnb import _core

real = spamnb.model.scorer.Scorer.score_message


def panicking(self, raw, *args, **kwargs):
    if b"\\nSubject: panic\\n" in raw:
        _core._panic("index out of bounds: the len is 3 but the index is 7")
    return real(self, raw, *args, **kwargs)


spamnb.model.scorer.Scorer.score_message = panicking
from spamnb.app.fastpath import main
main(sys.argv[1:])
"""

MESSAGE = (b"From: a@example.com\nSubject: hello\n\n"  # words enough for a verdict (scoring.MIN_EVIDENCE)
           b"Buy cheap pills now, free money. Pay only $1 per pill, full refund, no fee, claim it today.\n")
PANICKING = MESSAGE.replace(b"Subject: hello", b"Subject: panic")
REASON = ("the core failed on this message (index out of bounds: the len is 3 but the index is 7); "
          "not scored, marked unsure")


def spamnb(*args, input: bytes | None = None):
    env = dict(os.environ)
    env.pop("SPAMNB_MODEL", None)
    return subprocess.run([sys.executable, "-c", PANICKING_ENTRY_POINT, *map(str, args)], input=input,
                          capture_output=True, env=env, timeout=120,
                          stdin=None if input is not None else subprocess.DEVNULL)


def test_a_panic_reaches_python_as_an_exception_with_its_message():
    with pytest.raises(_core.PanicException, match="the index is 7"):
        _core._panic("index out of bounds: the len is 3 but the index is 7")


def test_classify_answers_unsure_with_the_reason_and_goes_on_to_the_next_message(sample_model, tmp_path):
    (tmp_path / "1.eml").write_bytes(PANICKING)
    (tmp_path / "2.eml").write_bytes(MESSAGE)
    result = spamnb("classify", "--model", sample_model, "--format", "tsv", tmp_path / "1.eml", tmp_path / "2.eml")
    assert result.returncode == 0, result.stderr
    header, first, second = result.stdout.decode().splitlines()
    assert header.split("\t")[:3] == ["path", "label", "score"]
    assert first.split("\t")[1:] == ["unsure", "0.500000", "0.0000"]
    assert second.split("\t")[1] in ("spam", "ham", "unsure") and second.split("\t")[2] != "0.500000"
    assert REASON in result.stderr.decode() and b"Traceback" not in result.stderr
    assert b"panicked" not in result.stderr  # the Rust hook prints nothing of its own


def test_filter_hands_the_message_back_untouched_with_75(sample_model):
    result = spamnb("filter", "--model", sample_model, input=PANICKING)
    assert result.returncode == 75
    assert result.stdout == PANICKING
    assert REASON in result.stderr.decode() and b"Traceback" not in result.stderr
