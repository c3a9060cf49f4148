"""What `learn` does with each message: skip it, forget it, relabel it or count it.

The one rule for both ways of learning: training.learn, which changes a
loaded model's counts and rewrites the file, and incremental.learn_appending,
which appends the changes to the model's journal.  Each gives a Learner (how
its counts, its record of learned messages and its scores are reached);
learn_messages decides.

Each message's digest records what it was learned as, so learning it again
is skipped (unless forced), forgetting removes exactly what was added, and
relabelling moves a message learned with the wrong label to the right one
(forget as the old class, learn as the new).  Train on error learns only
what the model gets wrong or is unsure about.  Otherwise the score a message
had before it was learned is kept, for refitting calibration and cutoffs
(Model.refit_from_recent).

Standard library only: `learn` appending to a journal starts without numpy;
and nothing imported at load time, so incremental.py's learner costs no import.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported on learn's fast path
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .labelled import LearnFlags, LearnReport
    from ..model.scorer import Scorer

FORGOTTEN = -1
"""The label `record` is given for a message forgotten."""


class Learner:
    """A model being taught, as learn_messages reaches it (subclasses say how)."""

    scorer: Scorer
    """The model as it scores now: train on error asks it for verdicts, and the
    scores kept for refitting are its raw scores."""

    def learned_as(self, digest: int) -> int | None:
        """The label the message with this digest was learned as (None: never, or forgotten)."""
        raise NotImplementedError

    def count(self, tokens: list[str], label: int, sign: int) -> None:
        """Add a message's tokens to the counts of class `label` (sign 1) or take them out (-1)."""
        raise NotImplementedError

    def record(self, digest: int, label: int) -> None:
        """Note the message as learned with `label`, or as forgotten (FORGOTTEN)."""
        raise NotImplementedError

    def scorable(self) -> bool:
        """Whether the model's scores say anything yet (it has seen both classes)."""
        raise NotImplementedError

    def keep_score(self, raw: float, label: int) -> None:
        """Keep the raw score a message had before it was learned as `label`."""
        raise NotImplementedError


def learn_messages(messages: Iterable[tuple[int, list[str], str, int]], learner: Learner, report: LearnReport,
                   flags: LearnFlags) -> None:
    """Teach `learner` each (label, tokens, origin, digest) of `messages`
    (labelled.tokenized_messages) as `flags` (labelled.LearnFlags) say,
    counting in `report` what was done and what was skipped, and why."""
    from .labelled import LABELS

    forget, relabel, force, on_error = flags.forget, flags.relabel, flags.force, flags.on_error

    for label, tokens, _, digest in messages:
        name = LABELS[label]
        previous = learner.learned_as(digest)
        if forget:
            if previous != label and not force:
                report.not_learned += 1
                continue
            learner.count(tokens, label, -1)
            learner.record(digest, FORGOTTEN)
            report.forgotten[name] += 1
            continue
        if previous == label and not force:
            report.duplicates += 1
            continue
        if previous is not None and previous != label:
            if not relabel:
                report.conflicts += 1
                continue
            learner.count(tokens, previous, -1)
            report.relabelled += 1
        elif on_error and learner.scorer.score_tokens(tokens).label == name:
            report.already_right += 1
            continue
        elif not on_error and learner.scorable():
            # Its score before learning, on record for refitting.  Train on
            # error's messages are not a sample of the mail, so they are not.
            raw = learner.scorer.raw_score(tokens)
            if raw == raw:  # a message with no evidence (NaN) tells calibration nothing
                learner.keep_score(raw, label)
        learner.count(tokens, label, 1)
        learner.record(digest, label)
        report.learned[name] += 1
