"""A model opened for scoring only.

`classify`, `filter` and `serve` need the options, the cutoffs and the
weights of the tokens a message holds: nothing else.  A Scorer maps the model
file and reads just that, with the standard library alone (no numpy), so a
fresh process scores a message in milliseconds whatever the model's size.
`Model` (model.py) is a Scorer that also holds the counts, for training,
learning and inspection; opening.py opens a model as the one or the other.
"""

from __future__ import annotations

import os

from ..errors import ModelError
from .formula import SCALARS, knows_both_classes, prior_log_odds, token_weights
from .modelread import itemsize_of, occurrence_block_crc, read_model
from .options import TrainOptions, presence_scoring
from .._core import token_key
from .scoring import Cutoffs, Score, ScoringRule, WeightTable, score_terms, score_tokens
from ..text.tokens import TOKENIZER_VERSION, TokenizerOptions, message_tokens

SCORING_SECTIONS = ("keys", "weights", "block_first", "block_crcs")


def options_to_meta(options: TrainOptions) -> dict:
    """The options as a model file's metadata and an export's settings line store them."""
    return {"event_model": options.event_model, "alpha": options.alpha,
            "tokenizer": options.tokenizer.to_dict(), "robinson": options.robinson,
            "normalize": options.normalize, "top_k": options.top_k, "chunk": options.chunk,
            "min_df": options.min_df, "max_features": options.max_features,
            "min_strength": options.min_strength, "retrain_margin": options.retrain_margin,
            "keywords": sorted(options.keywords)}


# Bounds on what a model's header may say.  A file is written by someone
# (an old backup, another tool, an attacker who can write the model path):
# whatever it holds, scoring gets finite numbers in these ranges or the
# model is refused as "not usable, retrain" (exit 3), never a wrong score.
_LIMIT = 1e6           # alpha, Robinson strength, minimum strength, calibration scale and offset
_BIAS_LIMIT = 1e9      # the Bernoulli bias sums over the vocabulary: wider
_COUNT_LIMIT = 2**31   # top-k, chunk, min-df, max-features


def number(meta: dict, key: str, low: float, high: float, default=None) -> float:
    """meta[key] as a finite float in [low, high]; ValueError otherwise."""
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{key} is {type(value).__name__}, not a number")
    value = float(value)
    if not (low <= value <= high):  # NaN fails too
        raise ValueError(f"{key} = {value!r} is outside {low:g}..{high:g}")
    return value


def whole(meta: dict, key: str, low: int, high: int, default=None) -> int:
    """meta[key] as an int in [low, high] (JSON 3.0 is not an int); ValueError otherwise."""
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} is {type(value).__name__}, not a whole number")
    if not (low <= value <= high):
        raise ValueError(f"{key} = {value} is outside {low}..{high}")
    return value


def _strings(data: dict, key: str) -> list[str]:
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"tokenizer {key} is not a list of strings")
    return value


def _flag(data: dict, key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"tokenizer {key} is not true or false")
    return value


def options_from_meta(meta: dict) -> TrainOptions:
    """The training options a model's header stores, checked: every value of
    the type and range scoring relies on, or ValueError."""
    tokenizer = meta["tokenizer"]
    if not isinstance(tokenizer, dict):
        raise ValueError("tokenizer settings are not a table")
    for key in ("event_model", "normalize"):
        if not isinstance(meta.get(key, "none"), str):
            raise ValueError(f"{key} is not a string")
    return TrainOptions(
        event_model=meta["event_model"], alpha=number(meta, "alpha", 1e-300, _LIMIT),
        tokenizer=TokenizerOptions(headers=tuple(_strings(tokenizer, "headers")),
                                   stopwords=frozenset(_strings(tokenizer, "stopwords")),
                                   bigrams=_flag(tokenizer, "bigrams"),
                                   fold_variants=_flag(tokenizer, "fold_variants")),
        robinson=number(meta, "robinson", 0, _LIMIT, 0.0), normalize=meta.get("normalize", "none"),
        top_k=whole(meta, "top_k", 0, _COUNT_LIMIT, 0), chunk=whole(meta, "chunk", 0, _COUNT_LIMIT, 0),
        min_df=whole(meta, "min_df", 0, _COUNT_LIMIT, 0),
        max_features=whole(meta, "max_features", 0, _COUNT_LIMIT, 0),
        # Models written before the option existed weighed every token.
        min_strength=number(meta, "min_strength", 0, _LIMIT, 0.0),
        # Models written before the option existed counted each message once.
        retrain_margin=number(meta, "retrain_margin", 0, _LIMIT, 0.0),
        keywords=frozenset(_strings(meta, "keywords")) if "keywords" in meta else frozenset())


