"""Model.load folds a journal into the stored arrays (Model._apply_journal), the
tokens' text left as bytes: the model it gives is the one `learn` rewriting the
whole file gives for the same messages, section for section."""

import shutil

import numpy as np
import pytest

from conftest import SAMPLE
from spamnb.learning import incremental
from spamnb.learning.incremental import learn_file
from spamnb.learning.labelled import LearnFlags
from spamnb.learning.training import learn as learn_rewriting, train
from spamnb.model.model import Model
from spamnb.model.modelread import read_model
from spamnb.model.options import TrainOptions

SPAM = sorted((SAMPLE / "mail" / "spam").iterdir())
HAM = sorted((SAMPLE / "mail" / "ham").iterdir())

# Every kind of change: new tokens, known ones, a relabel, forgotten messages
# (their own tokens leave V), one forgotten from the base.
STEPS = [({"spam": SPAM[10:20]}, {}), ({"ham": HAM[10:20]}, {}), ({"ham": [SPAM[12]]}, {"relabel": True}),
         ({"spam": SPAM[14:17]}, {"forget": True}), ({"ham": [HAM[3]]}, {"forget": True})]

# The scores `learn` keeps for refitting differ on purpose: the journal scores
# each message of a run with the run's earlier ones learned (incremental.py).
SCORED = {"recent_raw", "recent_labels"}


def learned_both_ways(directory, options):
    for name, files in (("spam", SPAM[:10]), ("ham", HAM[:10])):
        (directory / name).mkdir()
        for path in files:
            shutil.copy(path, directory / name / path.name)
    model, _ = train([str(directory / "spam")], [str(directory / "ham")], options)
    journalled, rewritten = str(directory / "journalled.spamnb"), str(directory / "rewritten.spamnb")
    model.save(journalled)
    shutil.copyfile(journalled, rewritten)
    size = 1 << 30
    saved, incremental.COMPACT_BYTES = incremental.COMPACT_BYTES, size  # keep it all in the journal
    try:
        for paths, flags in STEPS:
            kwargs = {label: [str(p) for p in files] for label, files in paths.items()}
            learn_file(journalled, **kwargs, flags=LearnFlags(**flags))
            whole = Model.load(rewritten)
            learn_rewriting(whole, **kwargs, flags=LearnFlags(**flags))
            whole.save(rewritten)
    finally:
        incremental.COMPACT_BYTES = saved
    assert read_model(journalled, verify=False).journal_bytes > 0
    assert read_model(rewritten, verify=False).journal_bytes == 0
    return Model.load(journalled), Model.load(rewritten)


@pytest.mark.parametrize("options", [TrainOptions(), TrainOptions(keywords=frozenset({"free", "money", "meeting",
                                                                                       "the", "subject:re"}))],
                         ids=["default", "keywords"])
def test_a_folded_journal_gives_the_sections_a_rewrite_gives(tmp_path, options):
    folded, rewritten = learned_both_ways(tmp_path, options)
    assert folded._counts is None  # folded with the text left as bytes
    assert sorted(folded._sections) == sorted(rewritten._sections)
    for name, array in rewritten._sections.items():
        if name not in SCORED:
            assert folded._sections[name].dtype == array.dtype, name
            assert np.array_equal(folded._sections[name], array), name
    assert folded.bias == rewritten.bias and folded.messages.tolist() == rewritten.messages.tolist()
    assert folded.counts.tokens == rewritten.counts.tokens  # the text, decoded from the folded bytes
    if options.keywords:
        weighing = {token for token, weight in zip(folded.counts.tokens, folded.weights) if weight != 0}
        assert weighing and weighing <= options.keywords
