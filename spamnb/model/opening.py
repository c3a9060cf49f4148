"""Opening a model to score with: mapped (scorer.py) when scoring can use
its journal as it stands, loaded whole (model.py) when it cannot.

A journal that this spamnb's `learn` did not write (scorer.journal_scoring:
a Bernoulli model, Robinson's shrinking or feature selection) cannot be
scored from counts as they are looked up; the whole load folds it into the
counts.  The choice is made here, above both, so that the scorer, which
loads no numpy, never imports the model, which is built on it.
"""

from __future__ import annotations

import os

from .scorer import NeedsWholeLoad, Scorer
from .scoring import WeightTable


def open_scorer(path: str | os.PathLike, model_file=None, base: WeightTable | None = None) -> Scorer:
    """The model at `path` ready to score: Scorer.open's mapping, or, for a
    journal it cannot apply, Model.load's whole model (numpy is imported only
    then).  ModelError for anything amiss."""
    try:
        return Scorer.open(path, model_file, base)
    except NeedsWholeLoad:
        from .model import Model

        return Model.load(path)
