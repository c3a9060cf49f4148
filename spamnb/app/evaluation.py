"""Measuring accuracy: train/test splits, cross-validation, and TREC online feedback.

Every protocol tokenizes each message once and works on token lists, so a
K-fold run costs one tokenization, not K.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from ..model.counts import TokenCounts
from ..model.labels import HAM, SPAM
from ..errors import InputError, OptionError
from ..record import Record
from .metrics import summarise
from ..model.keyscores import raw_score_from_counts
from ..model.model import Model
from ..model.options import TrainOptions
from ..progress import Phases
from ..learning.labelled import TrainReport, tokenized_messages
from ..learning.training import fit_tokenized


class Corpus(Record):
    """Labelled messages, tokenized, in reading order, and what reading them reported."""

    __slots__ = ("labels", "tokens", "origins", "report")
    _factories = {"labels": list, "tokens": list, "origins": list, "report": TrainReport}
    labels: list[int]
    tokens: list[list[str]]
    origins: list[str]
    report: TrainReport


def load_corpus(sources: list[tuple[int, str]], options: TrainOptions,
                progress: Callable[[str], None] | None = None, executor=None, workers: int = 1) -> Corpus:
    """The labelled sources (learning.labelled.labelled_sources) tokenized, in
    reading order; `executor` (a pool of `workers` processes) tokenizes batches."""
    corpus = Corpus()
    for label, tokens, origin, _ in tokenized_messages(sources, options, corpus.report, progress,
                                                       executor=executor, workers=workers):
        corpus.labels.append(label)
        corpus.tokens.append(tokens)
        corpus.origins.append(origin)
    if SPAM not in corpus.labels or HAM not in corpus.labels:
        raise InputError("evaluation needs both spam and ham messages")
    return corpus


def _order(corpus: Corpus, shuffle: bool, seed: int) -> dict[int, list[int]]:
    """Message indices per class, in corpus order or shuffled with the seed."""
    by_class = {label: [i for i, y in enumerate(corpus.labels) if y == label] for label in (HAM, SPAM)}
    if shuffle:  # the same seeding as bench/corpora.py, so the README's numbers reproduce
        for label in by_class:
            random.Random(seed).shuffle(by_class[label])
    return by_class


def split_indices(corpus: Corpus, share: float, shuffle: bool = False, seed: int = 1) -> tuple[list[int], list[int]]:
    """The first `share` of each class trains, the rest tests (per class, so
    both sides keep the class balance)."""
    train, test = [], []
    for indices in _order(corpus, shuffle, seed).values():
        cut = int(len(indices) * share)
        train += indices[:cut]
        test += indices[cut:]
    return sorted(train), sorted(test)


def fold_indices(corpus: Corpus, folds: int, shuffle: bool = False, seed: int = 1):
    """K (train, test) pairs; each class is cut into K contiguous blocks, so
    an ordered corpus is tested on stretches of time, not interleaved."""
    blocks: list[list[int]] = [[] for _ in range(folds)]
    for indices in _order(corpus, shuffle, seed).values():
        for k in range(folds):
            blocks[k] += indices[k * len(indices) // folds:(k + 1) * len(indices) // folds]
    every = set(range(len(corpus.labels)))
    return [(sorted(every - set(block)), sorted(block)) for block in blocks]


def fit(corpus: Corpus, indices, options: TrainOptions) -> Model:
    """A model trained as `spamnb train` would, on the given messages."""
    return fit_tokenized([corpus.tokens[i] for i in indices], [corpus.labels[i] for i in indices], options)


def evaluate_split(corpus: Corpus, train, test, options: TrainOptions, phases=None, part: str = "") -> dict:
    if len({corpus.labels[i] for i in train}) < 2 or len({corpus.labels[i] for i in test}) < 2:
        raise InputError("too few messages: each training and test part needs spam and ham "
                         "(use fewer folds or a different split)")
    phases = phases or Phases()
    phases.phase(f"training and calibrating on {len(train):,} messages{part}")
    model = fit(corpus, train, options)
    phases.phase(f"scoring {len(test):,} messages{part}", len(test))
    scores = []
    for i in test:
        scores.append(model.score_tokens(corpus.tokens[i]))
        phases.advance()
    result = summarise([corpus.labels[i] for i in test], [s.log_odds for s in scores],
                       [s.label for s in scores])
    result["cutoffs"] = {"spam": model.cutoffs.spam, "ham": model.cutoffs.ham}
    result["scores"] = {"labels": [corpus.labels[i] for i in test], "log_odds": [s.log_odds for s in scores]}
    result["verdicts"] = [s.label for s in scores]
    return result


def online_order(corpus: Corpus, shuffle: bool = False, seed: int = 1) -> list[int]:
    """The order messages arrive in: the corpus's own, or a seeded shuffle of
    all of them (for corpora with no delivery order)."""
    order = list(range(len(corpus.labels)))
    if shuffle:
        random.Random(seed).shuffle(order)
    return order


def grouped_by_class(labels: list[int]) -> bool:
    """True when the messages come as all of one class, then all of the other:
    the order of a folder read spam/ then ham/, or of an index listed by class."""
    changes = sum(1 for a, b in zip(labels, labels[1:]) if a != b)
    return changes <= 1


def evaluate_online(corpus: Corpus, options: TrainOptions, order: list[int] | None = None, phases=None) -> dict:
    """TREC immediate feedback: score each message with what was learned
    before it, then learn it with its true label.

    A message's raw score comes from the counts so far by the model's own
    rule (keyscores.raw_score_from_counts: formula.token_weights for just its
    tokens, combined by scoring.ScoringRule, chunks and top-k included), so
    no model is rebuilt per message.  There is no calibration, so the score
    is the raw score itself, with one difference from a model's: with
    unnormalised sums (--normalize none) it gets the prior log-odds, making
    it naive Bayes's posterior log-odds; a mean or a square-root-scaled sum
    is no likelihood ratio, so a prior added to it would mean nothing (a
    trained model's calibration fits that offset instead).  The Bernoulli
    model's absent-token terms, a sum over the whole vocabulary, are left
    out: computing them per message would cost O(vocabulary) each time.
    The verdict is spam when the score is positive; there is no unsure
    band, but for a message with no evidence (scoring.MIN_EVIDENCE), at
    log-odds 0 and unsure, as classify says it.
    """
    counts = TokenCounts()
    totals = np.zeros(2, dtype=np.int64)
    log_odds = []
    order = list(range(len(corpus.labels))) if order is None else order
    labels = [corpus.labels[i] for i in order]
    phases = phases or Phases()
    phases.phase("scoring, then learning, each message in turn", len(order))
    for tokens, label in ((corpus.tokens[i], corpus.labels[i]) for i in order):
        phases.advance()
        if counts.messages.min() > 0:
            raw = raw_score_from_counts(counts, totals, tokens, options)
            prior = float(np.log(counts.messages[SPAM]) - np.log(counts.messages[HAM]))
            log_odds.append(raw + (prior if options.normalize == "none" else 0.0) if raw == raw else math.nan)
        else:
            log_odds.append(math.nan)
        counts.add([tokens], [label])
        totals[label] += len(tokens)
    verdicts = ["unsure" if score != score else "spam" if score > 0 else "ham" for score in log_odds]
    log_odds = [0.0 if score != score else score for score in log_odds]  # no evidence: log-odds 0
    result = summarise(labels, log_odds, verdicts)
    result["scores"] = {"labels": labels, "log_odds": log_odds}
    return result


def run_protocol(corpus: Corpus, options: TrainOptions, share: float | None = None, folds: int | None = None,
                 online: bool = False, shuffle: bool = False, seed: int = 1,
                 phases=None) -> tuple[dict, dict, str]:
    """(measures, the scores they came from, a description of the protocol).

    Folds pool every fold's test scores and verdicts into one set of measures.
    `phases` (progress.Phases) is told what is being trained and scored.
    """
    shuffled = f" (shuffled, seed {seed})" if shuffle else ""
    if online:
        order = online_order(corpus, shuffle, seed)
        if grouped_by_class([corpus.labels[i] for i in order]):
            raise OptionError("the messages come grouped by class (all of one, then all of the other), "
                              "so online learning would meet one class only at the end: give --shuffle, "
                              "or an index in delivery order")
        if options.min_df or options.max_features:
            raise OptionError("--online does not apply --min-df or --max-features; leave them out")
        result = evaluate_online(corpus, options, order, phases)
        protocol = f"online, TREC immediate feedback{shuffled}"
    elif folds:
        labels, log_odds, verdicts, cutoffs = [], [], [], []
        for fold, (train_ids, test_ids) in enumerate(fold_indices(corpus, folds, shuffle, seed), 1):
            part = evaluate_split(corpus, train_ids, test_ids, options, phases, f" (fold {fold} of {folds})")
            labels += part["scores"]["labels"]
            log_odds += part["scores"]["log_odds"]
            verdicts += part["verdicts"]
            cutoffs.append(part["cutoffs"])
        result = summarise(labels, log_odds, verdicts)
        result["cutoffs_by_fold"] = cutoffs
        result["scores"] = {"labels": labels, "log_odds": log_odds}
        protocol = f"{folds}-fold cross-validation{shuffled}"
    else:
        share = share or 0.7
        result = evaluate_split(corpus, *split_indices(corpus, share, shuffle, seed), options, phases)
        protocol = f"{share:.0%} train / {1 - share:.0%} test per class{shuffled}"
    scores = result.pop("scores")
    result.pop("verdicts", None)
    return result, scores, protocol


def cutoff_marks(result: dict, online: bool = False) -> list:
    """The cutoffs the pictures mark (plots.Mark): those the verdicts were
    made with (a split's model's; the median of the folds' models', each
    fold having its own; online, log-odds 0), and those --tune found."""
    from statistics import median

    from ..model.scoring import logit
    from .plots import Mark

    marks = []
    if online:
        # Spam is a log-odds above 0 (evaluate_online), not at it: the mark
        # sits at the smallest number above 0, where a Mark's spam side starts.
        marks.append(Mark("verdict: spam above, ham below", math.ulp(0.0), True))
    if "cutoffs" in result:
        marks += [Mark(f"spam cutoff {result['cutoffs']['spam']:.4g}", logit(result["cutoffs"]["spam"]), True),
                  Mark(f"ham cutoff {result['cutoffs']['ham']:.4g}", logit(result["cutoffs"]["ham"]), False)]
    if result.get("cutoffs_by_fold"):
        folds = result["cutoffs_by_fold"]
        for side in ("spam", "ham"):
            value = median(fold[side] for fold in folds)
            marks.append(Mark(f"{side} cutoff {value:.4g} (median of {len(folds)} folds)", logit(value),
                              side == "spam"))
    if "tuned_cutoffs" in result:
        tuned = result["tuned_cutoffs"]
        marks += [Mark(f"tuned spam cutoff {tuned['spam']:.4g}", logit(tuned["spam"]), True),
                  Mark(f"tuned ham cutoff {tuned['ham']:.4g}", logit(tuned["ham"]), False)]
    return marks
