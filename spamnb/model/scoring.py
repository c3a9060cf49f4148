"""Scoring tokens against a weight table: the sum of per-token log-odds.

    log-odds = b + Σ_w x_w · λ_w        P(spam) = 1 / (1 + e^-log-odds)

The lookup runs on the model file's own key-sorted arrays (see modelfile.py),
so scoring one message never builds a dictionary of the whole vocabulary and
costs about the same for a model of 10 thousand or 10 million tokens.

This module is the one home of the scoring rule, in the standard library
alone (the cold-start path imports it): ScoringRule.message_raw (chunks, the
top k, n^γ), ScoringRule.log_odds and scoring.judge (raw score → log-odds →
calibrated P(spam) → verdict, by Cutoffs.label).  The numpy path of
keyscores.py (training's held-out scores and near errors, online
evaluation) holds the weights in arrays and calls the same methods per
message (tests/model/test_scoring_rule.py checks that the two agree).
"""

from __future__ import annotations

import math
import sys

from .._core import KeyTable, token_key  # keys and lookups live in the core: core/src/model/

from ..record import Record

LABEL_SPAM, LABEL_HAM, LABEL_UNSURE = "spam", "ham", "unsure"

# No evidence, no verdict: a message whose score would rest on fewer known
# tokens than this (after min strength drops the weak ones) scores log-odds 0,
# P(spam) 0.5, unsure, whatever the calibration's offset or the prior say.
# An empty message, text in a language the model never saw, or a
# two-word note would otherwise be judged by the offset alone, or by a word
# or two whose weight calibration stretches (a model built on 300 messages
# called "Can we meet at 3pm tomorrow?" spam at 0.998 on two tokens).  Real
# mail carries dozens of known tokens in its header fields alone, so the rule
# costs nothing there: none of trec06p's later 6,000 messages scored by a
# model of its first 14,000 falls under it.
MIN_EVIDENCE = 5
NO_EVIDENCE = math.nan  # the raw score of a message under MIN_EVIDENCE


def too_little_evidence(known: int) -> str:
    """The reason a message with `known` known tokens gets no verdict."""
    return f"{_NO_EVIDENCE_START}{known} known token{'' if known == 1 else 's'}, a verdict needs {MIN_EVIDENCE}"


_NO_EVIDENCE_START = "too little evidence: "


def has_no_evidence(score) -> bool:
    """Whether a Score is unsure for want of evidence (a verdict the rule
    gives, where a reason such as "not mail" says the message was not scored)."""
    return (score.reason or "").startswith(_NO_EVIDENCE_START)


# The cutoffs of a model that could not fit its own (calibration.fit_cutoffs
# keeps the spam cutoff between 0.96 and bogofilter's 0.99), and the ham
# cutoff of every model: SpamBayes' 0.20.  What adapts to the user's
# mail is mostly the calibrated probability, fitted on mail each stretch of
# the training mail came before.  Chosen by the worst result over
# bench/verdicts.py's protocols (BENCHMARKS.md, "Verdicts").
SPAM_CUTOFF = 0.99
HAM_CUTOFF = 0.2
# The narrowest unsure band (in P(spam)) cutoffs are fitted with: a message
# the model cannot call stays unsure, whatever a fit on few messages says.
MIN_BAND = 0.25


class Cutoffs(Record):
    """P(spam) at or above `spam` is spam, at or below `ham` is ham, between is unsure."""

    __slots__ = ("spam", "ham")
    _defaults = {"spam": SPAM_CUTOFF, "ham": HAM_CUTOFF}
    _frozen = True
    spam: float
    ham: float

    def _check(self):
        if not (0.0 <= self.ham <= self.spam <= 1.0):
            raise ValueError(f"cutoffs must satisfy 0 <= ham ({self.ham}) <= spam ({self.spam}) <= 1")

    def with_given(self, spam: float | None = None, ham: float | None = None) -> "Cutoffs":
        """These cutoffs with those given (on a command line, in settings, by
        a client) in their place.  One given alone moves the other only as
        far as it must: a spam cutoff under this ham cutoff takes the ham
        cutoff down with it.  ValueError for cutoffs out of order or range."""
        new_spam = self.spam if spam is None else spam
        new_ham = self.ham if ham is None else ham
        if ham is None:
            new_ham = min(new_ham, new_spam)
        elif spam is None:
            new_spam = max(new_spam, new_ham)
        return Cutoffs(spam=new_spam, ham=new_ham)

    def label(self, log_odds: float) -> str:
        """The verdict, decided in log-odds: P(spam) rounds to 1.0 past
        log-odds 37, so comparing probabilities would make a cutoff of 1
        (never say spam) meaningless."""
        if log_odds >= logit(self.spam):
            return LABEL_SPAM
        if log_odds <= logit(self.ham):
            return LABEL_HAM
        return LABEL_UNSURE


