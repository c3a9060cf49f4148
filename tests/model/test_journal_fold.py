"""Model.load folds a journal into the stored arrays (Model._fold_journal) without
decoding the tokens; it must give the sections the token-by-token path gives."""

import shutil

import numpy as np
import pytest

from conftest import SAMPLE
from spamnb.learning import incremental
from spamnb.learning.incremental import learn_file
from spamnb.learning.labelled import LearnFlags
from spamnb.learning.training import train
from spamnb.model.model import Model
from spamnb.model.modelread import read_model

SPAM = sorted((SAMPLE / "mail" / "spam").iterdir())
HAM = sorted((SAMPLE / "mail" / "ham").iterdir())


def _by_decoding(path) -> Model:
    """The other path: every token decoded into the counts before the journal is added."""
    original = Model._fold_journal

    def decode_first(self, state):
        self.counts  # noqa: B018 -- decoded: _apply_journal then takes the token-by-token path
        self._apply_journal(state)

    Model._fold_journal = decode_first  # type: ignore[method-assign]
    try:
        return Model.load(path)
    finally:
        Model._fold_journal = original  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def journalled(tmp_path_factory):
    """A model trained on some mail, then a journal of every kind of change:
    new tokens, known ones, a relabel, forgotten messages (tokens leaving V)."""
    directory = tmp_path_factory.mktemp("fold")
    for name, files in (("spam", SPAM[:10]), ("ham", HAM[:10])):
        (directory / name).mkdir()
        for path in files:
            shutil.copy(path, directory / name / path.name)
    model, _ = train([str(directory / "spam")], [str(directory / "ham")])
    path = str(directory / "m.spamnb")
    model.save(path)
    size = 1 << 30
    saved, incremental.COMPACT_BYTES = incremental.COMPACT_BYTES, size  # keep it all in the journal
    try:
        learn_file(path, spam=[str(p) for p in SPAM[10:20]])
        learn_file(path, ham=[str(p) for p in HAM[10:20]])
        learn_file(path, ham=[str(SPAM[12])], flags=LearnFlags(relabel=True))
        learn_file(path, spam=[str(p) for p in SPAM[14:17]], flags=LearnFlags(forget=True))  # their own tokens leave V
        learn_file(path, ham=[str(HAM[3])], flags=LearnFlags(forget=True))  # from the base
    finally:
        incremental.COMPACT_BYTES = saved
    assert read_model(path, verify=False).journal_bytes > 0
    return path


def test_fold_gives_the_decoded_paths_sections(journalled):
    folded, decoded = Model.load(journalled), _by_decoding(journalled)
    assert folded._counts is None and decoded._counts is not None  # the two paths were taken
    assert sorted(folded._sections) == sorted(decoded._sections)
    for name, array in decoded._sections.items():
        assert folded._sections[name].dtype == array.dtype, name
        assert np.array_equal(folded._sections[name], array), name
    assert folded.bias == decoded.bias and folded.messages.tolist() == decoded.messages.tolist()
    assert folded.counts.tokens == decoded.counts.tokens  # the text, decoded from the folded bytes


def test_folded_model_saves_the_same_file(journalled, tmp_path):
    Model.load(journalled).save(tmp_path / "a")
    _by_decoding(journalled).save(tmp_path / "b")
    a, b = read_model(tmp_path / "a"), read_model(tmp_path / "b")
    for name in a.meta["sections"]:
        assert bytes(a.decoded(name)) == bytes(b.decoded(name)), name
    strip = {"created", "updated", "sections"}
    assert {k: v for k, v in a.meta.items() if k not in strip} == {k: v for k, v in b.meta.items() if k not in strip}
