"""A model opened for scoring only.

`classify`, `filter` and `serve` need the options, the cutoffs and the
weights of the tokens a message holds: nothing else.  A Scorer maps the model
file and reads just that, with the standard library alone (no numpy), so a
fresh process scores a message in milliseconds whatever the model's size.
`Model` (model.py) is a Scorer that also holds the counts, for training,
learning and inspection.
"""

from __future__ import annotations

import os

from .errors import ModelError
from .message import decode_message
from .modelfile import read_model
from .options import TrainOptions, presence_scoring
from .scoring import Cutoffs, Score, ScoringRule, WeightTable, score_tokens
from .tokens import TOKENIZER_VERSION, TokenizerOptions, message_tokens

SCORING_SECTIONS = ("keys", "weights", "block_first", "block_crcs")


def options_to_meta(options: TrainOptions) -> dict:
    """The options as a model file's metadata and an export's settings line store them."""
    return {"event_model": options.event_model, "alpha": options.alpha,
            "tokenizer": options.tokenizer.to_dict(), "robinson": options.robinson,
            "normalize": options.normalize, "top_k": options.top_k, "chunk": options.chunk,
            "min_df": options.min_df, "max_features": options.max_features,
            "min_strength": options.min_strength}


def options_from_meta(meta: dict) -> TrainOptions:
    return TrainOptions(
        event_model=meta["event_model"], alpha=float(meta["alpha"]),
        tokenizer=TokenizerOptions.from_dict(meta["tokenizer"]),
        robinson=float(meta.get("robinson", 0.0)), normalize=meta.get("normalize", "none"),
        top_k=int(meta.get("top_k", 0)), chunk=int(meta.get("chunk", 0)),
        min_df=int(meta.get("min_df", 0)), max_features=int(meta.get("max_features", 0)),
        # Models written before the option existed weighed every token.
        min_strength=float(meta.get("min_strength", 0.0)))


def check_tokenizer_version(meta: dict) -> None:
    version = meta.get("tokenizer_version")
    if version != TOKENIZER_VERSION:
        raise ValueError(f"it was made by tokenizer version {version}, this spamnb tokenizes "
                         f"as version {TOKENIZER_VERSION}")


def journal_scoring(options: TrainOptions) -> bool:
    """Whether λ of this model is a token's own count term plus one constant
    per model, so that learning can be appended (journal.py) and scored from
    counts: the multinomial and mixed event models, without Robinson's
    shrinking or feature selection (which depend on every token at once).
    Other models are rewritten whole by `learn`."""
    return (options.event_model in ("multinomial", "mixed") and options.robinson == 0
            and options.min_df <= 1 and options.max_features == 0)


class LiveTable:
    """The weight table of a model with a journal: λ of each token computed
    from its counts, the base's plus the journal's changes, as weights.py
    defines it for the multinomial and mixed models:

        λ_w = log(N_spam,w + α) − log(N_ham,w + α) + log(T_ham + αV) − log(T_spam + αV)

    with T_c = Σ_w N_cw and V the vocabulary, both moved by the journal; 0
    when |λ_w| is below min_strength, or when a class has no message yet.
    """

    def __init__(self, base: WeightTable, model_file, state, options: TrainOptions, meta: dict) -> None:
        import math

        self._log = math.log
        self._base = base
        model_file.check_section("occurrences")  # read for every token: checked whole (a few ms)
        entry = meta["sections"]["occurrences"]
        code = {"<u2": "H", "<u4": "I"}[entry["dtype"]]
        from .scoring import _as_native

        self._occurrences = _as_native(model_file.stored("occurrences"), code)
        self._size = len(base)
        if len(self._occurrences) != 2 * self._size:
            raise ValueError("occurrence counts disagree with the keys")
        self._state = state
        self._alpha = float(options.alpha)
        self._floor = float(options.min_strength)
        self._base_totals = [int(total) for total in meta["totals"]]
        self._base_messages = [int(count) for count in meta["messages"]]
        self._base_vocabulary = int(meta["vocabulary"])
        self._known: dict[str, float | None] = {}
        self._places: dict[str, tuple[int, int]] = {}
        self.refresh()

    def refresh(self) -> None:
        """Recompute the per-model terms after the journal state changed (learn)."""
        state = self._state
        totals = [self._base_totals[c] + state.totals[c] for c in (0, 1)]
        messages = [self._base_messages[c] + state.messages[c] for c in (0, 1)]
        vocabulary = self._base_vocabulary + state.vocabulary
        self.scorable = min(messages) > 0
        log, alpha = self._log, self._alpha
        self._constant = (log(totals[0] + alpha * vocabulary) - log(totals[1] + alpha * vocabulary)
                          if self.scorable else 0.0)
        self.bias = log(messages[1]) - log(messages[0]) if self.scorable else 0.0
        self._known.clear()

    def __len__(self) -> int:
        return self._size + self._state.vocabulary

    def place(self, token: str) -> tuple[int, int]:
        """(base index or -1, key) of a token, looked up once."""
        found = self._places.get(token)
        if found is None:
            from .scoring import token_key

            if len(self._places) >= WeightTable.KNOWN_LIMIT:
                self._places.clear()
            found = self._places[token] = (self._base.index(token), token_key(token))
        return found

    def counts_of(self, token: str) -> tuple[int, int, int] | None:
        """(base index or -1, N_ham, N_spam) now; None when the model does not hold the token."""
        index, key = self.place(token)
        n_ham = n_spam = 0
        if index >= 0:
            n_ham, n_spam = self._occurrences[index], self._occurrences[self._size + index]
        change = self._state.changes.get(key)
        if change is not None:
            n_ham += change[0]
            n_spam += change[1]
        elif index < 0:
            return None
        if n_ham + n_spam <= 0:
            return None  # every message that held it was forgotten
        return index, n_ham, n_spam

    def weight_of(self, token: str) -> float | None:
        try:
            return self._known[token]
        except KeyError:
            pass
        found = self.counts_of(token)
        if found is None:
            weight = None
        elif not self.scorable:
            weight = 0.0
        else:
            _, n_ham, n_spam = found
            log, alpha = self._log, self._alpha
            weight = log(n_spam + alpha) - log(n_ham + alpha) + self._constant
            if abs(weight) < self._floor:
                weight = 0.0
        if len(self._known) >= WeightTable.KNOWN_LIMIT:
            self._known.clear()
        self._known[token] = weight
        return weight