class ScoringRule(Record):
    """How per-token contributions x_w λ_w become the message's log-odds.

        raw      = Σ_{kept w} x_w λ_w / n^γ
        log-odds = offset + scale · raw

    kept: the `top_k` tokens with the largest |x_w λ_w| (all when 0); n: how
    many were kept; γ = 0, 1/2, 1 for normalize none, sqrt, mean.  Plain
    naive Bayes is top_k 0, normalize none, scale 1, offset b.  With
    normalisation, offset and scale come from calibration (model.py).
    """

    __slots__ = ("normalize", "top_k", "scale", "offset", "chunk", "calibrated")
    _defaults = {"normalize": "none", "top_k": 0, "scale": 1.0, "offset": 0.0, "chunk": 0, "calibrated": False}
    _frozen = True
    normalize: str
    top_k: int
    scale: float
    offset: float
    chunk: int
    calibrated: bool
    # chunk: long-mail chunking, each run of this many tokens scored alone, the spammiest kept.
    # calibrated: offset and scale are the fitted calibration's (else offset is the bias b, scale 1);
    # it names the offset in explanations.

    def raw(self, contributions: list[float]) -> tuple[float, list[int]]:
        """(raw score, indices of the contributions kept); the raw score is
        NO_EVIDENCE (NaN) when fewer than MIN_EVIDENCE are nonzero."""
        kept = list(range(len(contributions)))
        if self._keeps_every_term(len(contributions)):
            return self._every_term(contributions), kept
        if len(contributions) < MIN_EVIDENCE:
            return NO_EVIDENCE, kept
        kept.sort(key=lambda i: -abs(contributions[i]))
        kept = kept[: self.top_k]
        return sum(contributions[i] for i in kept) / self.divisor(len(kept)), kept

    def raw_score(self, contributions: list[float]) -> float:
        """raw(contributions)'s raw score alone: where every term is kept,
        without the list of their indices (a bulk classify scores each
        message here)."""
        if self._keeps_every_term(len(contributions)):
            return self._every_term(contributions)
        return self.raw(contributions)[0]

    def _keeps_every_term(self, terms: int) -> bool:
        return terms >= MIN_EVIDENCE and not (self.top_k and terms > self.top_k)

    def _every_term(self, contributions: list[float]) -> float:
        # Every term kept, in order: the same additions as over `kept`, without
        # a Python step per term (a third of a bulk classify's Python per message).
        return sum(contributions) / self.divisor(len(contributions))

    def divisor(self, kept: int) -> float:
        """n^γ for n contributions kept (at least 1)."""
        n = max(kept, 1)
        if self.normalize == "sqrt":
            return math.sqrt(n)
        return {"none": 1.0, "mean": float(n)}[self.normalize]

    def chunks(self, tokens):
        """The runs of a message scored alone: the whole message, or with
        chunking, runs of `chunk` tokens in reading order (a list or an array)."""
        if self.chunk and len(tokens) > self.chunk:
            return [tokens[i:i + self.chunk] for i in range(0, len(tokens), self.chunk)]
        return [tokens]

    def message_raw(self, tokens, contributions) -> float:
        """A message's raw score: that of its spammiest chunk with evidence
        (NO_EVIDENCE when none has), each chunk's the raw of
        `contributions(chunk)`, its nonzero x_w λ_w.  The one definition
        every path scores by, whatever holds the weights: the model file
        (score_tokens) or counts weighed for arrays of token keys
        (keyscores.raw_scores_by_key)."""
        raws = [self.raw(contributions(chunk))[0] for chunk in self.chunks(tokens)]
        return max((raw for raw in raws if raw == raw), default=NO_EVIDENCE)  # raw == raw: not NaN

    def log_odds(self, raw):
        """offset + scale · raw: the calibrated log-odds of a raw score (a
        number or an array); 0 (P(spam) 0.5) for NO_EVIDENCE."""
        if isinstance(raw, float | int):
            return 0.0 if raw != raw else self.offset + self.scale * raw
        from numpy import isnan, where  # arrays: the numpy paths

        return where(isnan(raw), 0.0, self.offset + self.scale * raw)

    def raw_of_log_odds(self, log_odds: float) -> float:
        """The raw score a log-odds came from (log_odds inverted)."""
        return (log_odds - self.offset) / self.scale


