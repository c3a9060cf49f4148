import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
SAMPLE_CUTOFFS = ("--spam-cutoff", "0.9", "--ham-cutoff", "0.2")
CORPORA = Path(os.environ.get("SPAMNB_CORPORA", ROOT.parent / "shared" / "corpora"))


def corpus(name: str) -> Path:
    """A shared corpus folder, or skip the test when this checkout has none."""
    path = CORPORA / name
    if not (path / "spam").is_dir() or not (path / "ham").is_dir():
        pytest.skip(f"corpus {name} not present at {path}")
    return path


def run_spamnb(*args, input: bytes | None = None, env: dict | None = None, timeout: float = 300):
    """Run the real command line in a fresh process; returns CompletedProcess (bytes)."""
    full_env = dict(os.environ)
    full_env.pop("SPAMNB_MODEL", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "spamnb", *map(str, args)], input=input,
                          capture_output=True, env=full_env, timeout=timeout,
                          stdin=None if input is not None else subprocess.DEVNULL)


@pytest.fixture
def any_evidence(monkeypatch):
    """Score messages of one or two known tokens: for the tests that check
    the weight and held-out maths by hand on corpora of a few words, where
    the evidence rule (scoring.MIN_EVIDENCE, tested on its own) would leave
    every score at 0.5."""
    from spamnb.model import scoring

    monkeypatch.setattr(scoring, "MIN_EVIDENCE", 0)


@pytest.fixture(scope="session")
def sample_model(tmp_path_factory) -> Path:
    """A model trained once on sample_data/mail by the command line, with the
    cutoffs set by hand (spam at P >= 0.9, ham at <= 0.2): the front-end
    tests need a model that calls the sample spam spam, and a model of 120
    messages fits a spam cutoff above its unseen spam (P about 0.93): too
    little mail to be sure of it (tests/model/test_verdicts.py checks the
    fitted cutoffs)."""
    path = tmp_path_factory.mktemp("model") / "sample.spamnb"
    result = run_spamnb("train", SAMPLE / "mail", "--model", path, "-q", *SAMPLE_CUTOFFS)
    assert result.returncode == 0, result.stderr.decode()
    return path


def retrained_raw_score(docs, labels, i, options, leave_out=None) -> float:
    """The raw score of docs[i] under a model trained on every other message
    (or on all but the indices in `leave_out`): what held-out scoring must equal."""
    from spamnb.model.counts import TokenCounts
    from spamnb.model.model import Model

    leave_out = {i} if leave_out is None else set(leave_out)
    without = TokenCounts()
    without.add([d for j, d in enumerate(docs) if j not in leave_out],
                [lab for j, lab in enumerate(labels) if j not in leave_out])
    retrained = Model.from_counts(without, options)
    weights = [retrained.lookup(t)["weight"] for t in set(docs[i]) if retrained.lookup(t)]
    return retrained.rule.raw([w for w in weights if w != 0])[0]


def held_out_scores(counts, docs, labels, options, copies=None):
    """Held-out raw scores of the token lists `docs` (one block) by training's
    one pipeline: their keys, the counts' columns of them, and
    heldout.held_out_raw_scores_by_key."""
    from spamnb.model.heldout import held_out_raw_scores_by_key
    from spamnb.model.keyscores import KeyColumns, keys_of, unique_keys

    keyed = [keys_of(tokens) for tokens in docs]
    columns = KeyColumns.of_counts(counts, unique_keys(keyed))
    return held_out_raw_scores_by_key(columns, keyed, labels, counts.occurrences.sum(axis=1), len(counts),
                                      counts.messages, options, copies)

def cpu_seconds(function, argument) -> float:
    """CPU time of one call, with the garbage collector held off so that a
    collection of earlier garbage is not billed to it."""
    import gc
    import time

    # Collect, then freeze what survives: the next collect scans only what was
    # made since, where a full one over a heap holding jieba's dictionary cost
    # ~80 ms a call, most of the timing tests' own time.
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        started = time.process_time()
        function(argument)
        return time.process_time() - started
    finally:
        gc.enable()
