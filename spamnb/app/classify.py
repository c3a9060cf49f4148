"""Scoring every message under some paths and writing the results: the body
of `spamnb classify`, shared by the click command and the fast path.

Bulk runs spread the scoring over worker processes forked from this one
(they share the mapped model); results are written in reading order.  A
pool starts only once a first full batch is read, so scoring one message
from a pipe never forks.
"""

from __future__ import annotations

from ..errors import EXIT_INPUT_ERROR, InputError
from ..record import Record
from .render import ScoreWriter
from .. import jsoncodec
from ..model.scoring import Cutoffs, Score, TokenEffect, has_no_evidence
from ..mail.sources import MAX_MESSAGE_BYTES, Skipped, display, read_messages
from .verdict import bogofilter_status, is_not_mail, judge
from ..workers import Batches

# Messages per batch sent to a worker: the pipe round trip is paid per batch.
BATCH_MESSAGES = 64
# Bytes of mail per batch (a batch ends at the message that reaches it): a
# batch's work grows with its bytes, and a worker left with nothing to do at
# the end of a run waits for the other's last batch.  Three batches away per
# worker (training keeps workers.Batches' two: its batches are larger) stay,
# as a rule, within what a worker's pipe holds (forkpool.PIPE_BYTES), so
# sending one seldom waits for a busy worker.
BATCH_BYTES = 128 * 1024
BATCHES_AWAY_PER_WORKER = 3


class Outcome(Record):
    """Verdicts in order; problems: paths that could not be read or held no
    message; skipped: files that could not be read; notes: messages marked
    unsure without a score, and why (not mail, out of time), one line each;
    not_mail: how many of those were not mail, an input error: the exit
    status says that not every message given was scored."""

    __slots__ = ("labels", "problems", "skipped", "notes", "not_mail")
    _defaults = {"not_mail": 0}
    _factories = {"labels": list, "problems": list, "skipped": list, "notes": list}
    labels: list[str]
    problems: list[str]
    skipped: list[Skipped]
    notes: list[str]
    not_mail: int

    def exit_status(self, bogofilter_codes: bool) -> int:
        if bogofilter_codes and self.labels:
            # The verdict is what a mail filter acts on; problems are on stderr.
            return bogofilter_status(self.labels)
        return EXIT_INPUT_ERROR if self.problems or self.skipped or self.not_mail or not self.labels else 0


_EFFECTS, _TERMS, _FACTOR = (Score.__slots__.index(name) for name in ("effects", "terms", "factor"))


def _encoded_scores(scores: list[Score]) -> bytes:
    """A worker's scores as the bytes it sends back: JSON of each Score's
    values, its TokenEffects' values in place of them (C-coded; floats as
    their repr, so the same to the bit, NaN and the infinities included)."""
    rows = []
    for score in scores:
        values = score._values()
        if score.effects:
            values = (*values[:_EFFECTS], [effect._values() for effect in score.effects], *values[_EFFECTS + 1:])
        rows.append(values)
    return jsoncodec.dumps(rows).encode("ascii")


def _decoded_scores(data: bytes) -> list[Score]:
    """The Scores _encoded_scores wrote: JSON's lists back as the records'
    tuples and TokenEffects."""
    scores = []
    for values in jsoncodec.loads(data):
        if values[_EFFECTS]:
            values[_EFFECTS] = [TokenEffect(*effect) for effect in values[_EFFECTS]]
        if values[_TERMS]:
            values[_TERMS] = [tuple(term) for term in values[_TERMS]]
        if values[_FACTOR] is not None:
            values[_FACTOR] = tuple(values[_FACTOR])
        scores.append(Score(*values))
    return scores


def classify_paths(scorer, paths, writer: ScoreWriter, cutoffs: Cutoffs | None = None,
                   max_size: int | None = None, explain: bool = False, jobs: int = 1,
                   timeout: float | None = None) -> Outcome:
    """Score each message under `paths` (none or "-": standard input) with
    `scorer` (a Scorer, a Model, or anything with score_message), on up to
    `jobs` worker processes; a message not scored within `timeout` seconds
    is unsure, and a note says so."""
    outcome = Outcome()

    def collect(origins: list[str], results: list[Score] | bytes) -> None:  # in reading order
        scores = _decoded_scores(results) if isinstance(results, bytes) else results  # bytes: a worker's
        last = len(scores) - 1
        for at, (origin, score) in enumerate(zip(origins, scores)):
            outcome.labels.append(score.label)
            if score.reason and not has_no_evidence(score):  # that one is a verdict: the output says it
                outcome.notes.append(f"{display(origin)}: {score.reason}")
                outcome.not_mail += is_not_mail(score)
            writer.write(origin, score, flush=at == last)  # a write a batch, not a message

    def score_here(batch: list[bytes]) -> list[Score]:
        return [judge(scorer, data, timeout, explain, cutoffs) for data in batch]

    def score_in_worker(batch: list[bytes]) -> bytes:  # run by a forked worker, which has `scorer`
        return _encoded_scores(score_here(batch))

    def start_workers():
        from ..forkpool import ForkPool

        return ForkPool(jobs, score_in_worker)

    # One worker: each message scored here as it is read.  Several: a pool
    # once a first full batch is read, so scoring one message never forks.
    scoring = Batches(score_in_worker, collect, workers=jobs, here=score_here,
                      start=start_workers if jobs > 1 else None,
                      batch_items=BATCH_MESSAGES if jobs > 1 else 1, batch_bytes=BATCH_BYTES if jobs > 1 else None,
                      in_flight_per_worker=BATCHES_AWAY_PER_WORKER)
    try:
        # Standard input can be read once: a second "-" would score an empty message.
        for path in dict.fromkeys(paths or ("-",)):
            found = 0
            try:
                for raw in read_messages(path, outcome.skipped, max_size or MAX_MESSAGE_BYTES):
                    found += 1
                    scoring.add(raw.data, raw.origin, len(raw.data))
            except InputError as error:
                if path == "-":
                    raise
                outcome.problems.append(str(error))
                continue
            if not found:
                outcome.problems.append(f"no messages found in {display(path)}")
        scoring.finish()
    except BaseException:
        scoring.abandon()
        raise
    writer.close()
    return outcome