class TokenEffect(Record):
    """One token's part in a score: its weight λ_w, how many times it was
    counted in this message (1 under presence scoring), and what it added to
    the message's log-odds, scale · x_w λ_w / n^γ."""

    __slots__ = ("token", "weight", "count", "contribution")
    token: str
    weight: float
    count: int
    contribution: float


class Score(Record):
    """A message's score: log-odds, P(spam) and verdict; how many of its
    distinct tokens the model knows; with explain, the known tokens,
    strongest contribution first, and `terms`, the other terms of the sum
    as (name, value) (the calibration offset, or the bias b), so that
    log_odds = Σ terms + Σ effects' contributions; `factor`: what each
    token's weight × count was multiplied by, as (scale, n^γ, n);
    reason: why the message was not scored (it ran out of time, it is not
    mail, too little evidence), or None; raw: the score before calibration
    (ScoringRule.message_raw), NO_EVIDENCE when there was none."""

    __slots__ = ("log_odds", "probability", "label", "tokens_known", "tokens_distinct", "effects", "reason",
                 "terms", "factor", "raw")
    _defaults = {"tokens_known": 0, "tokens_distinct": 0, "reason": None, "factor": None, "raw": NO_EVIDENCE}
    _factories = {"effects": list, "terms": list}
    log_odds: float
    probability: float
    label: str
    tokens_known: int
    tokens_distinct: int
    effects: list[TokenEffect]
    reason: str | None
    terms: list[tuple[str, float]]
    factor: tuple[float, float, int] | None
    raw: float


def logit(p: float) -> float:
    """log(p / (1 - p)), with ±infinity at 1 and 0."""
    if p >= 1.0:
        return math.inf
    if p <= 0.0:
        return -math.inf
    return math.log(p) - math.log1p(-p)


def probability(log_odds: float) -> float:
    """The logistic function, without overflow for |log-odds| in the thousands."""
    if log_odds >= 0:
        return 1.0 / (1.0 + math.exp(-log_odds))
    z = math.exp(log_odds)
    return z / (1.0 + z)


class WeightTable:
    """Token → λ lookups over a model's key-sorted arrays, without building a
    dictionary: the core's KeyTable (core/src/model/table.rs) searches the
    file's sections where they are mapped (a binary search over the first key
    of each block, then over the block) and checks a block's keys and weights
    against their CRC the first time a lookup reads them.
    """

    def __init__(self, keys, weights, block_first, block_crcs=None, block_size: int = 512,
                 where: str = "model") -> None:
        self._weights = _as_native(weights, "f")
        self._where = where
        self._table = KeyTable(_as_bytes(keys), _as_bytes(weights), _as_bytes(block_first),
                               None if block_crcs is None else _as_bytes(block_crcs), block_size)

    def __len__(self) -> int:
        return len(self._table)

    def index(self, token: str) -> int:
        """The token's position, or -1 when the model never saw it."""
        try:
            return self._table.index(token_key(token))
        except ValueError as error:
            raise self._error(error) from None

    def bag(self, tokens: list[str]) -> tuple[list[str], list[int], list[int], list[int]]:
        """A message's tokens as (the distinct ones in order of first
        appearance, how often each occurs, its position here or -1 when the
        model never saw it, its key): one call into the core, not a Python
        step and a lookup per token."""
        try:
            return self._table.bag(tokens)
        except ValueError as error:
            raise self._error(error) from None

    def weighed_bag(self, tokens: list[str]) -> tuple[list[str], list[int], list[float | None]]:
        """bag's distinct tokens and counts, with each one's λ (None where the
        model never saw it); the tokens met before are answered from the
        core's memory of them: a bulk run (`evaluate`) meets the same words
        again and again."""
        try:
            return self._table.weighed_bag(tokens)
        except ValueError as error:
            raise self._error(error) from None

    def message_terms(self, raw: bytes, tokenizer, presence: bool) -> tuple[list[float], int, int]:
        """(nonzero x_w λ_w of the known tokens in order of first appearance,
        how many, distinct tokens) of a raw message: decoded, tokenized and
        looked up in the core in one call."""
        try:
            return self._table.message_terms(raw, tokenizer, presence)
        except ValueError as error:
            raise self._error(error) from None

    def _error(self, error: ValueError):
        from ..errors import ModelError

        kind, detail = error.args if len(error.args) == 2 else ("unusable", error)  # the core's (kind, detail)
        if kind == "corrupt":
            return ModelError(f"{self._where} is corrupt (checksum mismatch in block {detail}); "
                              "restore a backup or retrain")
        return ModelError(f"{self._where} is not usable ({detail}); retrain it")

    def weight(self, index: int) -> float:
        return self._weights[index]


