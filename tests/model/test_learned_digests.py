"""The record of learned messages (model/learned.py LearnedDigests) answers as
the dict it replaces does, through its folds into sorted arrays."""

import random

import numpy as np

from spamnb.model import learned
from spamnb.model.learned import LearnedDigests, messages_lost


def test_the_record_answers_as_a_dict_does_through_every_fold(monkeypatch):
    monkeypatch.setattr(learned, "FOLD_AT", 7)  # a fold every few changes
    chance = random.Random(3)
    record, oracle = LearnedDigests(), {}
    for step in range(5000):
        digest = chance.choice([chance.randrange(2**64), chance.randrange(50)])  # repeats among the small ones
        action = chance.random()
        if action < 0.6:
            record[digest] = oracle[digest] = chance.randrange(2)
        elif action < 0.8:
            assert record.pop(digest, None) == oracle.pop(digest, None)
        else:
            assert record.get(digest) == oracle.get(digest) and (digest in record) == (digest in oracle)
        if step % 500 == 0:
            assert list(record.items()) == sorted(oracle.items()) and len(record) == len(oracle)
    assert record == oracle and record == record.copy()
    digests, classes = record.arrays()
    assert digests.dtype == np.uint64 and classes.dtype == np.uint8 and list(digests) == sorted(oracle)


def test_update_lets_the_other_record_win_and_copies_stay_apart():
    record = LearnedDigests.of({1: 0, 2: 0, 2**64 - 1: 1})
    copied = record.copy()
    record.update(LearnedDigests.of({2: 1, 3: 0}))
    assert dict(record.items()) == {1: 0, 2: 1, 3: 0, 2**64 - 1: 1}
    assert dict(copied.items()) == {1: 0, 2: 0, 2**64 - 1: 1}
    assert record.get(-1) is None and record.get(2**70) is None and "x" not in record
    assert record.copy() == record


def test_a_file_section_out_of_order_is_read_as_a_dict_of_it_would_be():
    record = LearnedDigests(np.array([5, 3, 5, 1], dtype="<u8"), np.array([0, 1, 1, 0], dtype=np.uint8))
    assert list(record.items()) == [(1, 0), (3, 1), (5, 1)]


def test_messages_lost_counts_those_missing_or_moved():
    before = LearnedDigests.of({1: 0, 3: 1, 5: 1})
    assert messages_lost(before, LearnedDigests.of({1: 0, 3: 0})) == 2
    assert messages_lost(before, LearnedDigests()) == 3
    assert messages_lost(before, before) == 0 and messages_lost(None, before) == 0


def test_the_record_on_file_is_read_from_its_own_checked_sections(sample_model, tmp_path):
    """messages_on_record checks the digest sections, not the whole file: a
    damaged vocabulary leaves the record readable (train still refuses to
    lose it), a damaged digest section makes it unreadable (None)."""
    import shutil

    from spamnb.model.learned import messages_on_record
    from spamnb.model.modelread import read_model

    whole = messages_on_record(sample_model)
    assert whole is not None and len(whole) > 0
    model_file = read_model(sample_model)
    for section, readable in (("keys", True), ("digests", False)):
        copy = tmp_path / f"{section}.spamnb"
        shutil.copy(sample_model, copy)
        entry = model_file.meta["sections"][section]
        with open(copy, "r+b") as handle:
            handle.seek(model_file._body_start + entry["offset"] + 3)
            byte = handle.read(1)
            handle.seek(-1, 1)
            handle.write(bytes([byte[0] ^ 0xFF]))
        record = messages_on_record(copy)
        assert (record is not None and dict(record.items()) == dict(whole.items())) if readable else record is None
