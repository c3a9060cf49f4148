"""The messages a model file has learned, by digest, and what replacing it
would forget: `train`, `import` and `merge` refuse to drop what a user
taught unless told to (app/commands/options.py keep_what_was_taught).
"""

from __future__ import annotations

import os

from ..errors import ModelError
from .modelread import read_model


def learned_after_journal(learned: dict[int, int], state) -> dict[int, int]:
    """The messages on record (digest → class) once the journal's are added to
    `learned` and its forgotten ones (class -1) taken out of it."""
    for digest, label in state.learned.items():
        if label < 0:
            learned.pop(digest, None)
        else:
            learned[digest] = label
    return learned


def messages_on_record(path: str | os.PathLike) -> dict[int, int] | None:
    """The messages a model file holds, digest → class, journal included; None
    when there is no model there, or none that can be read (nothing in it can
    be kept then).  Reads only the digest sections, not the vocabulary."""
    try:
        model_file = read_model(path)
        learned: dict[int, int] = {}
        if "digests" in model_file.meta.get("sections", {}):
            learned = dict(zip(model_file.array("digests").tolist(), model_file.array("digest_classes").tolist()))
        state, _ = model_file.journal()
        return learned_after_journal(learned, state)
    except (ModelError, KeyError, TypeError, ValueError, IndexError):
        return None


def messages_lost(before: dict[int, int] | None, after: dict[int, int]) -> int:
    """How many messages on record `before` are not in `after` with the same label:
    what replacing the first model by the second would make it forget."""
    if not before:
        return 0
    return sum(1 for digest, label in before.items() if after.get(digest) != label)