def _as_bytes(buffer) -> memoryview:
    """A section as the core reads it: its bytes, little-endian as stored."""
    return memoryview(buffer).cast("B")


def _as_native(buffer, code: str):
    """A memoryview of little-endian numbers in native order (the file is little-endian)."""
    view = memoryview(buffer).cast("B")
    if sys.byteorder == "little":
        return view.cast(code)  # type: ignore[call-overload]  # the struct code is known only at run time
    import array

    swapped = array.array(code, bytes(view))
    swapped.byteswap()
    return memoryview(swapped)


def score_tokens(tokens: list[str], table: WeightTable, rule: ScoringRule, presence: bool,
                 cutoffs: Cutoffs, explain: bool = False) -> Score:
    """log-odds = offset + scale · Σ_{kept w} x_w λ_w / n^γ over the tokens the model knows.

    With chunking, a message longer than `rule.chunk` tokens is cut into runs
    of that many (in reading order) and scored as its spammiest run: spam
    padded with pages of innocent text still shows its spam part.
    """
    chunks = rule.chunks(tokens)
    if len(chunks) == 1:
        return _score_one(tokens, table, rule, presence, cutoffs, explain)
    scores = [_score_one(chunk, table, rule, presence, cutoffs, explain) for chunk in chunks]
    # The spammiest chunk with evidence (a short last chunk must not win at 0.5).
    best = max(scores, key=lambda score: (score.raw == score.raw, score.log_odds))
    best.tokens_distinct = len(set(tokens))
    return best


def judge(raw: float, rule: ScoringRule, cutoffs: Cutoffs) -> tuple[float, float, str]:
    """The last step of the scoring rule for one message: its raw score to
    (log-odds, calibrated P(spam), verdict); NO_EVIDENCE is 0, 0.5, unsure."""
    if raw != raw:
        return 0.0, 0.5, LABEL_UNSURE
    log_odds = rule.log_odds(raw)
    return log_odds, probability(log_odds), cutoffs.label(log_odds)


def score_terms(terms: list[float], known: int, distinct: int, rule: ScoringRule, cutoffs: Cutoffs) -> Score:
    """The Score of a message from its terms x_w λ_w (the nonzero ones of the
    known tokens, in order of first appearance), without explanation: what
    _score_one gives for the same message."""
    raw = rule.raw_score(terms)
    log_odds, p, label = judge(raw, rule, cutoffs)
    return Score(log_odds=log_odds, probability=p, label=label, tokens_known=known, tokens_distinct=distinct,
                 raw=raw, reason=too_little_evidence(known) if raw != raw else None)


def _score_one(tokens, table, rule, presence, cutoffs, explain) -> Score:
    distinct, counts, weights = table.weighed_bag(tokens)
    known: list[tuple[str, float, int]] = []
    for token, count, weight in zip(distinct, counts, weights):
        if weight:  # None: never seen; 0: no evidence, below min_strength, or left out by feature selection
            known.append((token, weight, 1 if presence else count))
    raw, kept = rule.raw([weight * times for _, weight, times in known])
    log_odds, p, label = judge(raw, rule, cutoffs)
    effects: list[TokenEffect] = []
    terms: list[tuple[str, float]] = []
    factor = None
    if explain and raw != raw:  # no verdict: the tokens are shown, none of them counts
        effects = [TokenEffect(token, weight, times, 0.0) for token, weight, times in known]
    elif explain:
        divisor = rule.divisor(len(kept))
        scaled = rule.scale / divisor
        effects = [TokenEffect(known[i][0], known[i][1], known[i][2], scaled * known[i][1] * known[i][2])
                   for i in kept]
        effects.sort(key=lambda effect: -abs(effect.contribution))
        # Every term of the sum is shown: the offset is its own line, so the
        # lines add up to the log-odds (to rounding in the last bits).
        terms = [("calibration offset" if rule.calibrated else "bias (prior log-odds)", rule.offset)]
        factor = (rule.scale, divisor, len(kept))
    return Score(log_odds=log_odds, probability=p, label=label, tokens_known=len(known), tokens_distinct=len(distinct),
                 effects=effects, terms=terms, factor=factor, raw=raw,
                 reason=too_little_evidence(len(known)) if raw != raw else None)
