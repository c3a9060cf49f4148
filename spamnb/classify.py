"""Scoring every message under some paths and writing the results: the body
of `spamnb classify`, shared by the click command and the fast path."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import EXIT_INPUT_ERROR, InputError
from .render import ScoreWriter
from .scoring import LABEL_SPAM, LABEL_UNSURE, Cutoffs
from .sources import MAX_MESSAGE_BYTES, Skipped, display, read_messages


@dataclass
class Outcome:
    labels: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Paths that could not be read or held no message."""
    skipped: list[Skipped] = field(default_factory=list)
    """Files that were not mail."""

    def exit_status(self, bogofilter_codes: bool) -> int:
        if bogofilter_codes and self.labels:
            # The verdict is what a mail filter acts on; problems are on stderr.
            return 0 if LABEL_SPAM in self.labels else 2 if LABEL_UNSURE in self.labels else 1
        return EXIT_INPUT_ERROR if self.problems or self.skipped or not self.labels else 0


def classify_paths(scorer, paths, writer: ScoreWriter, cutoffs: Cutoffs | None = None,
                   max_size: int | None = None, explain: bool = False) -> Outcome:
    """Score each message under `paths` (none or "-": standard input) with
    `scorer` (a Scorer, a Model, or anything with score_message)."""
    outcome = Outcome()
    # Standard input can be read once: a second "-" would score an empty message.
    for path in dict.fromkeys(paths or ("-",)):
        scored = len(outcome.labels)
        try:
            for raw in read_messages(path, outcome.skipped, max_size or MAX_MESSAGE_BYTES):
                score = scorer.score_message(raw.data, explain=explain, cutoffs=cutoffs)
                outcome.labels.append(score.label)
                writer.write(raw.origin, score)
        except InputError as error:
            if path == "-":
                raise
            outcome.problems.append(str(error))
            continue
        if len(outcome.labels) == scored:
            outcome.problems.append(f"no messages found in {display(path)}")
    writer.close()
    return outcome
