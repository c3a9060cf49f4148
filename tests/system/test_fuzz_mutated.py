"""The mutators of bench/fuzz_mutated.py, and a short run of the issue-17 fuzz.

The mutators are deterministic (a mutant is rebuilt from its seed and name,
which is what makes a failure replayable) and total (no bytes make one
raise).  300 mutants of real mail from ../shared/corpora then go through the
scoring path as the full run sends them: no exception, no deadline hit, every
probability in [0, 1].  Skipped when the corpora are absent.
"""

import importlib.util
import random

import pytest

from conftest import CORPORA, ROOT, SAMPLE

spec = importlib.util.spec_from_file_location("fuzz_mutated", ROOT / "bench" / "fuzz_mutated.py")
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)



@pytest.fixture(autouse=True)
def bench_mime_on_the_core(monkeypatch):
    """bench/fuzz_mutated.py's filter_placement still imports read_headers from
    spamnb.mail.mime, whose reader is now the core's: a stand-in module gives
    it the core's read_headers (same arguments and result), for these tests only."""
    import sys
    import types

    from spamnb import _core

    stand_in = types.ModuleType("spamnb.mail.mime")
    stand_in.read_headers = _core.read_headers
    monkeypatch.setitem(sys.modules, "spamnb.mail.mime", stand_in)


SAMPLE_MESSAGES = sorted(p for p in (SAMPLE / "mail").rglob("*") if p.is_file())[:12]
ODD_INPUTS = [b"", b"\n", b"\r", b"\x00" * 10, b"Subject: x", b"Content-Type: multipart/mixed; boundary=b\n\n--b\n",
              b"From x\r\r\r", bytes(range(256))]


@pytest.mark.parametrize("name", sorted(fuzz.MUTATORS))
def test_each_mutator_is_deterministic_and_total(name):
    mutator = fuzz.MUTATORS[name]
    inputs = [p.read_bytes() for p in SAMPLE_MESSAGES] + ODD_INPUTS
    changed = 0
    for number, data in enumerate(inputs):
        for k in range(4):
            first = mutator(random.Random(f"{name}/{number}/{k}"), data)
            again = mutator(random.Random(f"{name}/{number}/{k}"), data)
            assert first == again
            out, detail = first
            assert isinstance(out, bytes) and isinstance(detail, (str, bytes))
            changed += out != data
    assert changed >= len(inputs)  # it does something most of the time


def test_a_mutant_is_rebuilt_from_its_seed_and_name():
    data = SAMPLE_MESSAGES[0].read_bytes()
    first = fuzz.make_mutant(17, "x/y", data, 3)
    assert first == fuzz.make_mutant(17, "x/y", data, 3)
    assert first != fuzz.make_mutant(18, "x/y", data, 3)
    raw, applied = first
    assert raw and 2 <= len([a for a in applied if "(" in a]) <= 6


def test_the_filter_placement_check_tells_the_cases_apart():
    tag = b"X-Spamnb-Status: No\n"
    assert fuzz.filter_placement(b"A: 1\n\nbody\n", b"A: 1\n" + tag + b"\nbody\n") == "ok"
    assert fuzz.filter_placement(b"A: 1\n\nbody\n", b"A: 1\n\nbody\n" + tag).startswith("header after the blank line")
    assert fuzz.filter_placement(b"A: 1\r\rbody\r", b"A: 1\r\rbody\r\n" + tag).startswith("header after the body")
    assert fuzz.filter_placement(b"A: 1", b"A: 1\n" + tag).startswith("a line end added")
    assert fuzz.filter_placement(b"A: 1\n\nbody\n", b"A: 1\n" + tag + b"\nbodY\n") == "body bytes changed"
    assert fuzz.filter_placement(b"A: 1\nno colon\n\nbody\n", b"A: 1\nno colon\n" + tag + b"\nbody\n").startswith(
        "header after a damaged header line")


def test_300_mutants_of_real_mail_score_in_range(sample_model, monkeypatch):
    import spamnb.model.scorer

    for name in fuzz.CORPUS_NAMES:
        if not (CORPORA / name / "index").exists():
            pytest.skip(f"corpus {name} not present at {CORPORA}")
    messages = fuzz.corpus_messages()
    chosen = random.Random(17).sample(messages, 60)
    # bench/fuzz_mutated.py's init_worker still wraps the scorer's decode_message
    # to watch its safety net; the scorer now decodes and tokenizes in one call
    # into the core (message_tokens of the raw bytes), so it is given the core's
    # decode_message to wrap, which the scorer never calls: undone after the test.
    from spamnb import _core

    monkeypatch.setattr(spamnb.model.scorer, "decode_message", _core.decode_message, raising=False)
    fuzz.init_worker(str(sample_model), deadline=10.0, memory_limit=None)
    stats = fuzz.run_chunk((17, [(ident, range(5)) for ident in chosen]))
    assert stats["mutants"] == 300
    assert stats["failures"] == [], stats["failures"][:3]
    assert sum(stats["labels"].values()) == 300 and "None" not in stats["labels"]
    assert len(stats["mutators"]) >= 18  # most mutators took part