def cutoffs_from_meta(meta: dict) -> Cutoffs:
    cutoffs = meta["cutoffs"]
    if not isinstance(cutoffs, dict):
        raise ValueError("cutoffs are not a table")
    return Cutoffs(spam=number(cutoffs, "spam", 0, 1), ham=number(cutoffs, "ham", 0, 1))


def check_scoring_meta(meta: dict) -> None:
    """The numbers of the header that a score is computed from: finite and in range."""
    number(meta, "bias", -_BIAS_LIMIT, _BIAS_LIMIT, 0.0)
    calibration = meta.get("calibration")
    if calibration is not None:
        if not isinstance(calibration, dict):
            raise ValueError("calibration is not a table")
        number(calibration, "scale", -_LIMIT, _LIMIT)
        number(calibration, "offset", -_LIMIT, _LIMIT)
    whole(meta, "block_size", 1, 1 << 20)


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
    from its counts, the base's plus the journal's changes, by the rule of
    formula.py (a token's own occurrence counts, the totals T_c = Σ_w N_cw
    and the vocabulary V, both moved by the journal: the multinomial and
    mixed models, which journal_scoring allows), in plain floats; 0 for a
    token off the keyword list.
    """

    def __init__(self, base: WeightTable, model_file, state, options: TrainOptions, meta: dict) -> None:
        self._base = base
        entry = meta["sections"]["occurrences"]
        code = {"<u2": "H", "<u4": "I"}[entry["dtype"]]
        from .scoring import _as_native

        self._stored = model_file.stored("occurrences")
        self._occurrences = _as_native(self._stored, code)
        self._size = len(base)
        if len(self._occurrences) != 2 * self._size:
            raise ValueError("occurrence counts disagree with the keys")
        # Each block of counts is checked the first time a token in it is
        # weighed, as the keys and weights are: checking the whole section at
        # every open cost a learn or classify time in proportion to the
        # vocabulary (34.1 M tokens: 55 ms a learn, where a block at a time
        # takes 24; at 640,000 tokens the two cost the same).
        self._path, self._block_size = model_file.path, int(meta["block_size"])
        self._itemsize = itemsize_of(entry["dtype"])
        self._checked: set[int] = set()
        if "occurrence_crcs" in meta["sections"]:
            model_file.check_section("occurrence_crcs")  # 4 bytes a block: checked whole
            self._crcs = _as_native(model_file.stored("occurrence_crcs"), "I")
        else:
            model_file.check_section("occurrences")  # a model written before the per-block checksums
            self._crcs = None
        self._state = state
        self._options = options
        # Keywords matched by key, as training's selected_tokens matches them.
        self._keyword_keys = frozenset(token_key(word) for word in options.keywords) if options.keywords else None
        self._base_totals = [int(total) for total in meta["totals"]]
        self._base_messages = [int(count) for count in meta["messages"]]
        self._base_vocabulary = int(meta["vocabulary"])
        self._known: dict[str, float | None] = {}  # token → λ, until the journal state changes
        self.refresh()

    def refresh(self) -> None:
        """Recompute the per-model terms after the journal state changed (learn)."""
        state = self._state
        self._totals = [self._base_totals[c] + state.totals[c] for c in (0, 1)]
        self._messages = [self._base_messages[c] + state.messages[c] for c in (0, 1)]
        self._vocabulary = self._base_vocabulary + state.vocabulary
        self.scorable = knows_both_classes(self._messages)
        self.bias = prior_log_odds(self._messages, SCALARS.log) if self.scorable else 0.0
        self._known.clear()

    def __len__(self) -> int:
        return self._size + self._state.vocabulary

    def messages(self, label: int) -> int:
        """Messages learned as `label` (0 ham, 1 spam), the journal included."""
        return self._base_messages[label] + self._state.messages[label]

    # λ of the tokens weighed, by token: a long-lived scorer (serve) meets the
    # same words again and again, and a dict probe is then all such a token
    # costs; emptied when full, so mail of unique tokens cannot grow it.
    KNOWN_LIMIT = 1 << 18

    def bag(self, tokens: list[str]) -> tuple[list[str], list[int], list[int], list[int]]:
        """(distinct tokens, how often each occurs, base index or -1, key): WeightTable.bag of the base."""
        return self._base.bag(tokens)

    def weighed_bag(self, tokens: list[str]) -> tuple[list[str], list[int], list[float | None]]:
        """(distinct tokens in order of first appearance, how often each
        occurs, λ of each now): the tokens weighed since the journal state
        last changed answered from memory, the others looked up in one bag."""
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        known = self._known
        new = [token for token in counts if token not in known]
        if new:
            if len(known) + len(new) > self.KNOWN_LIMIT:
                known.clear()
                new = list(counts)
            _, _, indexes, keys = self._base.bag(new)
            known.update(zip(new, [self._weight(index, key, change) for index, key, change
                                   in zip(indexes, keys, self.changes_of(keys))]))
        return list(counts), list(counts.values()), [known[token] for token in counts]

    def changes_of(self, keys: list[int]) -> list[list[int] | None]:
        """The journal's summed changes of each key (None: no record holds it), asked for in one batch."""
        return self._state.changes.many(keys)

    def counts_at(self, index: int, change: list[int] | None) -> tuple[int, int] | None:
        """(N_ham, N_spam) now of a token from its base index (-1: not in the base)
        and its journal change (changes_of); None when the model does not hold it."""
        n_ham = n_spam = 0
        if index >= 0:
            if self._crcs is not None and index // self._block_size not in self._checked:
                self._check_block(index // self._block_size)
            n_ham, n_spam = self._occurrences[index], self._occurrences[self._size + index]
        if change is not None:
            n_ham += change[0]
            n_spam += change[1]
        elif index < 0:
            return None
        if n_ham < 0 or n_spam < 0:
            from ..errors import ModelError

            raise ModelError("the model's journal takes out more than it holds; not usable, retrain it")
        if n_ham + n_spam <= 0:
            return None  # every message that held it was forgotten
        return n_ham, n_spam

    def _check_block(self, block: int) -> None:
        start = block * self._block_size
        end = min(start + self._block_size, self._size)
        if occurrence_block_crc(self._stored, self._size, self._itemsize, start, end) != self._crcs[block]:
            raise ModelError(f"model {self._path} is corrupt (checksum mismatch in occurrences); "
                             "restore a backup or retrain")
        self._checked.add(block)

    def _weight(self, index: int, key: int, change: list[int] | None) -> float | None:
        found = self.counts_at(index, change)
        if found is None:
            return None
        if not self.scorable or (self._keyword_keys is not None and key not in self._keyword_keys):
            return 0.0
        options = self._options
        # No document counts: the rule reads them only for what journal_scoring excludes.
        weight, _ = token_weights(found, None, self._messages, self._totals, self._vocabulary,
                                  options.event_model, options.alpha, options.robinson, options.min_strength,
                                  SCALARS)
        return weight


class NeedsWholeLoad(ModelError):
    """A model whose journal Scorer.open cannot apply: only the whole load
    (Model.load) can fold it in.  A ModelError, so a caller that does not
    fall back still fails with one line."""


class Scorer:
    """Options, cutoffs, calibration and a weight table: all scoring needs."""

    def __init__(self, options: TrainOptions, cutoffs: Cutoffs | None = None,
                 meta: dict | None = None) -> None:
        self.options = options
        self.cutoffs = cutoffs or Cutoffs()
        self.meta = dict(meta or {})
        self.bias: float = float(self.meta.get("bias", 0.0))
        self._table: WeightTable | LiveTable | None = None

    @classmethod
    def open(cls, path: str | os.PathLike, model_file=None, base: WeightTable | None = None) -> "Scorer":
        """Map a model file for scoring; raises ModelError for anything amiss,
        NeedsWholeLoad for a journal it cannot apply (opening.open_scorer then
        loads the model whole).  `base`: the WeightTable of this very file's
        base, from an earlier open (incremental.learn_appending, learning
        again and again in one process)."""
        model_file = model_file or read_model(path, verify=False)
        meta = model_file.meta
        try:
            check_scoring_meta(meta)
            scorer = cls(options_from_meta(meta), cutoffs_from_meta(meta), meta)
            check_tokenizer_version(meta)
            if base is None:
                for name in ("block_first", "block_crcs"):  # small: checked whole
                    model_file.check_section(name)
                base = WeightTable(*(model_file.stored(name) for name in SCORING_SECTIONS),  # type: ignore[misc]  # the star fills the arrays only
                                   block_size=meta["block_size"], where=f"model {path}")
            scorer._table = base
            if model_file.journal_bytes:
                state, _torn = model_file.journal()
                if state and not journal_scoring(scorer.options):
                    # Not written by this spamnb's learn; the whole load folds it in.
                    raise NeedsWholeLoad(f"model {path} has a journal scoring cannot apply as it "
                                         "stands; open it with opening.open_scorer or Model.load")
                if state:
                    scorer._table = LiveTable(scorer._table, model_file, state, scorer.options, meta)
                    scorer.bias = scorer._table.bias
        except (KeyError, TypeError, ValueError, IndexError, ArithmeticError) as error:
            raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
        return scorer

    @property
    def table(self) -> WeightTable:
        assert self._table is not None
        return self._table  # type: ignore[return-value]  # a LiveTable scores as a WeightTable does

    @property
    def rule(self) -> ScoringRule:
        """How contributions combine: the options, plus the calibration if fitted.

        Made again only when what it is made of was replaced (the options,
        the calibration table, the bias: each is replaced, never changed in
        place): a bulk run asks once per message."""
        calibration = self.meta.get("calibration")
        made = getattr(self, "_rule_made", None)
        if made is not None and made[0] is self.options and made[1] is calibration and made[2] is self.bias:
            return made[3]
        scale, offset = (calibration["scale"], calibration["offset"]) if calibration else (1.0, self.bias)
        rule = ScoringRule(self.options.normalize, self.options.top_k, scale, offset, self.options.chunk,
                           calibration is not None)
        self._rule_made = (self.options, calibration, self.bias, rule)
        return rule

    def tokens(self, raw: bytes) -> list[str]:
        tokenizer = self.options.tokenizer
        return message_tokens(raw, tokenizer)

    def score_tokens(self, tokens: list[str], explain: bool = False,
                     cutoffs: Cutoffs | None = None) -> Score:
        return score_tokens(tokens, self.table, self.rule, presence_scoring(self.options.event_model),
                            cutoffs or self.cutoffs, explain)

    def raw_score(self, tokens: list[str]) -> float:
        """The raw score (before calibration) the model as it stands gives;
        NO_EVIDENCE (NaN) for a message with too few known tokens."""
        return self.score_tokens(tokens).raw

    def score_message(self, raw: bytes, explain: bool = False,
                      cutoffs: Cutoffs | None = None) -> Score:
        """Score one raw message (bytes as read from a file or stdin).

        A plain model file scores in one call into the core (decode,
        tokenize, key, look up: WeightTable.message_terms), the token list
        never built in Python; explanations, chunking and a journal's live
        weights take the token list."""
        rule = self.rule
        if explain or rule.chunk or not isinstance(self._table, WeightTable):
            return self.score_tokens(self.tokens(raw), explain, cutoffs)
        terms, known, distinct = self._table.message_terms(raw, self.options.tokenizer,
                                                           presence_scoring(self.options.event_model))
        return score_terms(terms, known, distinct, rule, cutoffs or self.cutoffs)