class Scorer:
    """Options, cutoffs, calibration and a weight table: all scoring needs."""

    def __init__(self, options: TrainOptions, cutoffs: Cutoffs | None = None,
                 meta: dict | None = None) -> None:
        self.options = options
        self.cutoffs = cutoffs or Cutoffs()
        self.meta = dict(meta or {})
        self.bias: float = float(self.meta.get("bias", 0.0))
        self._table: WeightTable | None = None

    @classmethod
    def open(cls, path: str | os.PathLike, model_file=None) -> "Scorer":
        """Map a model file for scoring; raises ModelError for anything amiss."""
        model_file = model_file or read_model(path, verify=False)
        meta = model_file.meta
        try:
            scorer = cls(options_from_meta(meta), Cutoffs(**meta["cutoffs"]), meta)
            check_tokenizer_version(meta)
            for name in ("block_first", "block_crcs"):  # small: checked whole
                model_file.check_section(name)
            scorer._table = WeightTable(*(model_file.stored(name) for name in SCORING_SECTIONS),
                                        block_size=int(meta["block_size"]), where=f"model {path}")
            if model_file.journal_bytes:
                state, _torn = model_file.journal()
                if state and not journal_scoring(scorer.options):
                    # Not written by this spamnb's learn; the whole load folds it in.
                    from .model import Model

                    return Model.load(path)
                if state:
                    scorer._table = LiveTable(scorer._table, model_file, state, scorer.options, meta)
                    scorer.bias = scorer._table.bias
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
        return scorer

    @property
    def table(self) -> WeightTable:
        assert self._table is not None
        return self._table

    @property
    def rule(self) -> ScoringRule:
        """How contributions combine: the options, plus the calibration if fitted."""
        calibration = self.meta.get("calibration")
        scale, offset = (calibration["scale"], calibration["offset"]) if calibration else (1.0, self.bias)
        return ScoringRule(self.options.normalize, self.options.top_k, scale, offset, self.options.chunk)

    def tokens(self, raw: bytes) -> list[str]:
        tokenizer = self.options.tokenizer
        return message_tokens(decode_message(raw, tokenizer.wants_header), tokenizer)

    def score_tokens(self, tokens: list[str], explain: bool = False,
                     cutoffs: Cutoffs | None = None) -> Score:
        return score_tokens(tokens, self.table, self.rule, presence_scoring(self.options.event_model),
                            cutoffs or self.cutoffs, explain)

    def score_message(self, raw: bytes, explain: bool = False,
                      cutoffs: Cutoffs | None = None) -> Score:
        """Score one raw message (bytes as read from a file or stdin)."""
        return self.score_tokens(self.tokens(raw), explain, cutoffs)
